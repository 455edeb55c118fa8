//! Compile-time checking.
