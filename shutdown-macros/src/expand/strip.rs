//! Removal of `#[drainable(..)]` markers from the original item when an error is reported, so
//! the item that is emitted next to the `compile_error!` causes no secondary errors.

use syn::visit_mut::VisitMut;

use super::args::is_marker;

/// Removes every marker attribute on expressions, statements and match arms (outside nested items).
pub(crate) fn strip_markers(block: &mut syn::Block) {
    Strip.visit_block_mut(block);
}

struct Strip;

impl VisitMut for Strip {
    fn visit_attributes_mut(&mut self, attrs: &mut Vec<syn::Attribute>) {
        attrs.retain(|a| !is_marker(a));
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
