//! How the effects layer's errors print: a file and its `line:column`, an
//! error with its sources, and the names it suggests. The error types use
//! these; nothing here names them.

use std::fmt;

use freqbuf::error::Location;

/// Writes `file` or `file:line:column`.
pub(super) struct Site<'a>(pub(super) &'a str, pub(super) Option<Location>);

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

/// `; did you mean `a`, `b`?`, or nothing without suggestions.
pub(super) fn suggest(list: &[String]) -> String {
    if list.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", list.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "))
    }
}
