// Compiles the golden `enums.rs` warning-free.
#![deny(warnings)]

include!("../enums.rs");

fn main() {}
