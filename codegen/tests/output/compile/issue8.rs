// Compiles the golden `issue8.rs` warning-free.
#![deny(warnings)]

include!("../issue8.rs");

fn main() {}
