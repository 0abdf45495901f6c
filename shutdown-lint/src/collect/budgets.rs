//! Shutdown budgets written in code, recorded during the one walk ([`FileModel::budgets`]):
//! the `grace` of `#[shutdown_runtime::main]` (the attribute resolved like every path) and
//! the grace argument of `Budgets::from_grace(..)` / `Budgets::new(.., .., grace)` (chains
//! the walk records anyway, their arguments evaluated by [`super::eval`]: `Duration::from_*`
//! of a number, a `const`, a `let` of the same function). The audit reads them from the
//! model; nothing parses a file a second time. Budgets in test code are not recorded, also
//! when tests are analysed (`include-tests`): a test's budgets are no service's.
//!
//! [`FileModel::budgets`]: crate::model::FileModel::budgets

use super::state::Collector;
use crate::model::{ArgValue, BudgetKind, BudgetSite, ChainUse, MAIN_DEFAULT_GRACE};
use crate::resolve::known;
use std::time::Duration;
use syn::spanned::Spanned;

impl Collector<'_, '_> {
    /// Records the budget of `attr` when it resolved to `#[shutdown_runtime::main]`.
    pub(super) fn record_main_grace(&mut self, attr: &syn::Attribute, resolved: &[String]) {
        if self.ctx.test_code || resolved.len() != 2 || resolved.join("::") != known::MAIN_ATTR {
            return;
        }
        let mut grace = None;
        let mut invalid = false;
        if let syn::Meta::List(_) = &attr.meta {
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("grace") {
                    let value: syn::LitStr = meta.value()?.parse()?;
                    // the macro's reading: the one grammar, at least 1 ms; anything else does
                    // not compile, so it is no budget
                    match shutdown_duration::parse(&value.value()) {
                        Ok(d) if d >= Duration::from_millis(1) => grace = Some((d, value.span())),
                        _ => invalid = true,
                    }
                } else if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                }
                Ok(())
            });
        }
        let (duration, span) = match grace {
            Some(found) => found,
            None if !invalid => (MAIN_DEFAULT_GRACE, attr.span()),
            None => return,
        };
        let region = self.region(span);
        self.model.budgets.push(BudgetSite {
            kind: BudgetKind::MainAttribute,
            duration,
            region,
        });
    }
}

/// The budgets of `Budgets::from_grace` / `Budgets::new` chains whose grace argument is known.
pub(super) fn from_chains(chains: &[ChainUse]) -> impl Iterator<Item = BudgetSite> + '_ {
    chains.iter().filter_map(|cu| {
        let c = &cu.chain;
        if c.pending.is_some() || c.via_binding || cu.ctx.test_code {
            return None;
        }
        let root = c.root_str();
        let &(path, arity, at) = known::BUDGETS_CTORS.iter().find(|(p, _, _)| *p == root)?;
        if c.root_args.len() != arity {
            return None;
        }
        let ArgValue::Duration(secs, _) = c.root_args[at] else {
            return None;
        };
        let kind = if path.ends_with("::from_grace") {
            BudgetKind::FromGrace
        } else {
            BudgetKind::BudgetsNew
        };
        Some(BudgetSite {
            kind,
            duration: Duration::try_from_secs_f64(secs).ok()?,
            region: c.root_region,
        })
    })
}

/// Sorts the file's budgets into source order (the attribute ones come from the walk, the
/// call ones from the chains).
pub(super) fn finish(model: &mut crate::model::FileModel) {
    let calls: Vec<BudgetSite> = from_chains(&model.chains).collect();
    model.budgets.extend(calls);
    model
        .budgets
        .sort_by_key(|b| (b.region.line, b.region.column, b.kind));
}
