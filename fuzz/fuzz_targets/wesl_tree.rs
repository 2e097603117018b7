//! WESL package trees as Bevy writes them, generated: up to four flags, a
//! material struct in a package module whose members each sit behind an
//! `@if` over the flags (or none), one member an array sized by a `[defs]`
//! constant, one a struct from a second module by its qualified path, and
//! the bind group from `constants`. Every allowed permutation is compiled by
//! the effects layer, and its material block must equal what naga reflects
//! from the WGSL the model writes by hand for that permutation. Any refusal
//! of these valid trees is a finding too.
#![no_main]

use arbitrary::Arbitrary;
use freqbuf::reflect::{ShaderReflection, ShaderSource};
use freqbuf::{BindingPoint, Registry, SlotPlan};
use freqbuf_effects::Effects;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    flags: u8,
    /// (type, condition kind, flag a, flag b) per member.
    members: Vec<(u8, u8, u8, u8)>,
    count: u8,
    group: u8,
}

const TYPES: [&str; 7] = ["f32", "vec2<f32>", "vec3<f32>", "vec4<f32>", "mat4x4<f32>", "ARRAY", "LIGHT"];
const LIGHT: &str = "struct Light { color: vec4<f32>, power: f32 }\n";
const STAGES: &str = "@vertex fn vertex() -> @builtin(position) vec4<f32> { return vec4(0.0, 0.0, 0.0, 1.0); }
@fragment fn fragment() -> @location(0) vec4<f32> { return material.base; }\n";

/// A member's `@if` expression, and whether it holds with `on` (bit i: flag Fi).
fn condition(kind: u8, a: u8, b: u8, on: u32) -> (Option<String>, bool) {
    let f = |i: u8| on & (1 << i) != 0;
    match kind % 5 {
        0 => (None, true),
        1 => (Some(format!("F{a}")), f(a)),
        2 => (Some(format!("!F{a}")), !f(a)),
        3 => (Some(format!("F{a} && F{b}")), f(a) && f(b)),
        _ => (Some(format!("F{a} || !F{b}")), f(a) || !f(b)),
    }
}

fuzz_target!(|input: Input| {
    let flags = 1 + input.flags % 4;
    let (count, group) = (1 + input.count % 4, input.group % 4);
    let members = input.members.iter().take(8).map(|&(t, k, a, b)| (t, k, a % flags, b % flags)).collect::<Vec<_>>();
    let ty = |t: u8, wesl: bool| match TYPES[t as usize % TYPES.len()] {
        "ARRAY" if wesl => "array<vec4<f32>, constants::N>".to_owned(),
        "ARRAY" => format!("array<vec4<f32>, {count}>"),
        "LIGHT" if wesl => "shared::m1::Light".to_owned(),
        "LIGHT" => "Light".to_owned(),
        other => other.to_owned(),
    };
    // The package module, with every member behind its `@if`.
    let mut m0 = String::from("struct Material {\n    base: vec4<f32>,\n");
    for (k, &(t, kind, a, b)) in members.iter().enumerate() {
        if let (Some(test), _) = condition(kind, a, b, 0) {
            m0 += &format!("    @if({test})\n");
        }
        m0 += &format!("    m{k}: {},\n", ty(t, true));
    }
    m0 += "}\n@group(constants::MATERIAL_BIND_GROUP) @binding(0) var<uniform> material: Material;\n";
    let names = (0..flags).map(|i| format!("\"F{i}\"")).collect::<Vec<_>>().join(", ");
    let toml = format!(
        "source = \"fuzz.wesl\"\nflags = [{names}]\n[packages]\nshared = \".\"\n[defs]\nMATERIAL_BIND_GROUP = {group}\nN = {count}\n\
         [[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  vertex = \"vertex\"\n  fragment = \"fragment\"\n"
    );
    let source = format!("import shared::m0::material;\n{STAGES}");
    let files = [("fuzz.wesl", source.as_str()), ("m0.wesl", m0.as_str()), ("m1.wesl", LIGHT)];
    let mut fx = Effects::new();
    let effect = fx.add_files("fuzz.effect.toml", &toml, &files).unwrap_or_else(|e| panic!("{e:?}\n{m0}"));
    let at = BindingPoint::new(u32::from(group), 0);
    for on in 0..1u32 << flags {
        let set = (0..flags).filter(|i| on & (1 << i) != 0).map(|i| format!("F{i}")).collect::<Vec<_>>();
        let set = set.iter().map(String::as_str).collect::<Vec<_>>();
        let flag_set = fx.flags(effect, &set).expect("no flag rules");
        let mut compiled = Registry::new(SlotPlan::default());
        fx.merge(&mut compiled, effect, Some(flag_set)).unwrap_or_else(|e| panic!("{set:?}: {e:?}\n{m0}"));
        // The model: the permutation's WGSL, written out by hand.
        let mut wgsl = format!("{LIGHT}struct Material {{\n    base: vec4<f32>,\n");
        for (k, &(t, kind, a, b)) in members.iter().enumerate() {
            if condition(kind, a, b, on).1 {
                wgsl += &format!("    m{k}: {},\n", ty(t, false));
            }
        }
        wgsl += &format!("}}\n@group({group}) @binding(0) var<uniform> material: Material;\n{STAGES}");
        let model = ShaderReflection::new("model.wgsl", ShaderSource::Wgsl(&wgsl)).expect("the model is valid WGSL");
        let mut expected = Registry::new(SlotPlan::default());
        expected.add(model).expect("one shader");
        let layout = |r: &Registry| {
            let slot = r.slot_at(at).expect("the material slot");
            r[slot].members().iter().map(|m| {
                let m = &m.member;
                (m.name.clone(), m.offset, m.size, m.count, m.stride)
            }).collect::<Vec<_>>()
        };
        assert_eq!(layout(&compiled), layout(&expected), "{set:?}\n{m0}\n{wgsl}");
    }
});
