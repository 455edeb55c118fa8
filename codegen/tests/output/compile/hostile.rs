// Compiles the golden `hostile.rs` warning-free.
#![deny(warnings)]

include!("../hostile.rs");

fn main() {}
