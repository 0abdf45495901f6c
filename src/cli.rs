//! A tiny `--name value` command-line parser shared by the example programs.
//!
//! The examples take a handful of numeric and path flags; a hand-rolled parser keeps their
//! start-up short (the end-to-end tests signal them within milliseconds of `exec`) and gives
//! errors that name the offending flag. Bad input is an [`ArgError`], never a panic; the
//! examples print it and exit with status 2.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::str::FromStr;

/// Parsed `--name value` pairs, consumed by typed getters.
///
/// Every flag takes exactly one value (`--units 10` or `--units=10`). Flags that no getter
/// asked for are reported by [`Flags::finish`], so a typo is an error instead of being ignored.
///
/// # Examples
///
/// ```
/// use shutdown_discipline::cli::Flags;
///
/// let mut flags = Flags::parse(["--units", "10", "--ledger=/tmp/l"]).unwrap();
/// assert_eq!(flags.required::<u64>("units").unwrap(), 10);
/// assert_eq!(flags.optional::<u64>("workers", 4).unwrap(), 4);
/// assert_eq!(flags.required::<String>("ledger").unwrap(), "/tmp/l");
/// flags.finish().unwrap();
/// ```
#[derive(Debug, Clone, Default)]
pub struct Flags {
    values: BTreeMap<String, String>,
}

/// Why the command line was rejected; its `Display` names the flag and the problem.
///
/// # Examples
///
/// ```
/// use shutdown_discipline::cli::Flags;
///
/// let err = Flags::parse(["--units", "ten"]).unwrap().required::<u64>("units").unwrap_err();
/// assert_eq!(err.to_string(), "--units: invalid value `ten`: invalid digit found in string");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError {
    message: String,
}

impl ArgError {
    /// An error with a free-form message (used for checks that span several flags).
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::cli::ArgError;
    ///
    /// assert_eq!(ArgError::new("--workers must be at least 1").to_string(), "--workers must be at least 1");
    /// ```
    pub fn new(message: impl Into<String>) -> ArgError {
        ArgError {
            message: message.into(),
        }
    }
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ArgError {}

impl Flags {
    /// Splits the arguments (without the program name) into flag/value pairs.
    ///
    /// Rejects positional arguments, flags without a value, non-UTF-8 arguments and flags given
    /// twice.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::cli::Flags;
    ///
    /// assert!(Flags::parse(["--units"]).is_err());
    /// assert!(Flags::parse(["units", "3"]).is_err());
    /// assert!(Flags::parse(["--units", "3", "--units", "4"]).is_err());
    /// ```
    pub fn parse<I, S>(args: I) -> Result<Flags, ArgError>
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        let mut values = BTreeMap::new();
        let mut args = args.into_iter().map(Into::into);
        while let Some(arg) = args.next() {
            let arg = arg
                .into_string()
                .map_err(|raw| ArgError::new(format!("argument {raw:?} is not valid UTF-8")))?;
            let Some(flag) = arg.strip_prefix("--").filter(|f| !f.is_empty()) else {
                return Err(ArgError::new(format!(
                    "unexpected argument `{arg}` (flags look like `--name value`)"
                )));
            };
            let (name, value) = match flag.split_once('=') {
                Some((name, value)) => (name.to_owned(), value.to_owned()),
                None => {
                    let value = args
                        .next()
                        .ok_or_else(|| ArgError::new(format!("--{flag}: missing value")))?
                        .into_string()
                        .map_err(|raw| {
                            ArgError::new(format!("--{flag}: value {raw:?} is not valid UTF-8"))
                        })?;
                    (flag.to_owned(), value)
                }
            };
            if values.insert(name.clone(), value).is_some() {
                return Err(ArgError::new(format!("--{name}: given more than once")));
            }
        }
        Ok(Flags { values })
    }

    /// Takes a flag that must be present and parses its value.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::cli::Flags;
    ///
    /// let mut flags = Flags::parse(["--grace-ms", "500"]).unwrap();
    /// assert_eq!(flags.required::<u64>("grace-ms").unwrap(), 500);
    /// assert_eq!(flags.required::<u64>("units").unwrap_err().to_string(), "--units: required");
    /// ```
    pub fn required<T>(&mut self, name: &str) -> Result<T, ArgError>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        match self.take(name)? {
            Some(value) => Ok(value),
            None => Err(ArgError::new(format!("--{name}: required"))),
        }
    }

    /// Takes a flag that may be absent, falling back to `default`.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::cli::Flags;
    ///
    /// let mut flags = Flags::parse(["--tick-ms", "20"]).unwrap();
    /// assert_eq!(flags.optional::<u64>("tick-ms", 100).unwrap(), 20);
    /// assert_eq!(flags.optional::<u64>("jobs", 6).unwrap(), 6);
    /// ```
    pub fn optional<T>(&mut self, name: &str, default: T) -> Result<T, ArgError>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        Ok(self.take(name)?.unwrap_or(default))
    }

    /// Fails if a flag was given that no getter consumed (a typo or an unsupported option).
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::cli::Flags;
    ///
    /// let flags = Flags::parse(["--unit", "3"]).unwrap();
    /// assert_eq!(flags.finish().unwrap_err().to_string(), "unknown flag --unit");
    /// ```
    pub fn finish(self) -> Result<(), ArgError> {
        match self.values.keys().next() {
            Some(name) => Err(ArgError::new(format!("unknown flag --{name}"))),
            None => Ok(()),
        }
    }

    fn take<T>(&mut self, name: &str) -> Result<Option<T>, ArgError>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        match self.values.remove(name) {
            Some(raw) => raw
                .parse()
                .map(Some)
                .map_err(|e| ArgError::new(format!("--{name}: invalid value `{raw}`: {e}"))),
            None => Ok(None),
        }
    }
}
