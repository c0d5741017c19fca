//! The private rows are a type of their own (docs/architecture.md, "Typed data flow"):
//! code that grows a partition on them, pools them with the public sample, releases a raw
//! label or computes bin edges from a private coordinate does not compile without an
//! escape; the legitimate path (a tree on the public sample, the private users' cells in
//! it, their clipped labels released) does. Each `tests/typed_flow/*.rs` case is a small
//! program; a failing case's `.stderr` is the compiler's error, which names `PrivateRows`.

#[test]
fn reading_private_rows_without_an_escape_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/typed_flow/fail_*.rs");
    t.pass("tests/typed_flow/pass_*.rs");
}
