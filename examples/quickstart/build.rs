fn main() {
    // Reads mcpbind.lock (never the network) and writes $OUT_DIR/mcpbind.rs.
    // With the config named, a lockfile that no longer matches it (a server
    // added, a tool filter changed) fails the build and says what to run.
    mcpbind_codegen::Builder::new()
        .lockfile("mcpbind.lock")
        .config("mcpbind.toml")
        .generate()
        .unwrap();
}
