//! `[params]` values: TOML numbers laid out as a member's bytes.

use freqbuf::reflect::ValueType;

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
