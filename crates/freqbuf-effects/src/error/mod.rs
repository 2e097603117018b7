//! The effects layer's errors, split as the core's are: an outer part that
//! says which item failed and a typed inner `*Kind`. The core's
//! [`freqbuf::Error`] stays typed inside them as a source.

mod effect;
mod material;

pub use effect::{EffectError, EffectErrorKind};
pub use material::{MaterialError, MaterialErrorKind};

use std::fmt;

use freqbuf::error::Location;

/// Writes `file` or `file:line:column`.
struct Site<'a>(&'a str, Option<Location>);

impl fmt::Display for Site<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(loc) => write!(f, "{}:{}", self.0, loc),
            None => f.write_str(self.0),
        }
    }
}

/// An error and its sources, joined with `: ` (naga nests the detail).
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    format!("{:#}", freqbuf::Report(e))
}

/// `Debug` as [`freqbuf::Report`] writes it, as the core's errors do: what
/// `main` and `unwrap` print is the message and its causes.
macro_rules! debug_as_report {
    ($($t:ty),*) => {$(
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&freqbuf::Report(self), f)
            }
        }
    )*};
}

debug_as_report!(EffectError, MaterialError);

/// Up to three known names closest to `name`, best first: the core's rule,
/// so that both crates suggest alike.
pub(crate) use freqbuf::__effects::closest;

/// `; did you mean `a`, `b`?`, or nothing without suggestions.
fn suggest(list: &[String]) -> String {
    if list.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", list.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "))
    }
}
