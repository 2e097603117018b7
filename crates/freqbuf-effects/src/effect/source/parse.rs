//! An effect file's flags, defs and techniques, checked and turned into
//! what `Effects::insert` keeps: each a function of its own, every error at
//! its place in the file.

use std::collections::BTreeMap;
use std::ops::Range;

use naga_oil::compose::ShaderDefValue;

use crate::effect::source::constraints::{FlagRules, Written};
use crate::effect::source::file::ReadStage;
use crate::effect::source::file::{EffectFile, PassFile, TechniqueFile};
use crate::effect::types::{Bits, DeviceCap, MAX_FLAGS, Pass, StageSource};
use crate::error::{EffectError, EffectErrorKind};

/// An error at a span of the effect file.
pub(in crate::effect) type At<'a> = &'a dyn Fn(Range<usize>, EffectErrorKind) -> EffectError;

/// The declared flags, in order; more than `MAX_FLAGS`, or a flag declared
/// twice, is an error.
pub(in crate::effect) fn flags(
    declared: &[toml::Spanned<String>],
    at: At<'_>,
) -> Result<Vec<String>, EffectError> {
    if declared.len() > MAX_FLAGS {
        let what = format!("{} flags; an effect may declare at most {MAX_FLAGS}", declared.len());
        return Err(at(declared[MAX_FLAGS].span(), EffectErrorKind::BadFlags(what)));
    }
    let mut flags: Vec<String> = Vec::new();
    for f in declared {
        if flags.contains(f.get_ref()) {
            return Err(at(
                f.span(),
                EffectErrorKind::BadFlags(format!("flag `{}` is declared twice", f.get_ref())),
            ));
        }
        flags.push(f.get_ref().clone());
    }
    Ok(flags)
}

/// The flag rules (`one_of`, `at_most_one`, `implies`, ...), which some
/// combination of the flags must meet.
pub(in crate::effect) fn rules(
    parsed: &EffectFile,
    flags: &[String],
    file: &str,
    at: At<'_>,
) -> Result<FlagRules, EffectError> {
    let written = Written {
        one_of: &parsed.one_of,
        at_most_one: &parsed.at_most_one,
        implies: &parsed.implies,
        implies_one_of: &parsed.implies_one_of,
        implies_any_of: &parsed.implies_any_of,
    };
    let rules = FlagRules::parse(&written, flags)
        .map_err(|(span, what)| at(span, EffectErrorKind::BadFlags(what)))?;
    if !rules.satisfiable() {
        let what = "no combination of the flags meets every constraint".to_owned();
        return Err(EffectError {
            file: file.to_owned(),
            location: None,
            kind: Box::new(EffectErrorKind::BadFlags(what)),
        });
    }
    Ok(rules)
}

/// `[device_flags]`: each a declared flag, set from a device capability.
pub(in crate::effect) fn device_flags(
    declared: &BTreeMap<toml::Spanned<String>, toml::Spanned<String>>,
    flags: &[String],
    at: At<'_>,
) -> Result<Vec<(Bits, DeviceCap)>, EffectError> {
    let mut device = Vec::new();
    for (flag, cap) in declared {
        let Some(i) = flags.iter().position(|f| f == flag.get_ref()) else {
            let what = format!("device flag `{}` is not one of the effect's flags", flag.get_ref());
            return Err(at(flag.span(), EffectErrorKind::BadFlags(what)));
        };
        let Some(cap) = DeviceCap::parse(cap.get_ref()) else {
            let known = DeviceCap::NAMES.join(", ");
            let what = format!(
                "device flag `{}` needs `{}`, which is not one of: {known}",
                flag.get_ref(),
                cap.get_ref()
            );
            return Err(at(cap.span(), EffectErrorKind::BadFlags(what)));
        };
        device.push((1 << i, cap));
    }
    Ok(device)
}

