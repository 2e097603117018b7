//! Valued defs as a user gives them: the input picks up to six defs (a
//! boolean, true or false, or an integer), where each is given (the effect
//! file's `[defs]`, `Effects::set_defs` as the CLI's `--def` does, or
//! `with_defs` on a declared one) and how the source tests it (`#ifdef`,
//! `#ifndef`, `#if NAME == value`). Each test gates a member of the
//! material block; the members the merged block holds must be exactly those
//! a model of the contract picks: a `false` boolean is undefined for
//! `#ifdef`/`#ifndef`, and `with_defs` and `set_defs` override `[defs]`.
#![no_main]

use freqbuf::{BindingPoint, Registry, SlotPlan};
use freqbuf_effects::{DefValue, Effects};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut toml = String::from("source = \"fuzz.wgsl\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  vertex = \"vs\"\n  fragment = \"fs\"\n[defs]\n");
    let mut body = String::from("struct M {\n    base: vec4<f32>,\n");
    let (mut code, mut later) = (Vec::new(), Vec::new());
    let mut want = vec!["base".to_owned()];
    for (i, d) in data.chunks_exact(3).take(6).enumerate() {
        let name = format!("D{i}");
        // The value: a boolean or a small integer (both signs).
        let value = match d[0] % 3 {
            0 => DefValue::Bool(d[1] & 1 == 1),
            1 => DefValue::Int(i32::from(d[1] as i8) % 4),
            _ => DefValue::UInt(u32::from(d[1] % 4)),
        };
        let literal = |v: DefValue| match v {
            DefValue::Bool(b) => b.to_string(),
            DefValue::Int(n) => n.to_string(),
            DefValue::UInt(n) => format!("{n}"),
        };
        // Where it is given: [defs] only, set_defs only, or [defs] then with_defs.
        let given = match d[2] % 3 {
            0 => {
                toml.push_str(&format!("{name} = {}\n", literal(value)));
                value
            }
            1 => {
                code.push((name.clone(), value));
                value
            }
            _ => {
                // Declared with another value of the same type (a TOML
                // integer is unsigned unless negative), then given `value`.
                let first = match value {
                    DefValue::Bool(b) => DefValue::Bool(!b),
                    DefValue::Int(n) => DefValue::Int(-1 - n.abs()),
                    DefValue::UInt(n) => DefValue::UInt(n + 1),
                };
                toml.push_str(&format!("{name} = {}\n", literal(first)));
                later.push((name.clone(), value));
                value
            }
        };
        let test = d[2] / 3 % 2;
        match (given, test) {
            (DefValue::Bool(on), 0) => {
                body.push_str(&format!("#ifdef {name}\n    on{i}: f32,\n#else\n    off{i}: f32,\n#endif\n"));
                want.push(format!("{}{i}", if on { "on" } else { "off" }));
            }
            (DefValue::Bool(on), _) => {
                body.push_str(&format!("#ifndef {name}\n    off{i}: f32,\n#endif\n"));
                if !on {
                    want.push(format!("off{i}"));
                }
            }
            (v, _) => {
                let probe = d[1] / 4 % 4;
                let equal = match v {
                    DefValue::Int(n) => i64::from(n) == i64::from(probe),
                    DefValue::UInt(n) => n == u32::from(probe),
                    DefValue::Bool(_) => unreachable!(),
                };
                body.push_str(&format!("#if {name} == {probe}\n    eq{i}: f32,\n#else\n    ne{i}: f32,\n#endif\n"));
                want.push(format!("{}{i}", if equal { "eq" } else { "ne" }));
            }
        }
    }
    body.push_str("}\n@group(2) @binding(0) var<uniform> material: M;\n");
    body.push_str("@vertex fn vs() -> @builtin(position) vec4<f32> { return material.base; }\n");
    body.push_str("@fragment fn fs() -> @location(0) vec4<f32> { let m = material; return m.base; }\n");
    let mut fx = Effects::new();
    let code_refs = code.iter().map(|(n, v)| (n.as_str(), *v)).collect::<Vec<_>>();
    fx.set_defs(&code_refs).expect("D0..D5 are identifiers, each given once");
    let effect = fx.add("fuzz.effect.toml", &toml, &body).unwrap_or_else(|e| panic!("{e:?}\n{toml}\n{body}"));
    let later_refs = later.iter().map(|(n, v)| (n.as_str(), *v)).collect::<Vec<_>>();
    let effect = if later.is_empty() {
        effect
    } else {
        fx.with_defs(effect, &later_refs).unwrap_or_else(|e| panic!("{e:?}\n{toml}\n{later:?}"))
    };
    let mut merged = Registry::new(SlotPlan::default());
    fx.merge(&mut merged, effect, None).unwrap_or_else(|e| panic!("{e:?}\n{toml}\n{body}"));
    let slot = &merged[merged.slot_at(BindingPoint::new(2, 0)).expect("the material block")];
    let mut got = slot.members().iter().map(|m| m.member.name.clone()).collect::<Vec<_>>();
    got.sort();
    want.sort();
    assert_eq!(got, want, "\n{toml}\n{body}\nset_defs {code:?}\nwith_defs {later:?}");
});
