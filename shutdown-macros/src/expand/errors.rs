//! Error accumulation: every problem found in one expansion is reported in one build.
//!
//! Rewriters push `syn::Error`s here instead of stopping at the first one; the expansion
//! turns the combined error into `compile_error!` invocations placed next to the original item.

/// A set of spanned errors combined with [`syn::Error::combine`].
#[derive(Debug, Default)]
pub(crate) struct Errors {
    inner: Option<syn::Error>,
}

impl Errors {
    /// Adds one error (which may itself hold several messages).
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.inner {
            Some(all) => all.combine(error),
            None => self.inner = Some(error),
        }
    }

    /// Adds the error of a failed step, if any, and returns its value otherwise.
    pub(crate) fn ok<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.push(error);
                None
            }
        }
    }

    /// `true` when no error was pushed.
    pub(crate) fn is_empty(&self) -> bool {
        self.inner.is_none()
    }

    /// The combined error, if any.
    pub(crate) fn finish(self) -> Option<syn::Error> {
        self.inner
    }
}
