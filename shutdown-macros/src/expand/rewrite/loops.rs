//! The loop concern: checkpoints in the loops that claim units of work, the claimed unit
//! around them, the `#[drainable(..)]` markers (`skip`, `partial`, `idle`, `on_shutdown`), and
//! idle waits.
//!
//! Which loops get a checkpoint (the README states this for users):
//! - a loop *claims units* when it is not inside another loop's body: the outermost loops of
//!   the function body, of each closure / async block (unless written inside a loop), and of
//!   each closure / async block passed to a `spawn*` call (its own task, wherever it is
//!   written). A claiming loop runs inside a claimed unit taken once before it starts
//!   (`{ let (unit, claimed) = claim(); <loop> }`) and gets a checkpoint that stops it only
//!   when that unit is the only one: a `#[drainable]` function called inside a caller's unit,
//!   or inside a request being served, runs its loops to their end;
//! - a loop nested inside a claiming loop's body runs to its end (no checkpoint: a claimed
//!   unit is never cut), unless `#[drainable(partial)]` (or `idle` on a `while`) opts it in:
//!   it then stops at its checkpoint as its enclosing claiming loop would;
//! - in a function (or closure) whose result is a value — a return type other than `()` or
//!   `Result<(), E>`, or a closure whose tail is a value — a claiming loop should say what a
//!   stop means: `#[drainable(partial)]` (the result may be partial, knowingly) or
//!   `#[drainable(skip)]` (run to its end); without either it is still checkpointed, and the
//!   expansion references the deprecated `__private::LOOP_RESULT_MAY_BE_PARTIAL` at the loop,
//!   so the build shows a warning there (a shorter result must never look complete unnoticed).
//!
//! Rewrite rules:
//! - `loop { B }` becomes `loop { if checkpoint(..) { break; } B }`, when the loop's value is
//!   `()` (it has a plain `break`) or is discarded (statement position, the tail of a unit
//!   function, of a loop body, or of a spawned closure / async block whose output is free).
//!   A `loop` whose value is needed (a `break <value>`, or a never-ending tail loop of a
//!   function that returns something) is left unchanged unless `on_shutdown = <expr>` says
//!   what to break with.
//! - `'l: while C { B }` becomes `'l: loop { if checkpoint(..) { break; } if C { B } else { break } }`
//!   (also for `while let` and let chains), so the checkpoint runs before `C` is evaluated.
//! - `'l: for P in E { B }` becomes `match IntoIterator::into_iter(E) { mut it => 'l: loop {
//!   if checkpoint(..) { break; } match Iterator::next(&mut it) { Some(P) => B, None => break } } }`,
//!   so the checkpoint runs before the iterator advances.
//! - `#[drainable(idle)]` on a `while`/`while let` whose condition ends in `.await`, or on a
//!   `let`/expression statement inside a checkpointed loop that ends in `.await`, turns
//!   `F.await` into `match idle(s, F, claimed).await { Some(v) => v, None => break }`.

use std::mem;

use proc_macro2::Span;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, ReturnType, Stmt, Type};

use super::super::analysis::{LoopValue, Output, breaks_of, output_of, output_of_block};
use super::super::args::{Marks, take_marks};
use super::super::emit::Emitter;
use super::super::errors::Errors;
use super::Stats;

/// Whether the value of the expression being visited may become `()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ctx {
    /// The value is discarded or must be `()`: a never-ending `loop` here may get a checkpoint.
    Unit,
    /// The value flows somewhere whose type we cannot see: a never-ending `loop` stays as it is.
    Value,
}

/// What an idle wait or a checkpoint inside a loop may break with.
#[derive(Debug)]
enum Frame {
    /// A closure or async block: `break` cannot reach past it.
    Barrier,
    /// A loop; `None` if nothing may break out of it (its value is needed).
    Loop(Option<Option<Box<Expr>>>),
    /// A loop nested in a claimed unit, without a checkpoint: it runs to its end.
    Nested,
}

/// Where a loop is, for the question whether it claims units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    /// Inside a claiming loop's body (in the same task): loops here are nested.
    pub(crate) in_claim: bool,
    /// The enclosing function or closure returns a value built here: a claiming loop must
    /// say what a stop means.
    pub(crate) value_root: bool,
}

