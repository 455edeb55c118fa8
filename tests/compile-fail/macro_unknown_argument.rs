mcpbind::mcp_tools!(lockfile = "mcpbind.lock", server = [demo]);

fn main() {}
