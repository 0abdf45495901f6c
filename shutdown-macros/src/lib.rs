//! Procedural macros of the shutdown discipline toolkit (work in progress).