/// The `VisitMut` that adds checkpoints to loops.
#[derive(Debug)]
pub(crate) struct LoopRewriter<'a> {
    emit: &'a Emitter,
    errors: &'a mut Errors,
    stats: &'a mut Stats,
    /// The context of the expression about to be visited (reset to `Value` on entry).
    ctx: Ctx,
    /// The context of the closure about to be visited: a direct argument of a spawn call.
    spawn_arg: bool,
    frames: Vec<Frame>,
    /// Where the expression being visited is.
    place: Place,
}

impl<'a> LoopRewriter<'a> {
    /// A rewriter that reports to `errors` and counts into `stats`.
    pub(crate) fn new(emit: &'a Emitter, errors: &'a mut Errors, stats: &'a mut Stats) -> Self {
        LoopRewriter {
            emit,
            errors,
            stats,
            ctx: Ctx::Value,
            spawn_arg: false,
            frames: Vec::new(),
            place: Place {
                in_claim: false,
                value_root: false,
            },
        }
    }

    /// Rewrites a function body whose tail value is in context `ctx`, at `place`.
    pub(crate) fn rewrite_body(&mut self, body: &mut Block, ctx: Ctx, place: Place) {
        self.ctx = ctx;
        self.place = place;
        self.visit_block_mut(body);
    }

    /// Visits a loop's body (and condition) with the loop's role, then restores the place.
    fn in_body<T>(&mut self, claiming: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.place;
        if claiming {
            self.place.in_claim = true;
        }
        let out = f(self);
        self.place = saved;
        out
    }

    /// Wraps a claiming loop in its claimed unit; `warn`: the loop's keyword, when it is a
    /// claiming loop of a function that returns a value and says nothing about a stop.
    fn guard(&mut self, expr: &mut Expr, warn: Option<Span>) {
        let looped = mem::replace(expr, Expr::Verbatim(Default::default()));
        match self.emit.guarded(looped.clone(), warn) {
            Ok(guarded) => {
                *expr = guarded;
                self.stats.claiming += 1;
            }
            Err(e) => {
                *expr = looped;
                self.errors.push(e);
            }
        }
    }

    fn not_here(&mut self, marks: &Marks, what: &str) {
        if let Some(span) = marks.span {
            self.errors.push(syn::Error::new(
                span,
                format!(
                    "`#[drainable(..)]` is not allowed on {what}: use `skip`, `partial`, `idle` or `on_shutdown` on a loop, or `idle` on a `let` or expression statement that `.await`s the loop's next unit"
                ),
            ));
        }
    }

    fn rewrite_loop(&mut self, expr: &mut Expr, ctx: Ctx, mut marks: Marks) {
        let Expr::Loop(l) = expr else { return };
        self.stats.loops += 1;
        let span = l.loop_token.span;
        let claiming = !self.place.in_claim;
        if let Some(span) = marks.idle {
            self.errors.push(syn::Error::new(
                span,
                "`idle` on a `loop` has no wait to wrap: put `#[drainable(idle)]` on the `let` or expression statement that `.await`s the next unit",
            ));
        }
        let value = breaks_of(l.label.as_ref().map(|l| &l.name), &l.body).value();
        if value == LoopValue::Unit && marks.on_shutdown.is_some() {
            let span = marks
                .on_shutdown_span
                .or(marks.span)
                .unwrap_or_else(Span::call_site);
            self.errors.push(syn::Error::new(
                span,
                "`on_shutdown` is for a `loop` whose value is used; this loop leaves with `break;`, so its value is `()` and it needs no `on_shutdown`",
            ));
            marks.on_shutdown = None;
        }
        let breakable = value == LoopValue::Unit || (value == LoopValue::Never && ctx == Ctx::Unit);
        let opted_in = claiming || marks.partial.is_some() || marks.on_shutdown.is_some();
        let mut warn = None;
        let (rewrite, frame) = if marks.skip.is_some() {
            self.stats.skipped += 1;
            (
                false,
                if claiming {
                    Frame::Loop(breakable.then_some(None))
                } else {
                    Frame::Nested
                },
            )
        } else if !opted_in {
            self.stats.nested += 1;
            (false, Frame::Nested)
        } else if let Some(on) = marks.on_shutdown.take() {
            (true, Frame::Loop(Some(Some(Box::new(on)))))
        } else if breakable {
            if claiming && self.place.value_root && marks.partial.is_none() {
                warn = Some(span);
            }
            (true, Frame::Loop(Some(None)))
        } else {
            if value == LoopValue::Valued {
                self.stats.left_valued += 1;
            } else {
                self.stats.left_tail += 1;
            }
            (false, Frame::Loop(None))
        };
        if rewrite && !claiming {
            self.stats.partial += 1;
        }
        let on_shutdown = match &frame {
            Frame::Loop(Some(Some(on))) => Some((**on).clone()),
            _ => None,
        };
        self.frames.push(frame);
        self.ctx = Ctx::Unit;
        self.in_body(true, |this| this.visit_block_mut(&mut l.body));
        self.frames.pop();
        if rewrite
            && let Some(stmt) = self
                .errors
                .ok(self.emit.checkpoint(on_shutdown.as_ref(), span))
        {
            l.body.stmts.insert(0, stmt);
            self.stats.rewritten += 1;
        }
        if claiming {
            self.guard(expr, warn);
        }
    }

