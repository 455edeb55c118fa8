fn main() {
    // Reads mcpbind.lock (the demo server and server-filesystem, never the
    // network) and writes $OUT_DIR/mcpbind.rs.
    mcpbind_codegen::Builder::new()
        .lockfile("mcpbind.lock")
        .generate()
        .unwrap();
}