/// `[auto]`: member → semantic. A semantic is known without composing
/// anything, so a misspelt one fails here; the members are checked against
/// the permutations by the whole-effect check.
pub(in crate::effect) fn auto(
    declared: &BTreeMap<String, toml::Spanned<String>>,
    at: At<'_>,
) -> Result<Vec<(String, String)>, EffectError> {
    let mut auto = Vec::with_capacity(declared.len());
    for (member, semantic) in declared {
        if let Err(e) = crate::material::Semantic::parse(semantic.get_ref()) {
            return Err(at(semantic.span(), EffectErrorKind::Tables(e)));
        }
        auto.push((member.clone(), semantic.get_ref().clone()));
    }
    Ok(auto)
}

/// A string-valued def: its name, its text and its span in the effect
/// file. The text is pasted over `##NAME##` in the effect's own sources
/// before anything reads them (Bevy 0.19's `##TEXTURE_FORMAT##`), since
/// naga_oil's defs hold no strings.
pub(in crate::effect) type Paste = (String, String, std::ops::Range<usize>);

/// An effect's defs: naga_oil's values, and the strings to paste.
pub(in crate::effect) type Defs = (Vec<(String, ShaderDefValue)>, Vec<Paste>);

/// The `[defs]` as naga_oil values, then the library's own (`set_defs`)
/// over them, and the string-valued ones to paste; a def that is also a
/// flag is an error.
pub(in crate::effect) fn defs(
    declared: &BTreeMap<String, toml::Spanned<toml::Value>>,
    flags: &[String],
    code_defs: &[(String, ShaderDefValue)],
    file: &str,
    at: At<'_>,
) -> Result<Defs, EffectError> {
    let (mut defs, mut pastes) = (Vec::new(), Vec::new());
    for (name, value) in declared {
        let bad = |what: String| at(value.span(), EffectErrorKind::BadDef { name: name.clone(), what });
        if let Some(what) = crate::effect::source::with_defs::def_name_problem(name) {
            return Err(bad(what));
        }
        if flags.contains(name) {
            return Err(bad("is also a flag; a def has one value for every permutation".into()));
        }
        let v = match value.get_ref() {
            toml::Value::Boolean(b) => ShaderDefValue::Bool(*b),
            toml::Value::Integer(i) if *i >= 0 => ShaderDefValue::UInt(
                u32::try_from(*i).map_err(|_| bad(format!("is {i}, which u32 cannot hold")))?,
            ),
            toml::Value::Integer(i) => ShaderDefValue::Int(
                i32::try_from(*i).map_err(|_| bad(format!("is {i}, which i32 cannot hold")))?,
            ),
            toml::Value::String(text) => {
                let token = !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !token {
                    return Err(bad(format!(
                        "is {text:?}; a string def is pasted over `##{name}##` as one WGSL token (letters, digits, `_`)"
                    )));
                }
                pastes.push((name.clone(), text.clone(), value.span()));
                continue;
            }
            other => {
                return Err(bad(format!(
                    "is a {}; a def is a boolean, an integer, or a string to paste",
                    other.type_str()
                )));
            }
        };
        defs.push((name.clone(), v));
    }
    for (name, value) in code_defs {
        if flags.contains(name) {
            let what = "is set for every effect (`set_defs`, `--def`), and is a flag of this one".into();
            let kind = EffectErrorKind::BadDef { name: name.clone(), what };
            return Err(EffectError { file: file.to_owned(), location: None, kind: Box::new(kind) });
        }
        if let Some(p) = pastes.iter().find(|p| p.0 == *name) {
            let what =
                "is set for every effect (`set_defs`, `--def`), and is a string this one pastes".into();
            return Err(at(p.2.clone(), EffectErrorKind::BadDef { name: name.clone(), what }));
        }
        match defs.iter_mut().find(|(n, _)| n == name) {
            Some(def) => def.1 = *value,
            None => defs.push((name.clone(), *value)),
        }
    }
    Ok((defs, pastes))
}