    /// Whether a `while`/`for` gets a checkpoint, and whether it gets the value-root warning.
    fn checkpointed(&mut self, claiming: bool, marks: &Marks, kind: &str) -> (bool, bool) {
        if marks.skip.is_some() {
            self.stats.skipped += 1;
            return (false, false);
        }
        let opted_in = marks.partial.is_some() || (kind == "while" && marks.idle.is_some());
        if !claiming && !opted_in {
            self.stats.nested += 1;
            return (false, false);
        }
        if !claiming {
            self.stats.partial += 1;
        }
        (true, claiming && self.place.value_root && !opted_in)
    }

    fn rewrite_while(&mut self, expr: &mut Expr, marks: Marks) {
        let Expr::While(w) = expr else { return };
        self.stats.loops += 1;
        let span = w.while_token.span;
        let claiming = !self.place.in_claim;
        if marks.on_shutdown.is_some() {
            self.errors.push(syn::Error::new(
                marks
                    .on_shutdown_span
                    .or(marks.span)
                    .unwrap_or_else(Span::call_site),
                "`on_shutdown` is for `loop` only: a `while` loop's value is always `()`",
            ));
        }
        let (checkpointed, warn) = self.checkpointed(claiming, &marks, "while");
        if checkpointed && let Some(idle_span) = marks.idle {
            let target = match &mut *w.cond {
                Expr::Let(l) => &mut *l.expr,
                other => other,
            };
            self.wrap_idle(
                target,
                None,
                idle_span,
                "the condition of this `while` does not end in `.await`",
            );
        }
        let frame = if checkpointed || (claiming && marks.skip.is_some()) {
            Frame::Loop(Some(None))
        } else {
            Frame::Nested
        };
        self.in_body(true, |this| {
            this.visit_expr_mut(&mut w.cond);
            this.frames.push(frame);
            this.ctx = Ctx::Unit;
            this.visit_block_mut(&mut w.body);
            this.frames.pop();
        });
        if checkpointed {
            self.checkpoint_while(expr, span);
        }
        if claiming {
            self.guard(expr, warn.then_some(span));
        }
    }

    fn checkpoint_while(&mut self, expr: &mut Expr, span: Span) {
        let Some(mut skeleton) = self.errors.ok(self.emit.while_skeleton()) else {
            return;
        };
        let Some(checkpoint) = self.errors.ok(self.emit.checkpoint(None, span)) else {
            return;
        };
        let Expr::While(w) = mem::replace(expr, Expr::Verbatim(Default::default())) else {
            return;
        };
        let syn::ExprWhile {
            attrs,
            label,
            cond,
            body,
            ..
        } = w;
        let placed = (|| {
            let Expr::Loop(l) = &mut skeleton else {
                return None;
            };
            let Some(Stmt::Expr(Expr::If(i), _)) = l.body.stmts.last_mut() else {
                return None;
            };
            i.cond = cond;
            i.then_branch = body;
            l.attrs = attrs;
            l.label = label;
            l.loop_token.span = span;
            l.body.stmts.insert(0, checkpoint);
            Some(())
        })();
        if placed.is_some() {
            *expr = skeleton;
            self.stats.rewritten += 1;
        } else {
            self.errors.push(syn::Error::new(
                Span::call_site(),
                "internal error: bad `while` skeleton",
            ));
        }
    }

