//! Whether typing a chain's receiver could matter: the chain typed as every type the rules
//! read.
//!
//! A pending chain on a receiver of unknown type asks the model for every declaration of
//! its root's name (`ctx.get(0).unwrap_or_default()` asks for any method `get`), and a
//! declaration the first parse hid is read again for it — on corrosion, a 247 KB file
//! for one `fn get(&self, i: usize) -> FieldFormat`. Yet a declaration can only make a
//! rule read a chain by typing it, in the end, as a type the rules know (a runtime
//! handle, an HTTP client or builder, a server builder: [`known::rule_types`]): directly,
//! through an alias, or through workspace types whose own methods or fields the chain's
//! steps then name. So when no step names a method or field any file declares (hidden
//! ones included), the only answers a declaration can give are the chain typed as one of
//! those types — and if the rules read none of them, the chain needs no declaration.
//! [`Probe::typed_as_known`] builds those typings; the engine runs the rules on them.

use super::{FIELD_STEP, TRANSPARENT, WorkspaceModel};
use crate::finding::Region;
use crate::model::{ArgValue, Chain, ChainUse, Decls, FnDecl, SymRoot};
use crate::resolve::{known, split_path};
use foldhash::HashMap;

/// The type the probing declarations belong to: no file declares it.
const PROBE_OWNER: &str = "shutdown_lint_probe::Probe";

/// Types the pending chains of a run, one after the other, as each type the rules read
/// ([`Probe::typed_as_known`]). What does not depend on the chain is worked out once per
/// run: whether a step name is declared, and the one-declaration models that type a root
/// name (a field or a method) as each rule type.
pub struct Probe<'m> {
    ws: &'m WorkspaceModel,
    declared: &'m dyn Fn(&str) -> bool,
    seen: HashMap<String, bool>,
    /// By (method, name): a model declaring only that root, once per rule type.
    models: HashMap<(bool, String), Vec<WorkspaceModel>>,
}

impl std::fmt::Debug for Probe<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe")
            .field("ws", &self.ws)
            .field("seen", &self.seen)
            .field("models", &self.models.len())
            .finish_non_exhaustive()
    }
}

impl<'m> Probe<'m> {
    /// A probe over the declarations `ws` holds; `declared` tells whether some file
    /// declares a method or field of a name (visible, hidden or in a skipped file).
    pub fn new(ws: &'m WorkspaceModel, declared: &'m dyn Fn(&str) -> bool) -> Probe<'m> {
        Probe {
            ws,
            declared,
            seen: HashMap::default(),
            models: HashMap::default(),
        }
    }

    /// `cu` typed as each type the rules read ([`known::rule_types`]), as
    /// [`WorkspaceModel::resolve`] would type it if its root were declared with that type;
    /// `None` when a declaration could also lead it elsewhere, so only reading them
    /// tells: a root other than a field or method of unknown owner, a root the held
    /// declarations already answer (the hidden ones can only contradict them), a step
    /// that names a method or field some file declares (a workspace type's own method may
    /// lead on), or an argument carrying a builder, a closure or a constructor (their own
    /// paths through the model).
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::analysis::analyze_source;
    /// use shutdown_lint::config::Config;
    /// use shutdown_lint::workspace::{Probe, WorkspaceModel};
    /// let src = "fn f(c: &Conn) { c.register(|ctx| { let s: String = ctx.get(0).unwrap_or_default();\n\
    ///            if s.is_empty() { tokio::spawn(async {}); } }); }";
    /// let a = analyze_source("src/c.rs".as_ref(), src, &Config::default());
    /// let ws = WorkspaceModel::default();
    /// let cu = &a.pending[0];
    /// let typed = Probe::new(&ws, &|_| false).typed_as_known(cu).unwrap();
    /// assert!(typed.iter().any(|t| t.chain.root_str() == "tokio::runtime::Handle::current"));
    /// // a workspace method named like a step may lead on: only its declaration tells
    /// let declared = |n: &str| n == "unwrap_or_default";
    /// assert!(Probe::new(&ws, &declared).typed_as_known(cu).is_none());
    /// ```
    pub fn typed_as_known(&mut self, cu: &ChainUse) -> Option<Vec<ChainUse>> {
        let ch = &cu.chain;
        let root = ch.pending.as_ref()?;
        let (method, name) = match root {
            SymRoot::Method { owner: None, name } => (true, name),
            SymRoot::Field { owner: None, name } => (false, name),
            _ => return None,
        };
        if self.ws.type_of_root(root, &mut Vec::new()).is_some() {
            return None;
        }
        let carries = |a: &ArgValue| {
            matches!(
                a,
                ArgValue::Applied(_) | ArgValue::Builder(_) | ArgValue::Ctor
            )
        };
        let mut args = ch
            .root_args
            .iter()
            .chain(ch.steps.iter().flat_map(|s| &s.args));
        if args.any(carries) || ch.steps.iter().any(|s| self.leads_on(&s.name)) {
            return None;
        }
        let models = self
            .models
            .entry((method, name.clone()))
            .or_insert_with(|| probe_models(method, name));
        let typed = models.iter().filter_map(|m| {
            let typed = m.resolve(std::slice::from_ref(cu)).pop()?;
            // typed as that type where the value is declared plain: not this type, then
            let consumed = ch.steps.len().saturating_sub(typed.chain.steps.len());
            let contradicts = ch.plain_after.is_some_and(|n| {
                consumed <= n
                    && ch.steps[consumed..n.min(ch.steps.len())]
                        .iter()
                        .all(|s| TRANSPARENT.contains(&s.name.as_str()))
            });
            (!contradicts).then_some(typed)
        });
        Some(typed.collect())
    }

    /// Whether a step named `step` may lead a chain on through a workspace type: a method
    /// or field some file declares by that name (a field read without its mark).
    fn leads_on(&mut self, step: &str) -> bool {
        let name = step.strip_prefix(FIELD_STEP).unwrap_or(step);
        if TRANSPARENT.contains(&name) {
            return false;
        }
        if let Some(&known) = self.seen.get(name) {
            return known;
        }
        let declared = (self.declared)(name);
        self.seen.insert(name.to_string(), declared);
        declared
    }
}

