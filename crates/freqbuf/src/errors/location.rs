//! Where an error points: a source `line:column`, and how a message names
//! the shader, the binding and the file around it.

use std::fmt;

use crate::slot::plan::BindingPoint;

/// A 1-based `line:column` position in a shader's source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
}

impl Location {
    /// Converts naga's span position.
    pub(crate) fn from_naga(loc: naga::SourceLocation) -> Self {
        Self { line: loc.line_number, column: loc.line_position }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Writes ` for shader` unless the rest of the message names the shader already.
pub(super) struct ForShader<'a>(pub(super) &'a str, pub(super) bool);

impl fmt::Display for ForShader<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 { Ok(()) } else { write!(f, " for {}", self.0) }
    }
}

/// Writes " (`name` at @group(g) @binding(b))" when there is a binding.
pub(super) struct BindingSite<'a>(pub(super) &'a Option<(BindingPoint, String)>);

impl fmt::Display for BindingSite<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some((b, n)) => write!(f, " (`{n}` at {b})"),
            None => Ok(()),
        }
    }
}

/// Writes `shader` or `shader:line:column`.
pub(crate) struct Site<'a>(pub(super) &'a str, pub(super) Option<Location>);

impl fmt::Display for Site<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(loc) => write!(f, "{}:{}", self.0, loc),
            None => f.write_str(self.0),
        }
    }
}
