// Compiles the golden `properties.rs` warning-free.
#![deny(warnings)]

include!("../properties.rs");

fn main() {}
