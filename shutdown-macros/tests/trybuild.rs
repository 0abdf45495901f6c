//! Compile tests: every option and every marker compiles and runs (`ui/pass`), and every error
//! is a spanned message (`ui/fail/*.stderr`).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