/// One model per rule type, each declaring only the root `name` (a method when `method`,
/// else a field) with that type; a method returning a builder holds the builder its
/// constructor made.
fn probe_models(method: bool, name: &str) -> Vec<WorkspaceModel> {
    let owner = split_path(PROBE_OWNER);
    known::rule_types()
        .map(|(ty, builder)| {
            let mut d = Decls::default();
            if method {
                let mut path = owner.clone();
                path.push(name.to_string());
                d.fns.push(FnDecl {
                    path,
                    owner: Some(owner.clone()),
                    name: name.to_string(),
                    ret: split_path(&ty),
                    builder: builder.map(|c| Chain::at(split_path(c), Region::default_start())),
                    builds_param: None,
                    returns_param: None,
                    sets_timeout: false,
                });
            } else {
                d.fields
                    .push((owner.clone(), name.to_string(), split_path(&ty)));
            }
            WorkspaceModel::build([&d])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze_source;
    use crate::config::Config;

    /// The pending chains of `body`, written in a closure on a receiver of unknown type
    /// (kept beside a spawn).
    fn pending(body: &str) -> Vec<ChainUse> {
        let src = format!(
            "fn f(conn: &Conn) {{\n    conn.register(|ctx| {{\n        {body}\n        \
             if s.is_empty() {{ tokio::spawn(async {{}}); }}\n    }});\n}}\n"
        );
        analyze_source("src/pg.rs".as_ref(), &src, &Config::default()).pending
    }

    fn roots(typed: &[ChainUse]) -> Vec<String> {
        typed.iter().map(|cu| cu.chain.root_str()).collect()
    }

    #[test]
    fn a_binding_of_a_declared_plain_type_marks_where_its_value_is_plain() {
        for (body, plain) in [
            ("let s: String = ctx.get(0).unwrap_or_default();", Some(1)),
            (
                "let s: &str = ctx.name.as_deref().unwrap_or_default();",
                Some(2),
            ),
            (
                "let s: std::path::PathBuf = ctx.get(0).unwrap_or_default();",
                Some(1),
            ),
            ("let s: u64 = ctx.get(0).unwrap_or_default();", Some(1)),
            ("let s = ctx.get(0).unwrap_or_default();", None),
            (
                "let s: Option<String> = ctx.get(0).unwrap_or_default();",
                None,
            ),
            ("let s: Client = ctx.get(0).unwrap_or_default();", None),
            ("let s: my::String = ctx.get(0).unwrap_or_default();", None),
        ] {
            let p = pending(body);
            assert!(!p.is_empty(), "{body}");
            // the chain itself, and the one made through the binding (`s.is_empty()`)
            for cu in &p {
                assert_eq!(cu.chain.plain_after, plain, "{body}: {:?}", cu.chain.steps);
            }
        }
    }

    #[test]
    fn a_plain_value_is_never_typed_as_what_a_rule_reads_at_that_step() {
        let ws = WorkspaceModel::default();
        let none = |_: &str| false;
        let client_default = "reqwest::Client::default";
        // `unwrap_or_default()` on an `Option` of a client makes one: typed so, unbound
        let untyped = pending("let s = ctx.get(0).unwrap_or_default();");
        let typed = Probe::new(&ws, &none).typed_as_known(&untyped[0]).unwrap();
        assert!(roots(&typed).iter().any(|r| r == client_default));
        // bound as a `String`, it is none: that typing is left out, the others stay
        let plain = pending("let s: String = ctx.get(0).unwrap_or_default();");
        let typed = Probe::new(&ws, &none).typed_as_known(&plain[0]).unwrap();
        assert!(!roots(&typed).iter().any(|r| r == client_default));
        assert!(
            roots(&typed)
                .iter()
                .any(|r| r == "tokio::runtime::Handle::current")
        );
    }

    #[test]
    fn only_a_bare_name_with_no_answer_held_and_no_step_declared_is_typed() {
        let plain = pending("let s: String = ctx.get(0).unwrap_or_default();");
        let cu = &plain[0];
        // a step declared somewhere (hidden or not) may lead on
        let declared = |n: &str| n == "unwrap_or_default";
        let empty = WorkspaceModel::default();
        assert!(Probe::new(&empty, &declared).typed_as_known(cu).is_none());
        // a `get` the model holds answers already: hidden ones may contradict it
        let mut d = Decls::default();
        d.fns.push(FnDecl {
            path: split_path("app::Row::get"),
            owner: Some(split_path("app::Row")),
            name: "get".into(),
            ret: split_path("app::Cell"),
            builder: None,
            builds_param: None,
            returns_param: None,
            sets_timeout: false,
        });
        let ws = WorkspaceModel::build([&d]);
        assert!(Probe::new(&ws, &|_| false).typed_as_known(cu).is_none());
        // a closure applying methods to its parameter has its own path through the model
        let closure =
            pending("let s: String = ctx.get(0).prepare(|r| r.timeout(d)).unwrap_or_default();");
        assert!(
            Probe::new(&empty, &|_| false)
                .typed_as_known(&closure[0])
                .is_none()
        );
    }
}
