//! Effects with other values for their `[defs]`: one pipeline request may
//! want four shadow cascades where the file says one.

use naga_oil::compose::ShaderDefValue;

use crate::effect::library::Effects;
use crate::effect::source::defs::DefValue;
use crate::effect::types::EffectId;
use crate::error::{EffectError, EffectErrorKind};

impl Effects {
    /// Defs that every effect loaded after this call gets, over its file's
    /// `[defs]`: those a renderer sets in code (Bevy's `MATERIAL_BIND_GROUP`),
    /// the CLI's `--def`. Replaces the previous call's. A name that is one of
    /// a later effect's flags is [`EffectErrorKind::BadDef`] when it loads.
    ///
    /// A name that is not a WGSL identifier (`A B`, `1X`, a keyword such as
    /// `fn`), or one given twice, is [`EffectErrorKind::BadDef`], and the
    /// previous defs stay.
    pub fn set_defs(&mut self, values: &[(&str, DefValue)]) -> Result<(), EffectError> {
        check_code_defs(values)?;
        self.code_defs = values.iter().map(|&(n, v)| (n.to_owned(), v.to_naga_oil())).collect();
        Ok(())
    }

    /// The effect `id` with some of its `[defs]` given other values: an
    /// effect of its own (its own permutations and pipelines, found with
    /// [`Effects::technique`] and [`Effects::flags`] on the returned id), in
    /// the same family, so its materials are the base effect's material type.
    /// Asking again with the same values returns the same id.
    ///
    /// A name that is not one of the effect's defs, or a value of another
    /// kind than the file gives it (a boolean for a count), is
    /// [`EffectErrorKind::BadDef`]. Cost: a clone of the effect's texts the
    /// first time.
    pub fn with_defs(&mut self, id: EffectId, values: &[(&str, DefValue)]) -> Result<EffectId, EffectError> {
        let base = self.checked(id, "effect id")?;
        let mut defs = base.defs.clone();
        for &(name, value) in values {
            let bad = |what: String| EffectError {
                file: base.name.clone(),
                location: None,
                kind: Box::new(EffectErrorKind::BadDef { name: name.to_owned(), what }),
            };
            if base.pasted.iter().any(|p| p == name) {
                return Err(bad(format!(
                    "is a string, pasted over `##{name}##` at load; with_defs cannot change it"
                )));
            }
            let Some(def) = defs.iter_mut().find(|(n, _)| n == name) else {
                let known = base.defs.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ");
                return Err(bad(format!("is not one of the effect's [defs] ({known})")));
            };
            let value = value.to_naga_oil();
            if std::mem::discriminant(&def.1) != std::mem::discriminant(&value) {
                return Err(bad(format!(
                    "is {} in [defs], and was given {}",
                    def_kind(&def.1),
                    def_kind(&value)
                )));
            }
            def.1 = value;
        }
        let key = format!("{defs:?}");
        if let Some(copy) = self.catalog.copy(id.index, &key) {
            return Ok(copy);
        }
        if defs == base.defs {
            return Ok(id);
        }
        let mut effect = base.clone();
        let text = changed_defs(&defs, &base.defs).map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>();
        effect.name = format!("{}{{{}}}", base.name, text.join(","));
        effect.defs = defs;
        Ok(self.catalog.push_copy(id.index, key, effect))
    }
}

/// A def value's kind, for messages: `a boolean`.
pub(in crate::effect) fn def_kind(v: &ShaderDefValue) -> &'static str {
    match v {
        ShaderDefValue::Bool(_) => "a boolean",
        ShaderDefValue::Int(_) => "a signed integer",
        ShaderDefValue::UInt(_) => "an unsigned integer",
    }
}

/// The defs of `defs` whose values differ from `base`'s (the same names in
/// the same order, as `with_defs` keeps them), as (name, value text): what a
/// `with_defs` copy's name and the pipeline log show.
pub(in crate::effect) fn changed_defs<'a>(
    defs: &'a [(String, ShaderDefValue)],
    base: &'a [(String, ShaderDefValue)],
) -> impl Iterator<Item = (&'a str, String)> {
    defs.iter().zip(base).filter(|(a, b)| a != b).map(|((name, v), _)| (name.as_str(), value_text(v)))
}

/// A def's value as text: `true`, `4`, `-1`.
fn value_text(v: &ShaderDefValue) -> String {
    match v {
        ShaderDefValue::Bool(b) => b.to_string(),
        ShaderDefValue::Int(i) => i.to_string(),
        ShaderDefValue::UInt(u) => u.to_string(),
    }
}

/// `text`, as [`value_text`] writes it, read as a value of `like`'s kind;
/// `None` where it is not one.
pub(in crate::effect) fn parse_value(like: &ShaderDefValue, text: &str) -> Option<DefValue> {
    match like {
        ShaderDefValue::Bool(_) => text.parse().ok().map(DefValue::Bool),
        ShaderDefValue::Int(_) => text.parse().ok().map(DefValue::Int),
        ShaderDefValue::UInt(_) => text.parse().ok().map(DefValue::UInt),
    }
}

/// What a def's name must be: a WGSL identifier, since WESL sees it as
/// `constants::NAME` and `@if(NAME)`, and naga_oil as `#ifdef NAME`. `None`
/// when it is one, else why not.
pub(crate) fn def_name_problem(name: &str) -> Option<String> {
    let mut chars = name.chars();
    let ident = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_');
    if !ident {
        return Some("is not an identifier (a letter or `_`, then letters, digits or `_`)".into());
    }
    if name == "_" || name.starts_with("__") {
        return Some("is not a WGSL identifier (`_` alone, or a leading `__`)".into());
    }
    if naga::keywords::wgsl::RESERVED.contains(&name) {
        return Some("is a WGSL keyword or reserved word".into());
    }
    None
}

/// Defs given in code (`set_defs`, `reflect_wesl`, the CLI's `--def`): each
/// name an identifier, none twice.
pub(crate) fn check_code_defs(values: &[(&str, DefValue)]) -> Result<(), EffectError> {
    let bad = |name: &str, what: String| EffectError {
        file: "defs set in code (`set_defs`, `--def`)".into(),
        location: None,
        kind: Box::new(EffectErrorKind::BadDef { name: name.to_owned(), what }),
    };
    for (i, &(name, _)) in values.iter().enumerate() {
        if let Some(what) = def_name_problem(name) {
            return Err(bad(name, what));
        }
        if values[..i].iter().any(|&(n, _)| n == name) {
            return Err(bad(name, "is given twice".into()));
        }
    }
    Ok(())
}
