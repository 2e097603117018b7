//! Where things are in source text: the `line:column` of a byte, and where
//! each bound global of a composed module is declared. Errors of every step
//! (loading, composing, WESL) point into files with these.

use std::collections::HashMap;

use freqbuf::error::Location;

/// Where each bound global of a composed module is declared, by name: the
/// file and, where its text declares the name once, the `line:column` of its
/// `var` (naga_oil's composed text, which the spans index, is not kept).
pub(crate) type Sites = HashMap<String, (String, Option<Location>)>;

/// The 1-based line and column of byte `at` in `text`.
pub(crate) fn locate(text: &str, at: usize) -> Location {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() as u32 + 1;
    let column = (before.len() - before.rfind('\n').map_or(0, |n| n + 1)) as u32 + 1;
    Location { line, column }
}