    fn rewrite_for(&mut self, expr: &mut Expr, marks: Marks) {
        let Expr::ForLoop(f) = expr else { return };
        self.stats.loops += 1;
        let span = f.for_token.span;
        let claiming = !self.place.in_claim;
        if marks.on_shutdown.is_some() || marks.idle.is_some() {
            self.errors.push(syn::Error::new(
                marks.on_shutdown_span.or(marks.idle).or(marks.span).unwrap_or_else(Span::call_site),
                "a `for` loop takes only `skip` or `partial`: its value is `()` (no `on_shutdown`) and its iterator does not `.await` (no `idle`)",
            ));
        }
        let (checkpointed, warn) = self.checkpointed(claiming, &marks, "for");
        let frame = if checkpointed || (claiming && marks.skip.is_some()) {
            Frame::Loop(Some(None))
        } else {
            Frame::Nested
        };
        self.in_body(true, |this| {
            this.visit_expr_mut(&mut f.expr);
            this.frames.push(frame);
            this.ctx = Ctx::Unit;
            this.visit_block_mut(&mut f.body);
            this.frames.pop();
        });
        if checkpointed {
            self.checkpoint_for(expr, span);
        }
        if claiming {
            self.guard(expr, warn.then_some(span));
        }
    }

    fn checkpoint_for(&mut self, expr: &mut Expr, span: Span) {
        let Some(mut skeleton) = self.errors.ok(self.emit.for_skeleton()) else {
            return;
        };
        let Some(checkpoint) = self.errors.ok(self.emit.checkpoint(None, span)) else {
            return;
        };
        let Expr::ForLoop(f) = mem::replace(expr, Expr::Verbatim(Default::default())) else {
            return;
        };
        let syn::ExprForLoop {
            attrs,
            label,
            pat,
            expr: iterable,
            body,
            ..
        } = f;
        let placed = (|| {
            let Expr::Match(outer) = &mut skeleton else {
                return None;
            };
            let Expr::Call(into_iter) = &mut *outer.expr else {
                return None;
            };
            *into_iter.args.first_mut()? = *iterable;
            let Expr::Loop(l) = &mut *outer.arms.first_mut()?.body else {
                return None;
            };
            let Some(Stmt::Expr(Expr::Match(next), _)) = l.body.stmts.last_mut() else {
                return None;
            };
            let some_arm = next.arms.first_mut()?;
            let syn::Pat::TupleStruct(some) = &mut some_arm.pat else {
                return None;
            };
            *some.elems.first_mut()? = *pat;
            *some_arm.body = Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: body,
            });
            l.label = label;
            l.loop_token.span = span;
            l.body.stmts.insert(0, checkpoint);
            outer.attrs = attrs;
            Some(())
        })();
        if placed.is_some() {
            *expr = skeleton;
            self.stats.rewritten += 1;
        } else {
            self.errors.push(syn::Error::new(
                Span::call_site(),
                "internal error: bad `for` skeleton",
            ));
        }
    }

    /// Replaces the `.await` at the end of `target` by an idle wait that breaks with `value`.
    fn wrap_idle(&mut self, target: &mut Expr, value: Option<&Expr>, span: Span, missing: &str) {
        let Some(node) = find_await(target) else {
            self.errors.push(syn::Error::new(
                span,
                format!("`idle` wraps the wait for the loop's next unit, but {missing}"),
            ));
            return;
        };
        let taken = std::mem::replace(node, Expr::Verbatim(Default::default()));
        let Expr::Await(await_expr) = taken else {
            *node = taken;
            return;
        };
        let base = (*await_expr.base).clone();
        match self.emit.idle(base, value, span) {
            Ok(wrapped) => {
                *node = wrapped;
                self.stats.idle += 1;
            }
            Err(e) => {
                *node = Expr::Await(await_expr);
                self.errors.push(e);
            }
        }
    }

    /// `#[drainable(..)]` on a `let` or expression statement: only `idle` is allowed.
    fn statement_marks(&mut self, marks: Marks, target: Option<&mut Expr>) {
        if marks.skip.is_some() || marks.on_shutdown.is_some() || marks.partial.is_some() {
            self.errors.push(syn::Error::new(
                marks
                    .skip
                    .or(marks.partial)
                    .or(marks.on_shutdown_span)
                    .or(marks.span)
                    .unwrap_or_else(Span::call_site),
                "`skip`, `partial` and `on_shutdown` go on a loop; on a statement only `idle` is allowed",
            ));
        }
        let Some(span) = marks.idle else { return };
        let frame = self.frames.last();
        let value = match frame {
            Some(Frame::Loop(Some(value))) => value.as_deref().cloned(),
            Some(Frame::Loop(None)) => {
                self.errors.push(syn::Error::new(
                    span,
                    "`idle` would leave the enclosing `loop` with `break;`, but that loop's value is used: add `#[drainable(on_shutdown = <value>)]` to the loop",
                ));
                return;
            }
            Some(Frame::Nested) => {
                self.errors.push(syn::Error::new(
                    span,
                    "`idle` would leave the enclosing loop, which is nested in a claimed unit and runs to its end: mark that loop `#[drainable(partial)]` if it claims units itself",
                ));
                return;
            }
            _ => {
                self.errors.push(syn::Error::new(
                    span,
                    "`idle` on a statement needs an enclosing loop (in the same closure or async block) to leave",
                ));
                return;
            }
        };
        match target {
            Some(target) => self.wrap_idle(
                target,
                value.as_ref(),
                span,
                "this statement does not end in `.await`",
            ),
            None => self.errors.push(syn::Error::new(
                span,
                "`idle` needs a statement that ends in `.await`",
            )),
        }
    }
}

