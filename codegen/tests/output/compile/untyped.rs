// Compiles the golden `untyped.rs` warning-free.
#![deny(warnings)]

include!("../untyped.rs");

fn main() {}
