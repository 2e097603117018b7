//! `[params]` values: TOML numbers laid out as a member's bytes.

use std::collections::{BTreeMap, BTreeSet};

use freqbuf::reflect::ValueType;
use freqbuf::{Frequency, Registry};

use crate::error::{MaterialError, MaterialErrorKind};

/// A value set by name, kept so that a flag change or a child can apply it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Stored {
    pub(crate) ty: Option<ValueType>,
    pub(crate) bytes: Vec<u8>,
}

/// Checks an effect's `[params]` and `[auto]` tables (of family `family`)
/// against `merged`, a merge of its permutations: every default must fit its
/// member, every semantic its member's frequency and type. With `all`, every
/// name must resolve; without, a name `merged` lacks is skipped (another
/// permutation may declare it). Names `skip` holds are left out. Returns the
/// names that resolved.
pub(crate) fn check_tables(
    family: &str,
    params: &BTreeMap<String, toml::Value>,
    auto: &[(String, String)],
    merged: &Registry,
    all: bool,
    skip: Option<&BTreeSet<String>>,
) -> Result<BTreeSet<String>, MaterialError> {
    let mut found = BTreeSet::new();
    let mut present = |name: &str| {
        if skip.is_some_and(|s| s.contains(name)) {
            return false;
        }
        let here = merged.resolve_in(family, name, None).is_ok();
        if here {
            found.insert(name.to_owned());
        }
        all || here
    };
    let params = params.iter().filter(|(name, _)| present(name)).collect::<Vec<_>>();
    let auto = auto.iter().filter(|(member, _)| present(member)).collect::<Vec<_>>();
    for (name, value) in params {
        default_value(merged, family, name, value)?;
    }
    for (member, semantic) in auto {
        let entry = |mut e: MaterialError| {
            e.subject = format!("cannot take the [auto] entry `{member}` = `{semantic}`");
            e
        };
        super::auto::Semantic::parse(semantic)
            .and_then(|s| s.check(merged, Some(family), member))
            .map_err(entry)?;
    }
    Ok(found)
}

/// A `[params]` default as bytes for its member, found in the merged permutations.
pub(crate) fn default_value(
    merged: &Registry,
    family: &str,
    name: &str,
    value: &toml::Value,
) -> Result<Stored, MaterialError> {
    let param = merged.resolve_in(family, name, Some(Frequency::Material)).map_err(|e| MaterialError {
        subject: format!("cannot take the [params] default of `{name}`"),
        kind: Box::new(MaterialErrorKind::Manager(e.into())),
    })?;
    let ty = param.value_type();
    let bytes = params_bytes(value, ty, param.count()).map_err(|found| MaterialError {
        subject: format!("cannot take the [params] default of `{name}`"),
        kind: Box::new(MaterialErrorKind::BadValue {
            expected: ty.map_or_else(|| "a struct".into(), |t| t.to_string()),
            found: format!("{found} ({})", value_text(value)),
        }),
    })?;
    Ok(Stored { ty, bytes })
}

/// `value` (a number, or nested arrays of numbers) as the bytes of a member
/// of type `ty`, or what is wrong with it.
pub(crate) fn params_bytes(
    value: &toml::Value,
    ty: Option<ValueType>,
    count: u32,
) -> Result<Vec<u8>, String> {
    let ty = ty.ok_or("is given for a struct, which [params] cannot fill")?;
    if count > 1 {
        return Err("is given for an array, which [params] cannot fill".into());
    }
    if ty.width != 4 {
        return Err(format!("is given for {ty}, whose {}-byte scalars [params] cannot write", ty.width));
    }
    let mut flat = Vec::new();
    flatten(value, &mut flat)?;
    let n = ty.columns as usize * ty.rows as usize;
    if flat.len() != n {
        return Err(format!("has {} numbers, not {n}", flat.len()));
    }
    // Matrix columns are aligned like vectors: a 3-row column takes four scalars.
    let column = if ty.columns > 1 && ty.rows == 3 { 4 } else { ty.rows as usize };
    let mut bytes = Vec::with_capacity(ty.columns as usize * column * 4);
    for c in 0..ty.columns as usize {
        for r in 0..column {
            let Some(&x) = (r < ty.rows as usize).then(|| &flat[c * ty.rows as usize + r]) else {
                bytes.extend_from_slice(&[0; 4]);
                continue;
            };
            // Refused rather than clamped: `as` saturates out-of-range numbers.
            let word = match ty.kind {
                naga::ScalarKind::Float if (x as f32).is_finite() => (x as f32).to_bits(),
                naga::ScalarKind::Sint
                    if x.fract() == 0.0 && (i32::MIN as f64..=i32::MAX as f64).contains(&x) =>
                {
                    (x as i32) as u32
                }
                naga::ScalarKind::Uint if x.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&x) => {
                    x as u32
                }
                naga::ScalarKind::Bool if x == 0.0 || x == 1.0 => x as u32,
                _ => return Err(format!("has {}, which {ty} cannot hold", number(x))),
            };
            bytes.extend_from_slice(&word.to_le_bytes());
        }
    }
    Ok(bytes)
}

/// A number as a message shows it: exponent form where digits would run long.
fn number(x: f64) -> String {
    if x != 0.0 && !(1e-6..1e16).contains(&x.abs()) { format!("{x:e}") } else { format!("{x}") }
}

fn flatten(value: &toml::Value, out: &mut Vec<f64>) -> Result<(), String> {
    match value {
        toml::Value::Integer(i) => out.push(*i as f64),
        toml::Value::Float(f) => out.push(*f),
        toml::Value::Boolean(b) => out.push(f64::from(u8::from(*b))),
        toml::Value::Array(items) => {
            for v in items {
                flatten(v, out)?;
            }
        }
        other => return Err(format!("is a {}, not numbers", other.type_str())),
    }
    Ok(())
}

/// A TOML value as the file would spell it, for messages.
pub(crate) fn value_text(value: &toml::Value) -> String {
    value.to_string()
}