/// The `.await` reached from `expr` through method receivers, fields, `?` and parentheses.
fn find_await(expr: &mut Expr) -> Option<&mut Expr> {
    if matches!(expr, Expr::Await(_)) {
        return Some(expr);
    }
    match expr {
        Expr::MethodCall(m) => find_await(&mut m.receiver),
        Expr::Field(f) => find_await(&mut f.base),
        Expr::Try(t) => find_await(&mut t.expr),
        Expr::Paren(p) => find_await(&mut p.expr),
        _ => None,
    }
}

fn is_loop(expr: &Expr) -> bool {
    matches!(expr, Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_))
}

fn is_unit_type(ty: &Type) -> bool {
    matches!(ty, Type::Tuple(t) if t.elems.is_empty())
}

/// Whether a function or closure with this return type returns a value (anything but `()`,
/// `!` and `Result<(), E>`): its claiming loops must say what a stop means.
pub(crate) fn returns_value(output: &ReturnType) -> bool {
    match output {
        ReturnType::Default => false,
        ReturnType::Type(_, ty) => !is_unit_like(ty),
    }
}

fn is_unit_like(ty: &Type) -> bool {
    match ty {
        Type::Tuple(t) => t.elems.is_empty(),
        Type::Never(_) => true,
        Type::Paren(p) => is_unit_like(&p.elem),
        Type::Group(g) => is_unit_like(&g.elem),
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            if last.ident != "Result" {
                return false;
            }
            match &last.arguments {
                syn::PathArguments::AngleBracketed(args) => matches!(
                    args.args.first(),
                    Some(syn::GenericArgument::Type(first)) if is_unit_like(first)
                ),
                _ => false,
            }
        }
        _ => false,
    }
}

/// Whether a closure body (an expression) ends in a value other than `()`.
fn tail_is_value_expr(body: &Expr) -> bool {
    match body {
        Expr::Block(b) if b.label.is_none() => tail_is_value(&b.block),
        other => is_value(other),
    }
}

/// Whether a block ends in a tail expression whose value is not `()`, judged by its form:
/// a loop, `()`, `Ok(())`, a macro call, an `if`/`match`/block or an assignment is not.
pub(crate) fn tail_is_value(block: &Block) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(tail, None)) => is_value(tail),
        _ => false,
    }
}

fn is_value(expr: &Expr) -> bool {
    match expr {
        Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_) => false,
        Expr::Tuple(t) => !t.elems.is_empty(),
        Expr::Macro(_) | Expr::If(_) | Expr::Match(_) | Expr::Block(_) | Expr::Unsafe(_) => false,
        Expr::Assign(_) | Expr::Break(_) | Expr::Continue(_) | Expr::Return(_) => false,
        Expr::Paren(p) => is_value(&p.expr),
        Expr::Call(call) => !is_ok_unit(call),
        _ => true,
    }
}

