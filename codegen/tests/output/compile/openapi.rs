// Compiles the golden `openapi.rs` warning-free.
#![deny(warnings)]

include!("../openapi.rs");

fn main() {}
