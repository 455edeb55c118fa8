mcpbind::mcp_tools!("no-such-dir/mcpbind.lock");

fn main() {}
