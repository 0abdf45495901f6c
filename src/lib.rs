//! Shared pieces of the example programs and of the end-to-end signal tests
//! (the root package owns `examples/` and `tests/`).