/// Pastes each string def over `##NAME##` in `texts` (the effect's source
/// and stage files, each with its file name); a def that none of them
/// contains is an error, and so is a `##NAME##` left that no def fills
/// (naga would meet a `#` where the placeholder was).
pub(in crate::effect) fn paste<'t>(
    pastes: &[Paste],
    texts: impl IntoIterator<Item = (&'t str, &'t mut String)>,
    at: At<'_>,
) -> Result<(), EffectError> {
    let mut texts = texts.into_iter().collect::<Vec<_>>();
    for (name, text, span) in pastes {
        let placeholder = format!("##{name}##");
        let mut found = false;
        for (_, t) in texts.iter_mut().filter(|(_, t)| t.contains(&placeholder)) {
            **t = paste_one(t, &placeholder, text);
            found = true;
        }
        if !found {
            let what =
                format!("is a string to paste over `{placeholder}`, which no source of the effect contains");
            return Err(at(span.clone(), EffectErrorKind::BadDef { name: name.clone(), what }));
        }
    }
    for (file, t) in &texts {
        if let Some((offset, name)) = placeholder_in(t) {
            let what =
                format!("is pasted over `##{name}##` here, and no string in the effect's [defs] sets it");
            return Err(EffectError {
                file: (*file).to_owned(),
                location: Some(crate::effect::source::sites::locate(t, offset)),
                kind: Box::new(EffectErrorKind::BadDef { name: name.to_owned(), what }),
            });
        }
    }
    Ok(())
}

/// `text` with `placeholder` replaced by `value`, padded with spaces to the
/// placeholder's width where no name goes on after it: a column after it on
/// the same line is then the file's, in every error that points there. A
/// longer value shifts the columns after it by the difference.
fn paste_one(text: &str, placeholder: &str, value: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(placeholder) {
        out.push_str(&rest[..i]);
        out.push_str(value);
        rest = &rest[i + placeholder.len()..];
        let glued = rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        if !glued {
            out.extend(std::iter::repeat_n(' ', placeholder.len().saturating_sub(value.len())));
        }
    }
    out.push_str(rest);
    out
}

/// The first `##NAME##` in `text`: its offset and name.
fn placeholder_in(text: &str) -> Option<(usize, &str)> {
    text.match_indices("##").find_map(|(i, _)| {
        let rest = &text[i + 2..];
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
        let name = &rest[..end];
        let starts = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        (starts && rest[end..].starts_with("##")).then_some((i, name))
    })
}

/// The effect's source: its name in the effect file, its path and its text.
pub(in crate::effect) type Source<'a> = (&'a str, &'a str, &'a str);

/// Techniques (by name, with their range of passes), passes, and the stage
/// files the passes name, each read once.
#[allow(clippy::type_complexity, reason = "three lists that the effect keeps as they are")]
pub(in crate::effect) fn techniques(
    declared: Vec<TechniqueFile>,
    (flags, source): (&[String], Source<'_>),
    read: ReadStage<'_>,
    at: At<'_>,
) -> Result<(Vec<(String, Range<u32>)>, Vec<Pass>, Vec<StageSource>), EffectError> {
    let mut techniques = Vec::new();
    let mut passes = Vec::new();
    let mut stage_files: Vec<StageSource> = Vec::new();
    for t in declared {
        let start = passes.len() as u32;
        for p in t.pass {
            passes.push(pass(t.name.get_ref(), p, (flags, source), &mut stage_files, &mut *read, at)?);
        }
        techniques.push((t.name.into_inner(), start..passes.len() as u32));
    }
    Ok((techniques, passes, stage_files))
}

/// Why a pass's stages cannot go together, if they cannot: a render pass
/// has a vertex stage and maybe a fragment one, a compute pass only compute.
fn mixed_stages(vertex: bool, fragment: bool, compute: bool) -> Option<&'static str> {
    let render = vertex || fragment;
    match (render, compute) {
        (true, true) => Some("mixes a compute entry point with vertex or fragment ones"),
        (false, false) => Some("names neither a vertex nor a compute entry point"),
        _ if render && !vertex => Some("has a fragment but no vertex entry point"),
        _ => None,
    }
}

/// The flags a pass `requires` on, and those it requires off (`!FLAG`).
fn requires(
    name: &str,
    requires: &[toml::Spanned<String>],
    flags: &[String],
    at: At<'_>,
) -> Result<(Bits, Bits), EffectError> {
    let (mut required, mut excluded): (Bits, Bits) = (0, 0);
    for r in requires {
        let (off, flag) = match r.get_ref().strip_prefix('!') {
            Some(flag) => (true, flag.trim()),
            None => (false, r.get_ref().as_str()),
        };
        let Some(i) = flags.iter().position(|f| f == flag) else {
            let what = format!("requires `{flag}`, which is not one of the effect's flags");
            return Err(at(r.span(), EffectErrorKind::BadFlags(format!("pass `{name}` {what}"))));
        };
        match off {
            false => required |= 1 << i,
            true => excluded |= 1 << i,
        }
    }
    Ok((required, excluded))
}

