//! How an error reads where a program ends with it.

use std::error::Error as StdError;
use std::fmt;

/// Writes an error with its chain of sources.
///
/// `{}` writes the message, then `Caused by:` and each source on its own
/// line, numbered when there are several; this is also the `Debug` form of
/// freqbuf's errors, so `fn main() -> Result<(), freqbuf::Error>` and
/// `unwrap` print it instead of a structure dump. `{:#}` writes the chain on
/// one line, joined with `: `.
///
/// ```
/// # fn show(e: &freqbuf::Error) {
/// eprintln!("error: {}", freqbuf::Report(e));
/// # }
/// ```
#[derive(Clone, Copy)]
pub struct Report<'a>(pub &'a (dyn StdError + 'a));

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut sources = std::iter::successors(self.0.source(), |&s| s.source()).peekable();
        if f.alternate() {
            return sources.try_for_each(|s| write!(f, ": {s}"));
        }
        let Some(first) = sources.next() else { return Ok(()) };
        f.write_str("\n\nCaused by:")?;
        if sources.peek().is_none() {
            return write!(f, "\n    {first}");
        }
        for (i, s) in std::iter::once(first).chain(sources).enumerate() {
            write!(f, "\n    {i}: {s}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Gives error types `Report`'s form as their `Debug`.
macro_rules! debug_as_report {
    ($($t:ty),*) => {$(
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&$crate::Report(self), f)
            }
        }
    )*};
}
pub(crate) use debug_as_report;

/// An error and its sources, joined with `: ` (naga nests the detail).
pub(crate) fn chain(e: &dyn StdError) -> String {
    format!("{:#}", Report(e))
}
