//! `--diff`: a unified diff (three lines of context, `similar`) of each file a fix would
//! change, with `a/` and `b/` paths as `git diff` writes them.

use std::path::Path;

/// The unified diff of `old` → `new` for `path` (empty when they are equal).
///
/// # Examples
/// ```
/// let d = shutdown_lint::fix::diff::unified("src/a.rs".as_ref(), "a\nb\n", "a\nc\n");
/// assert_eq!(d, "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
/// ```
pub fn unified(path: &Path, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let shown = path.to_string_lossy().replace('\\', "/");
    let shown = shown.trim_start_matches("./");
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string()
}
