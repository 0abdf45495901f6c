//! Default names of tracked tasks: the path of what the task runs, taken from
//! `std::any::type_name` of its future or closure and trimmed to a function path.
//!
//! An `async fn serve_connection(..)` future is `my_crate::serve_connection::{{closure}}`, an
//! `async` block or closure inside `fn main` is `my_crate::main::{{closure}}`: dropping the
//! `{{closure}}` segments and generic arguments gives `my_crate::serve_connection` and
//! `my_crate::main` — the called function, else the enclosing one. The spawn only stores the
//! `fn() -> &'static str` that returns the type name; the trimming runs when a report is made.

use crate::registry::Kind;

/// The default name of a task of `kind` whose future or closure has type `type_name`.
pub(crate) fn default_name(type_name: &str, kind: Kind) -> String {
    let path = trim_type_name(type_name);
    if path.is_empty() {
        kind.fallback_name().to_owned()
    } else {
        path
    }
}

/// `a::b::{{closure}}::{{closure}}` → `a::b`; `a::B<c::D<E>>` → `a::B`; a reference or tuple
/// type keeps its first path (`&a::f` → `a::f`).
pub(crate) fn trim_type_name(type_name: &str) -> String {
    // Drop generic arguments (balanced `<...>`), keeping the text outside them.
    let mut base = String::with_capacity(type_name.len());
    let mut depth = 0usize;
    for c in type_name.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => base.push(c),
            _ => {}
        }
    }
    let mut base = base.as_str();
    loop {
        let trimmed = base.trim_start_matches(['&', '*', '(', '[', ' ']);
        let trimmed = ["mut ", "const ", "dyn ", "impl "]
            .iter()
            .find_map(|kw| trimmed.strip_prefix(kw))
            .unwrap_or(trimmed);
        if trimmed.len() == base.len() {
            break;
        }
        base = trimmed;
    }
    let end = base
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '{' || c == '}'))
        .unwrap_or(base.len());
    base[..end]
        .split("::")
        .filter(|seg| !seg.is_empty() && !seg.starts_with('{'))
        .collect::<Vec<_>>()
        .join("::")
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn serve_connection(_n: u32) {}

    fn type_name_of<T>(_: &T) -> &'static str {
        std::any::type_name::<T>()
    }

    #[test]
    fn an_async_fn_is_named_after_itself() {
        let fut = serve_connection(1);
        assert_eq!(
            trim_type_name(type_name_of(&fut)),
            "shutdown_runtime::names::tests::serve_connection"
        );
    }

    #[test]
    fn an_async_block_or_closure_is_named_after_the_enclosing_function() {
        let fut = async {};
        let closure = || 1;
        let here = "shutdown_runtime::names::tests::an_async_block_or_closure_is_named_after_the_enclosing_function";
        assert_eq!(trim_type_name(type_name_of(&fut)), here);
        assert_eq!(trim_type_name(type_name_of(&closure)), here);
    }

    #[test]
    fn generic_arguments_and_references_are_dropped() {
        assert_eq!(
            trim_type_name("core::future::pending::Pending<()>"),
            "core::future::pending::Pending"
        );
        assert_eq!(
            trim_type_name("a::Wrap<b::F<c::G>>::{{closure}}"),
            "a::Wrap"
        );
        assert_eq!(trim_type_name("&mut a::b::f"), "a::b::f");
        assert_eq!(trim_type_name("{{closure}}"), "");
        assert_eq!(default_name("()", Kind::Thread), "thread");
    }
}
