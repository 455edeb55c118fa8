//! Compile-time checking, proven with trybuild: the bindings in
//! `mcpbind_tests` (from `tests/mcpbind.lock`) reject wrong calls.

#[test]
fn wrong_calls_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("compile-fail/*.rs");
}
