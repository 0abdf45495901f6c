//! Code built only for WebAssembly, which no rule lints in any mode: it runs in a browser or
//! a WASI host, where there is no process a deploy's SIGTERM reaches and no runtime to
//! drain. By attribute — `#[cfg(target_family = "wasm")]`, `#[cfg(target_arch = "wasm32")]`
//! ([`crate::lexscan::cfg_implies_wasm`]) on items, statements and out-of-line modules —
//! and by package: a browser package ([`is_browser_package`]).
//!
//! Unlike test code ([`crate::testcode`]), nothing asks for it: `include-tests` does not
//! lint it either.

/// Whether items with these attributes are compiled only for WebAssembly: a `#[cfg(..)]`
/// whose predicate holds only there (`target_family = "wasm"`, `all(target_arch =
/// "wasm32", feature = "web")`; not `not(target_arch = "wasm32")`).
///
/// # Examples
///
/// ```
/// let item: syn::ItemFn = syn::parse_quote! { #[cfg(target_family = "wasm")] fn f() {} };
/// assert!(shutdown_lint::targetcode::is_wasm_only_attrs(&item.attrs));
/// let item: syn::ItemFn = syn::parse_quote! { #[cfg(not(target_arch = "wasm32"))] fn f() {} };
/// assert!(!shutdown_lint::targetcode::is_wasm_only_attrs(&item.attrs));
/// ```
pub fn is_wasm_only_attrs(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && matches!(&a.meta, syn::Meta::List(l)
                if crate::lexscan::cfg_implies_wasm(&l.tokens.to_string()))
    })
}

/// [`is_wasm_only_attrs`] for one attribute read as text, the inside of `#[..]` (the pruner
/// and the lexical scans read attributes before the parse): `cfg(target_arch = "wasm32")`.
pub(crate) fn is_wasm_only_attr_text(inner: &str) -> bool {
    crate::lexscan::cfg_predicate(inner).is_some_and(crate::lexscan::cfg_implies_wasm)
}

/// The dependencies that make a `cdylib` a WebAssembly module for a browser.
const BROWSER_BINDINGS: &[&str] = &["wasm-bindgen", "web-sys", "js-sys"];

/// The files in a package's directory that build its binary for a browser: Trunk's
/// `index.html` and `Trunk.toml`, the Dioxus CLI's `Dioxus.toml`.
pub const BROWSER_APP_FILES: &[&str] = &["index.html", "Trunk.toml", "Dioxus.toml"];

/// Whether a package is a browser's WebAssembly module, from its library's crate types,
/// whether it has binaries, its dependencies on every target, and whether its directory
/// holds one of [`BROWSER_APP_FILES`]. It depends on `wasm-bindgen`, `web-sys` or
/// `js-sys`, and either its library is a `cdylib` (what `wasm-pack` builds) and it has no
/// binary (linera's block explorer, glaredb's `glaredb_wasm`), or its binary is built by
/// Trunk or the Dioxus CLI (videocall's Dioxus UI, drogue's Yew console). A Python
/// extension (`cdylib` with pyo3) is not one, nor a server that depends on `wasm-bindgen`
/// (lorax's router) with no such file.
///
/// # Examples
///
/// ```
/// use shutdown_lint::targetcode::is_browser_package;
/// assert!(is_browser_package(&["cdylib"], false, &["web-sys", "reqwest"], || false));
/// assert!(!is_browser_package(&["cdylib"], false, &["pyo3"], || false));
/// assert!(!is_browser_package(&["rlib"], false, &["wasm-bindgen"], || false));
/// assert!(!is_browser_package(&["cdylib"], true, &["wasm-bindgen"], || false));
/// assert!(is_browser_package(&["rlib"], true, &["dioxus", "wasm-bindgen"], || true));
/// assert!(!is_browser_package(&["rlib"], true, &["axum", "tokio"], || true));
/// ```
pub fn is_browser_package<S: AsRef<str>, D: AsRef<str>>(
    lib_crate_types: &[S],
    has_binaries: bool,
    unconditional_deps: &[D],
    has_browser_app_file: impl FnOnce() -> bool,
) -> bool {
    unconditional_deps
        .iter()
        .any(|d| BROWSER_BINDINGS.contains(&d.as_ref()))
        && (lib_crate_types.iter().any(|t| t.as_ref() == "cdylib") && !has_binaries
            || has_binaries && has_browser_app_file())
}
