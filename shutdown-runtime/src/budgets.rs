//! Nested deadlines of a shutdown: [`Budgets`] (`children < coordinator < grace`).

use std::fmt;
use std::time::Duration;

/// Nested shutdown deadlines, all measured from the moment shutdown is requested.
///
/// * `children`: tracked tasks must have drained by then; the rest are aborted;
/// * `coordinator`: the main future (the coordinator) must have returned by then;
/// * `grace`: the deploy's grace period (SIGKILL follows), the outermost bound.
///
/// The nesting is strict: `0 < children < coordinator < grace`.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use shutdown_runtime::Budgets;
///
/// let b = Budgets::from_grace(Duration::from_secs(120));
/// assert_eq!(b.children(), Duration::from_secs(80));
/// assert_eq!(b.coordinator(), Duration::from_secs(100));
/// assert_eq!(b.grace(), Duration::from_secs(120));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budgets {
    children: Duration,
    coordinator: Duration,
    grace: Duration,
}

impl Budgets {
    /// Derives budgets from a grace period: children `2/3·g`, coordinator `5/6·g`, grace `g`.
    ///
    /// A zero grace gives three zero budgets (everything is aborted at once).
    ///
    /// ```
    /// use std::time::Duration;
    /// let b = shutdown_runtime::Budgets::from_grace(Duration::from_secs(30));
    /// assert_eq!((b.children(), b.coordinator()), (Duration::from_secs(20), Duration::from_secs(25)));
    /// ```
    pub fn from_grace(grace: Duration) -> Budgets {
        Budgets {
            children: grace * 2 / 3,
            coordinator: grace * 5 / 6,
            grace,
        }
    }

    /// Builds budgets from explicit bounds; the nesting must be `0 < children < coordinator < grace`.
    ///
    /// # Errors
    ///
    /// A [`BudgetError`] whose message names the bound that breaks the nesting.
    ///
    /// ```
    /// use std::time::Duration;
    /// use shutdown_runtime::Budgets;
    ///
    /// let s = Duration::from_secs;
    /// assert!(Budgets::new(s(8), s(9), s(10)).is_ok());
    /// let err = Budgets::new(s(9), s(8), s(10)).unwrap_err();
    /// assert!(err.to_string().contains("coordinator"));
    /// ```
    pub fn new(
        children: Duration,
        coordinator: Duration,
        grace: Duration,
    ) -> Result<Budgets, BudgetError> {
        let kind = if children.is_zero() {
            Some(BudgetErrorKind::ChildrenZero)
        } else if coordinator <= children {
            Some(BudgetErrorKind::CoordinatorNotAboveChildren)
        } else if grace <= coordinator {
            Some(BudgetErrorKind::GraceNotAboveCoordinator)
        } else {
            None
        };
        match kind {
            Some(kind) => Err(BudgetError {
                kind,
                children,
                coordinator,
                grace,
            }),
            None => Ok(Budgets {
                children,
                coordinator,
                grace,
            }),
        }
    }

    /// Deadline for tracked tasks, from the request.
    ///
    /// ```
    /// # use std::time::Duration;
    /// assert_eq!(shutdown_runtime::Budgets::from_grace(Duration::from_secs(3)).children(), Duration::from_secs(2));
    /// ```
    pub fn children(&self) -> Duration {
        self.children
    }

    /// Deadline for the coordinator (main future), from the request.
    ///
    /// ```
    /// # use std::time::Duration;
    /// assert_eq!(shutdown_runtime::Budgets::from_grace(Duration::from_secs(6)).coordinator(), Duration::from_secs(5));
    /// ```
    pub fn coordinator(&self) -> Duration {
        self.coordinator
    }

    /// The grace period (outermost bound), from the request.
    ///
    /// ```
    /// # use std::time::Duration;
    /// assert_eq!(shutdown_runtime::Budgets::from_grace(Duration::from_secs(6)).grace(), Duration::from_secs(6));
    /// ```
    pub fn grace(&self) -> Duration {
        self.grace
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BudgetErrorKind {
    ChildrenZero,
    CoordinatorNotAboveChildren,
    GraceNotAboveCoordinator,
}

/// Returned by [`Budgets::new`] when the nesting `0 < children < coordinator < grace` is broken.
///
/// Its `Display` names the wrong bound and shows the values.
///
/// ```
/// use std::time::Duration;
/// let s = Duration::from_secs;
/// let err = shutdown_runtime::Budgets::new(s(1), s(5), s(5)).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "invalid shutdown budgets: `grace` (5s) must be greater than `coordinator` (5s); \
///      required: 0 < children (1s) < coordinator (5s) < grace (5s)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetError {
    kind: BudgetErrorKind,
    children: Duration,
    coordinator: Duration,
    grace: Duration,
}

impl fmt::Display for BudgetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (c, k, g) = (self.children, self.coordinator, self.grace);
        f.write_str("invalid shutdown budgets: ")?;
        match self.kind {
            BudgetErrorKind::ChildrenZero => {
                write!(f, "`children` ({c:?}) must be greater than zero")?
            }
            BudgetErrorKind::CoordinatorNotAboveChildren => write!(
                f,
                "`coordinator` ({k:?}) must be greater than `children` ({c:?})"
            )?,
            BudgetErrorKind::GraceNotAboveCoordinator => write!(
                f,
                "`grace` ({g:?}) must be greater than `coordinator` ({k:?})"
            )?,
        }
        write!(
            f,
            "; required: 0 < children ({c:?}) < coordinator ({k:?}) < grace ({g:?})"
        )
    }
}

impl std::error::Error for BudgetError {}

#[cfg(test)]
mod tests {
    use super::*;

    const fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn from_grace_nests_strictly() {
        let b = Budgets::from_grace(Duration::from_secs(120));
        assert!(b.children() < b.coordinator() && b.coordinator() < b.grace());
        assert_eq!(b.children(), Duration::from_secs(80));
        assert_eq!(b.coordinator(), Duration::from_secs(100));
        let b = Budgets::from_grace(ms(30));
        assert_eq!(
            (b.children(), b.coordinator(), b.grace()),
            (ms(20), ms(25), ms(30))
        );
    }

    #[test]
    fn new_names_the_wrong_bound() {
        let cases = [
            (ms(0), ms(2), ms(3), "`children`"),
            (
                ms(2),
                ms(2),
                ms(3),
                "`coordinator` (2ms) must be greater than `children` (2ms)",
            ),
            (
                ms(3),
                ms(2),
                ms(4),
                "`coordinator` (2ms) must be greater than `children` (3ms)",
            ),
            (
                ms(1),
                ms(3),
                ms(3),
                "`grace` (3ms) must be greater than `coordinator` (3ms)",
            ),
            (
                ms(1),
                ms(4),
                ms(3),
                "`grace` (3ms) must be greater than `coordinator` (4ms)",
            ),
        ];
        for (c, k, g, needle) in cases {
            let err = Budgets::new(c, k, g).unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains(needle), "{msg:?} should contain {needle:?}");
            let _: &dyn std::error::Error = &err;
        }
        assert_eq!(
            Budgets::new(ms(1), ms(2), ms(3)).unwrap(),
            Budgets {
                children: ms(1),
                coordinator: ms(2),
                grace: ms(3)
            }
        );
    }
}
