//! The engine (`Package`) and the audit (`Workspace`) see the same targets: both read them
//! through `manifest::targets`. Each case below is one where the two used to disagree (the
//! engine guessed `src/bin/<name>.rs` for a `[[bin]]` without `path` and ignored
//! `autobins = false`), checked end to end: the package's binaries, the audit's binaries, and
//! the `sigterm-missing` verdict the lint gives the binary's real root.

use shutdown_lint::manifest::workspace::Workspace;
use shutdown_lint::package::Package;
use std::path::Path;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `(name, path relative to root)` of some binaries.
type Bins = Vec<(String, String)>;

/// The engine's and the audit's binaries.
fn both(root: &Path) -> (Bins, Bins) {
    let rel = |p: &Path| {
        p.strip_prefix(root)
            .unwrap()
            .display()
            .to_string()
            .replace('\\', "/")
    };
    let pkg = Package::read(root).unwrap();
    let engine = pkg.bins.iter().map(|(n, p)| (n.clone(), rel(p))).collect();
    let ws = Workspace::discover(root).unwrap();
    let audit = ws.crates[0]
        .bins
        .iter()
        .filter(|b| !rel(&b.path).starts_with("examples/"))
        .map(|b| (b.name.clone(), rel(&b.path)))
        .collect();
    (engine, audit)
}

fn pairs(list: &[(&str, &str)]) -> Bins {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

const CTRL_C_ONLY: &str =
    "#[tokio::main]\nasync fn main() { tokio::signal::ctrl_c().await.ok(); }\n";

#[test]
fn declared_bin_in_a_directory_without_path() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"app\"\nedition = \"2021\"\n[[bin]]\nname = \"tool\"\n",
    );
    write(&root.join("src/bin/tool/main.rs"), CTRL_C_ONLY);
    let (engine, audit) = both(root);
    let want = pairs(&[("tool", "src/bin/tool/main.rs")]);
    assert_eq!(engine, want);
    assert_eq!(audit, want);
    let pkg = Package::read(root).unwrap();
    assert_eq!(
        pkg.bins.len(),
        1,
        "one binary, not a guessed src/bin/tool.rs beside it"
    );
}

#[test]
fn declared_bin_named_after_the_package_is_src_main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"app\"\nedition = \"2021\"\n[[bin]]\nname = \"app\"\n",
    );
    write(&root.join("src/main.rs"), CTRL_C_ONLY);
    let (engine, audit) = both(root);
    let want = pairs(&[("app", "src/main.rs")]);
    assert_eq!(engine, want);
    assert_eq!(audit, want);
}

#[test]
fn autobins_false_hides_undeclared_binaries_from_both() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"app\"\nedition = \"2021\"\nautobins = false\n[[bin]]\nname = \"server\"\npath = \"src/server.rs\"\n",
    );
    write(&root.join("src/server.rs"), CTRL_C_ONLY);
    write(&root.join("src/bin/scratch.rs"), "fn main() {}\n");
    let (engine, audit) = both(root);
    let want = pairs(&[("server", "src/server.rs")]);
    assert_eq!(engine, want);
    assert_eq!(audit, want);
}

#[test]
fn the_lint_and_the_audit_agree_on_the_binary_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"app\"\nedition = \"2021\"\n[[bin]]\nname = \"tool\"\n",
    );
    write(&root.join("src/bin/tool/main.rs"), CTRL_C_ONLY);
    let opts = shutdown_lint::engine::LintOptions {
        cwd: Some(root.to_path_buf()),
        ..Default::default()
    };
    let report = shutdown_lint::engine::lint_paths(&[root.to_path_buf()], &opts).unwrap();
    let roots: Vec<_> = report.binaries.iter().map(|b| b.root.clone()).collect();
    assert_eq!(roots, [root.join("src/bin/tool/main.rs")]);
    let rules: Vec<_> = report.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(rules, ["sigterm-missing"]);
    let audit = shutdown_lint::audit::audit(&shutdown_lint::audit::AuditOptions {
        manifest_path: Some(root.to_path_buf()),
        cwd: Some(root.to_path_buf()),
        ..Default::default()
    })
    .unwrap();
    let bins: Vec<_> = audit.crates[0]
        .binaries
        .iter()
        .map(|b| (b.name.as_str(), b.handles_sigterm))
        .collect();
    assert_eq!(bins, [("tool", false)]);
}

#[test]
fn a_root_package_inherits_from_its_own_workspace_table() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"app\"\nedition.workspace = true\n\
         [dependencies]\nhelper = { workspace = true }\n\
         [workspace]\nmembers = [\"helper\"]\n\
         [workspace.package]\nedition = \"2021\"\n\
         [workspace.dependencies]\nhelper = { path = \"helper\" }\n",
    );
    write(&root.join("src/main.rs"), "fn main() {}\n");
    write(
        &root.join("helper/Cargo.toml"),
        "[package]\nname = \"helper\"\nedition.workspace = true\n",
    );
    write(&root.join("helper/src/lib.rs"), "");
    let app = Package::read(root).unwrap();
    assert_eq!(app.edition, shutdown_lint::edition::Edition::E2021);
    assert_eq!(app.path_deps, [root.join("helper")]);
    let helper = Package::read(&root.join("helper")).unwrap();
    assert_eq!(helper.edition, shutdown_lint::edition::Edition::E2021);
}
