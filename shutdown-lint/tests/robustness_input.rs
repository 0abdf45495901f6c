//! The `shutdown-lint` binary on hostile file contents, in temporary directories: every
//! construct nested 10,000 deep (syn recurses once per level), ~10 MB files made of one
//! construct, broken encodings, unterminated literals and comments, odd suppressions and
//! macro bodies. Whatever the input, the run ends (within a deadline), exits 0 or 1 — never
//! a signal — and every file either is analysed (its `tokio::spawn` is found) or gets a
//! `parse-error`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(120);
/// Appended to every generated file: the finding that shows the file was analysed.
const SPAWN: &str = "\npub fn marker() { tokio::spawn(async {}); }\n";

fn run_in(dir: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shutdown-lint"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    // drain stdout on a thread so a large report cannot block the child
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut v).unwrap();
        v
    });
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > DEADLINE {
            child.kill().unwrap();
            panic!("shutdown-lint {args:?} hung for {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut o = child.wait_with_output().unwrap();
    o.stdout = reader.join().unwrap();
    o
}

/// Rules reported per file of a JSON run; panics unless the process exited with 0 or 1.
fn rules_by_file(o: &Output) -> BTreeMap<String, Vec<String>> {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "status {:?}; stderr: {err}",
        o.status
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON report");
    let mut by: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in v["findings"].as_array().unwrap() {
        by.entry(f["path"].as_str().unwrap().to_string())
            .or_default()
            .push(f["rule"].as_str().unwrap().to_string());
    }
    by
}

/// Writes `files`, lints them as JSON and as human text, and checks every file was
/// analysed or reported.
fn check_all(files: &[(String, Vec<u8>)]) -> BTreeMap<String, Vec<String>> {
    let d = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(d.path().join(name), text).unwrap();
    }
    let by = rules_by_file(&run_in(d.path(), &["--format", "json"]));
    for (name, _) in files {
        let rules = by.get(name).cloned().unwrap_or_default();
        assert!(
            rules.iter().any(|r| r == "raw-spawn" || r == "parse-error"),
            "{name}: neither analysed nor reported: {rules:?}"
        );
    }
    let human = run_in(d.path(), &["--color", "never", "--width", "80"]);
    assert!(
        matches!(human.status.code(), Some(0 | 1)),
        "human: {:?} {}",
        human.status,
        String::from_utf8_lossy(&human.stderr)
    );
    by
}

fn file(name: &str, body: String) -> (String, Vec<u8>) {
    (format!("{name}.rs"), (body + SPAWN).into_bytes())
}

/// The nesting bound applies to what is parsed: deep code a rule reads is a `parse-error`;
/// deep code in a body no rule reads is blanked before the parse, and the file analysed.
#[test]
fn the_nesting_bound_applies_to_the_text_that_is_parsed() {
    let n = 10_000;
    let deep = format!("{}1{}", "(".repeat(n), ")".repeat(n));
    let files = vec![
        file(
            "read",
            format!("fn f() {{ let h = tokio::spawn(async {{}}); let x = {deep} + h; }}"),
        ),
        file("unread", format!("fn f() {{ let x = {deep}; }}")),
    ];
    let by = check_all(&files);
    assert_eq!(by["read.rs"], ["parse-error"], "{by:?}");
    assert_eq!(by["unread.rs"], ["raw-spawn"], "{by:?}");
}

