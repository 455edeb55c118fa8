// Compiles the golden `enums_numeric.rs` warning-free.
#![deny(warnings)]

include!("../enums_numeric.rs");

fn main() {}
