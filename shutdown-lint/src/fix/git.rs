//! The dirty-tree check: `--fix` refuses to write into a git work tree with uncommitted
//! changes (modified, staged or untracked files), so the fix can be reviewed and undone
//! with git; `--allow-dirty` skips the check. Outside a git work tree (or without `git`)
//! there is nothing to check.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Uncommitted changes (as `git status --porcelain` lines) of the work trees holding `files`.
pub fn dirty(files: &[PathBuf]) -> Vec<String> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for f in files {
        let dir = f.parent().unwrap_or(Path::new("."));
        let Some(root) = toplevel(dir) else { continue };
        if !roots.contains(&root) {
            roots.push(root);
        }
    }
    let mut out = Vec::new();
    for root in roots {
        let Ok(o) = Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(["status", "--porcelain"])
            .output()
        else {
            continue;
        };
        if !o.status.success() {
            continue;
        }
        for line in String::from_utf8_lossy(&o.stdout).lines() {
            out.push(format!("{}: {}", root.display(), line.trim_end()));
        }
    }
    out
}

fn toplevel(dir: &Path) -> Option<PathBuf> {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .ok()?;
    if !o.status.success() {
        return None;
    }
    let s = String::from_utf8_lossy(&o.stdout).trim().to_string();
    (!s.is_empty()).then(|| PathBuf::from(s))
}