#[test]
fn every_construct_nested_ten_thousand_deep() {
    let n = 10_000;
    let r = |s: &str| s.repeat(n);
    let files = vec![
        file(
            "parens",
            format!("fn f() {{ let x = {}1{}; }}", r("("), r(")")),
        ),
        file(
            "brackets",
            format!("fn f() {{ let x = {}1{}; }}", r("["), r("]")),
        ),
        file("blocks", format!("fn f() {}{}", r("{"), r("}"))),
        file("closures", format!("fn f() {{ let g = {}1; }}", r("|| "))),
        file("returns", format!("fn f() -> u8 {{ {}1 }}", r("return "))),
        file(
            "breaks",
            format!("fn f() {{ loop {{ {}; }} }}", r("break ")),
        ),
        file("assigns", format!("fn f() {{ {}1; }}", r("a = "))),
        file(
            "else_ifs",
            format!("fn f(a: bool) {{ if a {{}} {}}}", r("else if a {} ")),
        ),
        file("methods", format!("fn f() {{ x{}; }}", r(".f()"))),
        file("fields", format!("fn f() {{ x{}; }}", r(".a"))),
        file("awaits", format!("async fn f() {{ x{}; }}", r(".await"))),
        file("tries", format!("fn f() {{ x{}; }}", r("?"))),
        file("casts", format!("fn f() {{ x{}; }}", r(" as u8"))),
        file("indexes", format!("fn f() {{ x{}; }}", r("[0]"))),
        file("unary", format!("fn f() {{ let x = {}1; }}", r("- "))),
        file("refs", format!("fn f() {{ let x = {}1; }}", r("& "))),
        file("binops", format!("fn f() {{ let x = 1{}; }}", r(" + 1"))),
        file("generics", format!("type T = {}u8{};", r("Vec<"), r(">"))),
        file("fn_ptrs", format!("type T = {}u8;", r("fn() -> "))),
        file(
            "impl_fns",
            format!("fn f() -> {}u8 {{ todo!() }}", r("impl Fn() -> ")),
        ),
        file(
            "dyn_fns",
            format!("type T = {}u8{};", r("Box<dyn Fn() -> "), r(">")),
        ),
        file("tuples", format!("type T = {}u8{};", r("(u8, "), r(")"))),
        file("paths", format!("type T = a{};", r("::a"))),
        file("mods", format!("{}{}", r("mod m { "), r("} "))),
        file(
            "patterns",
            format!("fn f() {{ let {}x{} = y; }}", r("Some("), r(")")),
        ),
        file(
            "vec_macros",
            format!("fn f() {{ let v = {}1{}; }}", r("vec!["), r("]")),
        ),
        file(
            "selects",
            format!(
                "fn f() {{ {}tokio::spawn(x);{} }}",
                r("tokio::select! { _ = a => { "),
                r("} } ")
            ),
        ),
        file("attrs", format!("#[a{}{}]\nfn f() {{}}", r("(b"), r(")"))),
        file("comments", format!("{}{}", r("/* "), r("*/ "))),
    ];
    check_all(&files);
}

#[test]
fn ten_megabyte_files_of_one_construct() {
    const MB10: usize = 10 << 20;
    let fill = |unit: &str| unit.repeat(MB10 / unit.len());
    let files = vec![
        // one token or comment: analysed (flat 10 MB code is in tests/cli.rs)
        file("string", format!("const S: &str = \"{}\";", fill("a"))),
        file("comment", format!("// {}", fill("x"))),
        // one huge expression or nest: rejected up front or analysed, but quickly
        file("binops", format!("fn f() {{ let x = 1{}; }}", fill("+1"))),
        file("assigns", format!("fn f() {{ {}1; }}", fill("a="))),
        file("closures", format!("fn f() {{ let g = {}1; }}", fill("||"))),
        file(
            "returns",
            format!("fn f() -> u8 {{ {}1 }}", fill("return ")),
        ),
        file(
            "breaks",
            format!("fn f() {{ loop {{ {}; }} }}", fill("break ")),
        ),
        file("methods", format!("fn f() {{ x{}; }}", fill(".f()"))),
        file("tries", format!("fn f() {{ x{}; }}", fill("?"))),
        file("casts", format!("fn f() {{ x{}; }}", fill(" as u8"))),
        file("indexes", format!("fn f() {{ x{}; }}", fill("[0]"))),
        file("generics", format!("type T = {}u8;", fill("Vec<"))),
        file("fn_ptrs", format!("type T = {}u8;", fill("fn()->"))),
    ];
    let by = check_all(&files);
    for flat in ["string.rs", "comment.rs"] {
        assert!(
            by[flat].contains(&"raw-spawn".to_string()),
            "{flat}: {:?}",
            by[flat]
        );
    }
}

