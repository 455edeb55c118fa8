//! Typed calls through the generated bindings.