/// `Ok(())` (also `Ok::<_, E>(())`).
fn is_ok_unit(call: &syn::ExprCall) -> bool {
    let Expr::Path(func) = &*call.func else {
        return false;
    };
    func.path.segments.last().is_some_and(|s| s.ident == "Ok")
        && call.args.len() == 1
        && matches!(call.args.first(), Some(Expr::Tuple(t)) if t.elems.is_empty())
}

/// The context of a function body's tail, from its return type.
pub(crate) fn body_ctx(output: &ReturnType) -> Ctx {
    match output {
        ReturnType::Default => Ctx::Unit,
        ReturnType::Type(_, ty) if is_unit_type(ty) => Ctx::Unit,
        ReturnType::Type(..) => Ctx::Value,
    }
}

fn is_spawn_name(ident: &syn::Ident) -> bool {
    ident.to_string().starts_with("spawn")
}

fn marker_attrs(expr: &mut Expr) -> Option<&mut Vec<syn::Attribute>> {
    use Expr::*;
    Some(match expr {
        Array(e) => &mut e.attrs,
        Assign(e) => &mut e.attrs,
        Async(e) => &mut e.attrs,
        Await(e) => &mut e.attrs,
        Binary(e) => &mut e.attrs,
        Block(e) => &mut e.attrs,
        Break(e) => &mut e.attrs,
        Call(e) => &mut e.attrs,
        Cast(e) => &mut e.attrs,
        Closure(e) => &mut e.attrs,
        Const(e) => &mut e.attrs,
        Continue(e) => &mut e.attrs,
        Field(e) => &mut e.attrs,
        ForLoop(e) => &mut e.attrs,
        Group(e) => &mut e.attrs,
        If(e) => &mut e.attrs,
        Index(e) => &mut e.attrs,
        Infer(e) => &mut e.attrs,
        Let(e) => &mut e.attrs,
        Lit(e) => &mut e.attrs,
        Loop(e) => &mut e.attrs,
        Macro(e) => &mut e.attrs,
        Match(e) => &mut e.attrs,
        MethodCall(e) => &mut e.attrs,
        Paren(e) => &mut e.attrs,
        Path(e) => &mut e.attrs,
        Range(e) => &mut e.attrs,
        RawAddr(e) => &mut e.attrs,
        Reference(e) => &mut e.attrs,
        Repeat(e) => &mut e.attrs,
        Return(e) => &mut e.attrs,
        Struct(e) => &mut e.attrs,
        Try(e) => &mut e.attrs,
        TryBlock(e) => &mut e.attrs,
        Tuple(e) => &mut e.attrs,
        Unary(e) => &mut e.attrs,
        Unsafe(e) => &mut e.attrs,
        While(e) => &mut e.attrs,
        Yield(e) => &mut e.attrs,
        _ => return None,
    })
}

/// Removes and parses the markers of an expression, reporting malformed ones.
fn marks_of(expr: &mut Expr, errors: &mut Errors) -> Marks {
    match marker_attrs(expr) {
        Some(attrs) => errors.ok(take_marks(attrs)).unwrap_or_default(),
        None => Marks::default(),
    }
}

