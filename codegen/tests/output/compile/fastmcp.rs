// Compiles the golden `fastmcp.rs` warning-free.
#![deny(warnings)]

include!("../fastmcp.rs");

fn main() {}
