//! The rewrite of a `#[drainable]` function body, one `VisitMut` per concern, in this order:
//! [`loops::LoopRewriter`] (checkpoints, markers, idle waits), [`spawns::SpawnRewriter`]
//! (tracked spawns), then, with `scope = ..` only, [`captures::CaptureRewriter`] (each closure
//! or async block gets its own scope handle) and the scope binding at function entry.
//!
//! No visitor descends into nested items, `const` blocks, types or patterns.

pub(crate) mod captures;
pub(crate) mod loops;
pub(crate) mod spawns;

use syn::ItemFn;
use syn::visit_mut::VisitMut;

use super::emit::{Emitter, ScopeMode};
use super::errors::Errors;

/// What one expansion did, for the robustness run and the tests.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stats {
    /// Loops seen (`loop`, `while`, `while let`, `for`).
    pub(crate) loops: usize,
    /// Loops that got a checkpoint.
    pub(crate) rewritten: usize,
    /// Loops that claim units (outermost): each runs inside its claimed unit.
    pub(crate) claiming: usize,
    /// Nested loops left to run to their end inside a claimed unit.
    pub(crate) nested: usize,
    /// Nested loops opted in with `#[drainable(partial)]` (or `idle`).
    pub(crate) partial: usize,
    /// Loops left alone because of `#[drainable(skip)]`.
    pub(crate) skipped: usize,
    /// `loop`s left alone because a `break` carries a value.
    pub(crate) left_valued: usize,
    /// Never-ending `loop`s left alone because their value flows somewhere unknown.
    pub(crate) left_tail: usize,
    /// Idle waits inserted.
    pub(crate) idle: usize,
    /// Spawn calls routed to the tracked equivalents.
    pub(crate) spawns: usize,
}

impl Stats {
    /// Adds `other` to `self` (used by the robustness run).
    #[allow(dead_code)]
    pub(crate) fn add(&mut self, other: &Stats) {
        self.loops += other.loops;
        self.rewritten += other.rewritten;
        self.claiming += other.claiming;
        self.nested += other.nested;
        self.partial += other.partial;
        self.skipped += other.skipped;
        self.left_valued += other.left_valued;
        self.left_tail += other.left_tail;
        self.idle += other.idle;
        self.spawns += other.spawns;
    }
}

/// Rewrites `function`'s body in place; `scope` is the `scope = ..` expression, if any.
pub(crate) fn rewrite_fn(
    function: &mut ItemFn,
    emit: &Emitter,
    scope: Option<&syn::Expr>,
    errors: &mut Errors,
    stats: &mut Stats,
) {
    let ctx = loops::body_ctx(&function.sig.output);
    let place = loops::Place {
        in_claim: false,
        value_root: loops::returns_value(&function.sig.output),
    };
    if rewrite_block(&mut function.block, ctx, place, emit, errors, stats)
        && let Some(scope) = scope
        && let Some(binding) = errors.ok(emit.scope_binding(scope))
    {
        function.block.stmts.insert(0, binding);
    }
}

/// Runs every concern over `block` (whose tail value is in context `ctx`, at `place`); returns whether
/// the rewritten block uses the scope binding (which the caller then has to declare).
pub(crate) fn rewrite_block(
    block: &mut syn::Block,
    ctx: loops::Ctx,
    place: loops::Place,
    emit: &Emitter,
    errors: &mut Errors,
    stats: &mut Stats,
) -> bool {
    loops::LoopRewriter::new(emit, errors, stats).rewrite_body(block, ctx, place);
    spawns::SpawnRewriter::new(emit, errors, stats).visit_block_mut(block);
    if emit.mode() == ScopeMode::Custom {
        captures::CaptureRewriter::new(emit, errors).visit_block_mut(block);
        return captures::uses_scope_block(block);
    }
    false
}