impl VisitMut for LoopRewriter<'_> {
    fn visit_block_mut(&mut self, block: &mut Block) {
        let tail = mem::replace(&mut self.ctx, Ctx::Value);
        let count = block.stmts.len();
        for (index, stmt) in block.stmts.iter_mut().enumerate() {
            match stmt {
                Stmt::Local(local) => {
                    let marks = self
                        .errors
                        .ok(take_marks(&mut local.attrs))
                        .unwrap_or_default();
                    if !marks.is_empty() {
                        let target = local.init.as_mut().map(|init| &mut *init.expr);
                        self.statement_marks(marks, target);
                    }
                    self.visit_local_mut(local);
                }
                Stmt::Expr(expr, semi) => {
                    let is_tail = index + 1 == count && semi.is_none();
                    if !is_loop(expr) {
                        let marks = marks_of(expr, self.errors);
                        if !marks.is_empty() {
                            self.statement_marks(marks, Some(expr));
                        }
                    }
                    self.ctx = if is_tail { tail } else { Ctx::Unit };
                    self.visit_expr_mut(expr);
                }
                Stmt::Item(_) | Stmt::Macro(_) => {}
            }
        }
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        let ctx = mem::replace(&mut self.ctx, Ctx::Value);
        let spawn_arg = mem::take(&mut self.spawn_arg);
        let marks = marks_of(expr, self.errors);
        match expr {
            Expr::Loop(_) => return self.rewrite_loop(expr, ctx, marks),
            Expr::While(_) => return self.rewrite_while(expr, marks),
            Expr::ForLoop(_) => return self.rewrite_for(expr, marks),
            _ => self.not_here(&marks, "this expression"),
        }
        match expr {
            Expr::If(i) => {
                self.visit_expr_mut(&mut i.cond);
                self.ctx = ctx;
                self.visit_block_mut(&mut i.then_branch);
                if let Some((_, other)) = &mut i.else_branch {
                    self.ctx = ctx;
                    self.visit_expr_mut(other);
                }
            }
            Expr::Match(m) => {
                self.visit_expr_mut(&mut m.expr);
                for arm in &mut m.arms {
                    if let Some((_, guard)) = &mut arm.guard {
                        self.visit_expr_mut(guard);
                    }
                    self.ctx = ctx;
                    self.visit_expr_mut(&mut arm.body);
                }
            }
            Expr::Block(b) => {
                self.ctx = ctx;
                self.visit_block_mut(&mut b.block);
            }
            Expr::Unsafe(u) => {
                self.ctx = ctx;
                self.visit_block_mut(&mut u.block);
            }
            Expr::Paren(p) => {
                self.ctx = ctx;
                self.visit_expr_mut(&mut p.expr);
            }
            Expr::Group(g) => {
                self.ctx = ctx;
                self.visit_expr_mut(&mut g.expr);
            }
            Expr::Closure(c) => {
                let output_ctx = match &c.output {
                    ReturnType::Type(..) => body_ctx(&c.output),
                    ReturnType::Default if spawn_arg && output_of(&c.body) == Output::Free => {
                        Ctx::Unit
                    }
                    ReturnType::Default => Ctx::Value,
                };
                let saved = self.place;
                self.place = match &c.output {
                    _ if spawn_arg => Place {
                        in_claim: false,
                        value_root: returns_value(&c.output),
                    },
                    ReturnType::Type(..) => Place {
                        in_claim: saved.in_claim,
                        value_root: saved.value_root || returns_value(&c.output),
                    },
                    ReturnType::Default => Place {
                        in_claim: saved.in_claim,
                        value_root: saved.value_root || tail_is_value_expr(&c.body),
                    },
                };
                self.frames.push(Frame::Barrier);
                self.ctx = output_ctx;
                self.visit_expr_mut(&mut c.body);
                self.frames.pop();
                self.place = saved;
            }
            Expr::Async(a) => {
                let saved = self.place;
                self.place = if spawn_arg {
                    Place {
                        in_claim: false,
                        value_root: false,
                    }
                } else {
                    Place {
                        in_claim: saved.in_claim,
                        value_root: saved.value_root || tail_is_value(&a.block),
                    }
                };
                self.frames.push(Frame::Barrier);
                self.ctx = match output_of_block(&a.block) {
                    Output::Free => Ctx::Unit,
                    Output::Constrained => Ctx::Value,
                };
                self.visit_block_mut(&mut a.block);
                self.frames.pop();
                self.place = saved;
            }
            Expr::Call(call) => {
                self.visit_expr_mut(&mut call.func);
                let spawn = matches!(&*call.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| is_spawn_name(&s.ident)));
                for arg in &mut call.args {
                    self.spawn_arg = spawn;
                    self.visit_expr_mut(arg);
                }
            }
            Expr::MethodCall(call) => {
                self.visit_expr_mut(&mut call.receiver);
                let spawn = is_spawn_name(&call.method);
                for arg in &mut call.args {
                    self.spawn_arg = spawn;
                    self.visit_expr_mut(arg);
                }
            }
            Expr::Const(_) => {}
            Expr::Repeat(r) => self.visit_expr_mut(&mut r.expr),
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    fn visit_type_mut(&mut self, _: &mut Type) {}
    fn visit_pat_mut(&mut self, _: &mut syn::Pat) {}
    fn visit_generic_argument_mut(&mut self, _: &mut syn::GenericArgument) {}
    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
}
