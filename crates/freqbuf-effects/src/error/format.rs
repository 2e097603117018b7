//! How the effects layer's errors print: a file and its `line:column`, an
//! error with its sources, the names it suggests, counts and lists. The error types use
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

pub(super) fn count(n: usize) -> String {
    match n {
        2 => "two".into(),
        3 => "three".into(),
        n => n.to_string(),
    }
}

pub(super) fn list(names: &[String]) -> String {
    if names.is_empty() {
        return "none".into();
    }
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// Names the effects a family is shared with, when it is: a conflict there
/// may be two material types that belong in families of their own.
pub(super) fn family_note(family: &str, shared_with: &[String]) -> String {
    if shared_with.is_empty() {
        return String::new();
    }
    let others = shared_with.iter().map(|e| format!("`{e}`")).collect::<Vec<_>>().join(", ");
    format!(
        "; its family `{family}` is shared with {others}: give unrelated material types families of their own"
    )
}
