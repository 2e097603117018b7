//! Typos caught at load: every name an effect's own source and stage files
//! test (`#ifdef`, `#ifndef`, `#if`, `#else if…`, WESL's `@if`) must be one
//! of its flags or defs. A misspelt flag (`flags = ["TINTD"]` with `#ifdef
//! TINTED`) would otherwise load, check and draw with that branch dead in
//! every permutation. Library modules are not held to it: they are written
//! for many effects, each setting some of their names.

use crate::error::{EffectError, EffectErrorKind};

/// The first name `text` tests that `known` lacks, as an error at its place
/// in `file`, suggesting the closest known names.
pub(in crate::effect) fn check(file: &str, text: &str, known: &[&str]) -> Result<(), EffectError> {
    // naga_oil's `#define NAME [value]` defines a name for the text after it.
    let defined = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("#define "))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect::<Vec<_>>();
    for (at, name) in tested(text) {
        if known.contains(&name) || defined.contains(&name) {
            continue;
        }
        let suggestions = crate::error::closest(name, known.iter().copied());
        return Err(EffectError {
            file: file.to_owned(),
            location: Some(crate::effect::source::sites::locate(text, at)),
            kind: Box::new(EffectErrorKind::UnknownTest { name: name.to_owned(), suggestions }),
        });
    }
    Ok(())
}

/// Each name a line of `text` tests, with its byte offset.
fn tested(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    text.split_inclusive('\n').flat_map(move |line| {
        let base = start;
        start += line.len();
        let trimmed = line.trim_start();
        let lead = line.len() - trimmed.len();
        let mut names = Vec::new();
        if let Some(rest) = trimmed.strip_prefix('#') {
            let body = rest.trim_start();
            let body = body.strip_prefix("else").map_or(body, str::trim_start);
            for keyword in ["ifdef", "ifndef", "if"] {
                if let Some(expr) = body.strip_prefix(keyword).filter(|e| e.starts_with([' ', '\t', '('])) {
                    let offset = base + lead + (trimmed.len() - expr.len());
                    names.extend(words(expr, offset));
                    break;
                }
            }
        }
        // WESL: `@if(expr)` anywhere on the line (a line may hold several).
        let mut from = 0;
        while let Some(i) = line[from..].find("@if(") {
            let open = from + i + 4;
            let close = line[open..].find(')').map_or(line.len(), |j| open + j);
            names.extend(words(&line[open..close], base + open));
            from = close;
        }
        names
    })
}

/// The identifiers of an expression (not numbers, `true` or `false`), with offsets.
fn words(expr: &str, offset: usize) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut i = 0;
    let bytes = expr.as_bytes();
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let end =
                expr[i..].find(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(expr.len(), |j| i + j);
            let word = &expr[i..end];
            if !matches!(word, "true" | "false" | "defined") {
                out.push((offset + i, word));
            }
            i = end;
        } else if c.is_ascii_digit() {
            // A number, suffix included (`2u`).
            i += expr[i..].find(|c: char| !c.is_alphanumeric()).unwrap_or(expr.len() - i);
        } else {
            // `//` ends the expression.
            if expr[i..].starts_with("//") {
                break;
            }
            i += expr[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}