/// The flags a stage of pass `name` is compiled `without`, as bits.
fn without_bits(
    name: &str,
    without: &[String],
    flags: &[String],
    span: Range<usize>,
    at: At<'_>,
) -> Result<Bits, EffectError> {
    let mut bits: Bits = 0;
    for flag in without {
        let Some(i) = flags.iter().position(|f| f == flag) else {
            let what = format!(
                "pass `{name}`'s stage is `without` `{flag}`, which is not one of the effect's flags"
            );
            return Err(at(span, EffectErrorKind::BadFlags(what)));
        };
        bits |= 1 << i;
    }
    Ok(bits)
}

/// One pass of `technique`: its entry points, the stage files it takes them
/// from, and the flags it `requires`.
fn pass(
    technique: &str,
    p: PassFile,
    (flags, source): (&[String], Source<'_>),
    stage_files: &mut Vec<StageSource>,
    read: ReadStage<'_>,
    at: At<'_>,
) -> Result<Pass, EffectError> {
    let name = format!("{technique}.{}", p.name.get_ref());
    let bad = |what| at(p.name.span(), EffectErrorKind::BadPass { pass: name.clone(), what });
    let mut files: [Option<String>; 3] = Default::default();
    let mut parts = [0; 3];
    let mut entries: [Option<String>; 3] = Default::default();
    for (i, stage) in [p.vertex, p.fragment, p.compute].into_iter().enumerate() {
        let Some(stage) = stage else { continue };
        let span = stage.span();
        let (entry, from, stage_defs, without) = stage.into_inner().split();
        entries[i] = Some(entry);
        // Defs of the stage's own: the stage's module is a part of its own.
        let stage_defs =
            stage_defs.into_iter().map(|(n, v)| (n, toml::Spanned::new(span.clone(), v))).collect();
        let (defs, pastes) = defs(&stage_defs, flags, &[], "", at)?;
        if let Some((name, _, span)) = pastes.into_iter().next() {
            let what = "is a string; a stage's defs are booleans and integers (paste in the effect's [defs])";
            return Err(at(span, EffectErrorKind::BadDef { name, what: what.into() }));
        }
        let without_bits = without_bits(&name, &without, flags, span.clone(), at)?;
        let from = match from {
            Some(from) => from,
            None if !defs.is_empty() || without_bits != 0 => source.0.to_owned(),
            None => continue,
        };
        let same = |f: &StageSource| f.name == from && f.defs == defs && f.without == without_bits;
        let part = match stage_files.iter().position(same) {
            Some(at) => at,
            None => {
                let (path, text) = match from == source.0 {
                    true => (source.1.to_owned(), source.2.to_owned()),
                    false => read(&from).map_err(|e| at(span, EffectErrorKind::Io(e)))?,
                };
                stage_files.push(StageSource {
                    name: from.clone(),
                    file: path,
                    text,
                    defs,
                    without: without_bits,
                });
                stage_files.len() - 1
            }
        };
        parts[i] = part as u32 + 1;
        files[i] = Some(from);
    }
    let [vertex, fragment, compute] = entries;
    if let Some(what) = mixed_stages(vertex.is_some(), fragment.is_some(), compute.is_some()) {
        return Err(bad(what));
    }
    let (required, excluded) = requires(&name, &p.requires, flags, at)?;
    if required & excluded != 0 {
        let what = format!("pass `{name}` requires a flag both on and off");
        return Err(at(p.name.span(), EffectErrorKind::BadFlags(what)));
    }
    Ok(Pass {
        name,
        vertex,
        fragment,
        compute,
        blend: p.blend,
        cull: p.cull,
        depth: p.depth,
        color_write: p.color_write,
        requires: p.requires.into_iter().map(toml::Spanned::into_inner).collect(),
        required,
        excluded,
        files,
        parts,
    })
}
