// Compiles the golden `refs.rs` warning-free.
#![deny(warnings)]

include!("../refs.rs");

fn main() {}
