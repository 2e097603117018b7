//! What a def means to each directive: a boolean def that is `false` is
//! undefined for `#ifdef`/`#ifndef` and `false` for `#if`.
//!
//! naga_oil's `#ifdef` only tests whether a def is present, and its `#if`
//! refuses a def that is not: no one map of defs gives both meanings. So
//! every text freqbuf hands naga_oil (sources, stage files and modules, all
//! alike, whatever the defs) has its `#ifdef NAME`/`#ifndef NAME` lines
//! rewritten to test `NAME` + [`DEFINED`], and that name is passed for every
//! def whose value is not `false`. Lines keep their numbers, so errors keep
//! their `line:column` (a column after the name on a directive line moves).

use std::borrow::Cow;
use std::collections::HashMap;

use naga_oil::compose::ShaderDefValue;

/// The suffix of the name an `#ifdef`/`#ifndef` line tests after [`rewrite`].
pub(crate) const DEFINED: &str = "__freqbuf_defined";

/// `text` with each `#ifdef NAME` and `#ifndef NAME` (also after `#else`)
/// testing `NAME__freqbuf_defined` instead; borrowed when it has none.
pub(crate) fn rewrite(text: &str) -> Cow<'_, str> {
    if !text.contains("ifdef") && !text.contains("ifndef") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut changed = false;
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match name_end(line) {
            Some(end) => {
                out.push_str(&line[..end]);
                out.push_str(DEFINED);
                out.push_str(&line[end..]);
                changed = true;
            }
            None => out.push_str(line),
        }
    }
    if changed { Cow::Owned(out) } else { Cow::Borrowed(text) }
}

/// Where the name of an `#ifdef`/`#ifndef` line ends, as naga_oil's
/// `^\s*#\s*(else\s+)?\s*if(n)?def\s+(\w+)` reads it.
fn name_end(line: &str) -> Option<usize> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = match rest.strip_prefix("else") {
        Some(r) if r.starts_with(char::is_whitespace) => r.trim_start(),
        _ => rest,
    };
    let rest = rest.strip_prefix("ifdef").or_else(|| rest.strip_prefix("ifndef"))?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let name = rest.trim_start();
    let len = name.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(name.len());
    (len > 0).then(|| line.len() - name.len() + len)
}

/// The defs for a rewritten text: each def as given, and its
/// [`DEFINED`] twin where its value is not `false`.
pub(crate) fn with_presence(mut defs: HashMap<String, ShaderDefValue>) -> HashMap<String, ShaderDefValue> {
    let present = (defs.iter())
        .filter(|(_, v)| **v != ShaderDefValue::Bool(false))
        .map(|(n, _)| (format!("{n}{DEFINED}"), ShaderDefValue::Bool(true)))
        .collect::<Vec<_>>();
    defs.extend(present);
    defs
}

/// The defs for composing `source`: [`with_presence`] of `defs` with the
/// source's own `#define`s applied, which naga_oil adds after the caller's
/// defs (a `#define NAME false` leaves `NAME` undefined for `#ifdef` too).
pub(crate) fn for_source(
    source: &str,
    defs: HashMap<String, ShaderDefValue>,
) -> HashMap<String, ShaderDefValue> {
    let mut defs = with_presence(defs);
    if source.contains("define") {
        let (_, _, defines) = naga_oil::compose::get_preprocessor_data(source);
        for (name, value) in defines {
            let twin = format!("{name}{DEFINED}");
            if value == ShaderDefValue::Bool(false) {
                defs.remove(&twin);
            } else {
                defs.insert(twin, ShaderDefValue::Bool(true));
            }
        }
    }
    defs
}

/// The def a tested word names: `NAME` for `NAME__freqbuf_defined`.
pub(crate) fn plain(word: &str) -> &str {
    word.strip_suffix(DEFINED).unwrap_or(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_presence_tests_only() {
        let text = "#ifdef A\n  # else  ifndef B_2 // c\n#if C == 1\n#ifdefX\nlet a = 1;";
        assert_eq!(
            rewrite(text),
            "#ifdef A__freqbuf_defined\n  # else  ifndef B_2__freqbuf_defined // c\n#if C == 1\n#ifdefX\nlet a = 1;"
        );
        assert!(matches!(rewrite("#if A\n"), Cow::Borrowed(_)));
    }
}

/// A value for one of an effect's `[defs]`, as [`Effects::with_defs`](crate::Effects::with_defs) takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefValue {
    /// `true` or `false`: `#ifdef` sees it when true, `#if NAME == true` compares it.
    Bool(bool),
    /// A negative or signed count.
    Int(i32),
    /// A count or a binding index (what `#{NAME}` usually substitutes).
    UInt(u32),
}

impl From<bool> for DefValue {
    fn from(v: bool) -> Self {
        Self::Bool(v)
    }
}

impl From<u32> for DefValue {
    fn from(v: u32) -> Self {
        Self::UInt(v)
    }
}

impl From<i32> for DefValue {
    fn from(v: i32) -> Self {
        Self::Int(v)
    }
}

impl DefValue {
    /// The value as naga_oil takes it.
    pub(in crate::effect) fn to_naga_oil(self) -> ShaderDefValue {
        match self {
            Self::Bool(b) => ShaderDefValue::Bool(b),
            Self::Int(i) => ShaderDefValue::Int(i),
            Self::UInt(u) => ShaderDefValue::UInt(u),
        }
    }
}