#[test]
fn broken_encodings_literals_and_comments() {
    let spawn = SPAWN.as_bytes();
    let with = |name: &str, head: &[u8]| {
        let mut v = head.to_vec();
        v.extend_from_slice(spawn);
        (format!("{name}.rs"), v)
    };
    let files = vec![
        with("latin1_first_byte", b"\xe9 fn f() {}"),
        with("cut_multibyte", b"fn f() { let s = \"\xe2\x82\"; }"),
        with("surrogate", b"fn f() { let s = \"\xed\xa0\x80\"; }"),
        with("overlong", b"fn f() { let s = \"\xc0\xaf\"; }"),
        with("nul_bytes", b"fn f() { \0 }\0"),
        with(
            "bom_shebang",
            "\u{feff}#!/usr/bin/env run-cargo-script\n".as_bytes(),
        ),
        with("bom_only", "\u{feff}".as_bytes()),
        with("crlf", b"fn f() {\r\n    g();\r\n}\r\n"),
        with("lone_cr", b"fn f() {\r g(); \r}"),
        with("inner_attr", b"#![allow(unused)]\n#![cfg_attr(x, y)]"),
        with(
            "line_separator",
            "fn f() { let s = \"\u{2028}\"; } // \u{2029}".as_bytes(),
        ),
        with("wide_chars", "fn f() { let s = \"日本語🦀\"; }".as_bytes()),
        // unterminated at the end of the file: the spawn is swallowed, so these are
        // syntax errors
        (
            "open_string.rs".into(),
            [spawn, b"fn f() { let s = \"abc"].concat(),
        ),
        (
            "open_raw_string.rs".into(),
            [spawn, b"fn f() { let s = r##\"abc\"# "].concat(),
        ),
        (
            "open_comment.rs".into(),
            [spawn, b"/* /* nested */ never closed"].concat(),
        ),
        (
            "open_char.rs".into(),
            [spawn, b"fn f() { let c = '"].concat(),
        ),
        ("open_brace.rs".into(), [spawn, b"fn f() {"].concat()),
        ("stray_close.rs".into(), [spawn, b"}}}"].concat()),
        ("lifetime_end.rs".into(), [spawn, b"fn f<'"].concat()),
    ];
    let by = check_all(&files);
    for bad in [
        "latin1_first_byte.rs",
        "cut_multibyte.rs",
        "surrogate.rs",
        "overlong.rs",
    ] {
        assert_eq!(by[bad], ["parse-error"], "{bad}");
    }
    for good in [
        "bom_shebang.rs",
        "bom_only.rs",
        "crlf.rs",
        "lone_cr.rs",
        "inner_attr.rs",
    ] {
        assert!(
            by[good].contains(&"raw-spawn".to_string()),
            "{good}: {:?}",
            by[good]
        );
    }
}

#[test]
fn odd_suppressions_and_macro_bodies() {
    // (no suppression is on the line above the marker spawn, so it stays visible)
    let files = vec![
        file("sup_open", "// shutdown-lint: allow(\nfn f() {}".into()),
        file(
            "sup_empty",
            "// shutdown-lint: allow() -- why\nfn f() {}".into(),
        ),
        file(
            "sup_no_reason",
            "// shutdown-lint: allow(raw-spawn) --\n".into(),
        ),
        file(
            "sup_many",
            format!(
                "// shutdown-lint: allow(raw-spawn{}) -- x\n",
                ",".repeat(10_000)
            ),
        ),
        file(
            "sup_unicode",
            "// shutdown-lint: allow(raw-spawn) -- причина 🦀\nfn f() {}".into(),
        ),
        file(
            "sup_last_line",
            "fn f() {}\n// shutdown-lint: allow(detached-thread) -- eof".into(),
        ),
        file("select_empty", "fn f() { tokio::select! {} }".into()),
        file(
            "select_biased",
            "fn f() { tokio::select! { biased; } }".into(),
        ),
        file(
            "select_junk",
            "fn f() { tokio::select! { => , if => } }".into(),
        ),
        file("vec_semis", "fn f() { let v = vec![;;]; }".into()),
        file("format_junk", "fn f() { println!(\"{}\", => ); }".into()),
        file(
            "cfg_if_junk",
            "cfg_if::cfg_if! { if #[cfg(x)] { fn } else { ) } }".into(),
        ),
        file(
            "macro_rules",
            "macro_rules! m { ($($t:tt)*) => { tokio::spawn($($t)*) }; }".into(),
        ),
        file(
            "join_spawn",
            "fn f() { tokio::join!(tokio::spawn(a), ); }".into(),
        ),
    ];
    check_all(&files);
}
