//! Robustness run (ignored by default; run it by hand):
//!
//! ```sh
//! cargo test -p shutdown-macros --release --test robustness -- --ignored --nocapture
//! ```
//!
//! Expands every function with a body (free, in `impl` blocks, trait defaults, nested) in every
//! `.rs` file under `$DRAINABLE_CORPUS` (default: `~/.cargo/registry/src`), once with the global
//! scope and once with `scope = self.scope`, and checks that the expansion never panics and
//! that its output always re-parses with `syn`. Prints how many functions and loops it covered.

#[allow(dead_code, unused_imports)]
#[path = "../src/expand/mod.rs"]
mod expand;

use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::visit::Visit;

/// Collects the token streams of every function with a body.
#[derive(Default)]
struct Functions(Vec<proc_macro2::TokenStream>);

impl<'ast> Visit<'ast> for Functions {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.0.push(f.to_token_stream());
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.0.push(f.to_token_stream());
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            // As an `impl` item, so inner attributes (`#![allow(..)]`) print inside the body.
            let item = syn::ImplItemFn {
                attrs: f.attrs.clone(),
                vis: syn::Visibility::Inherited,
                defaultness: None,
                sig: f.sig.clone(),
                block: block.clone(),
            };
            self.0.push(item.to_token_stream());
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The output is a file, or (for a `default fn` in a specializing `impl`) a list of impl items.
fn reparses(output: proc_macro2::TokenStream) -> bool {
    use syn::parse::Parser;
    if syn::parse2::<syn::File>(output.clone()).is_ok() {
        return true;
    }
    let items = |input: syn::parse::ParseStream<'_>| {
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse::<syn::ImplItem>()?);
        }
        Ok(items)
    };
    items.parse2(output).is_ok()
}

/// The output re-parsed and printed by `syn`, so token spacing does not matter.
fn normalized(output: &proc_macro2::TokenStream) -> String {
    match syn::parse2::<syn::File>(output.clone()) {
        Ok(file) => file.to_token_stream().to_string(),
        Err(_) => output.to_string(),
    }
}

fn corpus() -> PathBuf {
    if let Some(dir) = std::env::var_os("DRAINABLE_CORPUS") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .expect("CARGO_HOME or HOME is set");
    home.join("registry").join("src")
}

#[test]
#[ignore = "long: expands every function of the local cargo registry"]
fn every_function_of_a_real_code_base() {
    let root = corpus();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let (mut parsed_files, mut unparsable_files, mut functions) = (0usize, 0usize, 0usize);
    let (mut panics, mut unparsable_outputs, mut errors) = (0usize, 0usize, 0usize);
    let mut stats = expand::Stats::default();
    let mut fast_path_differs = 0usize;
    let mut error_kinds = std::collections::BTreeMap::new();
    let started = std::time::Instant::now();
    std::panic::set_hook(Box::new(|_| {}));
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Ok(ast) = syn::parse_file(&text) else {
            unparsable_files += 1;
            continue;
        };
        parsed_files += 1;
        let mut found = Functions::default();
        found.visit_file(&ast);
        for tokens in found.0 {
            functions += 1;
            for args in ["", "scope = self.scope"] {
                let input = tokens.clone();
                let full_input = tokens.clone();
                let before = tokens.to_string().matches("compile_error").count();
                let result = std::panic::catch_unwind(move || {
                    let fast = expand::drainable_with_stats(args.parse().unwrap(), input);
                    let full = expand::drainable::expand_full(args.parse().unwrap(), full_input).0;
                    (fast, full)
                });
                let Ok(((output, one), full)) = result else {
                    panics += 1;
                    eprintln!("PANIC in {}", file.display());
                    continue;
                };
                if args.is_empty() {
                    stats.add(&one);
                }
                let text = output.to_string();
                if text.matches("compile_error").count() > before
                    && let Some(at) = text.rfind("compile_error")
                {
                    errors += 1;
                    let message: String = text[at..].chars().take(70).collect();
                    *error_kinds.entry(message).or_insert(0usize) += 1;
                }
                if normalized(&output) != normalized(&full) {
                    fast_path_differs += 1;
                    eprintln!("FAST PATH DIFFERS for a function in {}", file.display());
                }
                if !reparses(output) {
                    unparsable_outputs += 1;
                    eprintln!("UNPARSABLE output for a function in {}", file.display());
                }
            }
        }
    }
    let _ = std::panic::take_hook();
    println!("corpus: {}", root.display());
    println!(
        "files: {} parsed, {} not parsable by syn (skipped)",
        parsed_files, unparsable_files
    );
    println!("functions expanded: {functions} (x2: global scope and `scope = self.scope`)");
    println!(
        "loops: {} seen, {} got a checkpoint, {} left (break value), {} left (tail value), {} skipped",
        stats.loops, stats.rewritten, stats.left_valued, stats.left_tail, stats.skipped
    );
    println!(
        "claiming loops: {} (each inside its claimed unit); nested loops left to run to their end: {}; nested loops opted in: {}",
        stats.claiming, stats.nested, stats.partial
    );
    println!("spawn calls routed: {}", stats.spawns);
    println!("expansions reporting an error (e.g. `const fn`): {errors}");
    for (message, count) in &error_kinds {
        println!("  {count:>6} x {message}");
    }
    println!("fast path output different from the full expansion: {fast_path_differs}");
    println!("panics: {panics}, unparsable outputs: {unparsable_outputs}");
    println!("elapsed: {:.1?}", started.elapsed());
    assert_eq!(panics, 0);
    assert_eq!(unparsable_outputs, 0);
    assert_eq!(fast_path_differs, 0);
    assert!(
        functions >= 10_000,
        "only {functions} functions in {}",
        root.display()
    );
}
