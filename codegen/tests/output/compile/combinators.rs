// Compiles the golden `combinators.rs` warning-free.
#![deny(warnings)]

include!("../combinators.rs");

fn main() {}
