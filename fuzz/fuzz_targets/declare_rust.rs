//! `declare --rust` against reflection: the input picks a uniform block's
//! members (types from scalars to `mat4x4`, arrays, a nested struct,
//! `@size`/`@align`, names that are Rust keywords or padding). Whatever the
//! registry accepts, its generated Rust must parse as Rust (`syn`), and each
//! field must lie where the derive would put it (`struct_members_at`, as
//! `#[derive(ShaderStruct)]` does): the member of that name, of that type,
//! at that offset and size, in order and without overlap; every member with
//! a Rust form has its field.
#![no_main]

use freqbuf::reflect::{MemberType, ShaderReflection, ShaderSource, ValueType};
use freqbuf::{BindingPoint, Registry, SlotPlan};
use libfuzzer_sys::fuzz_target;
use naga::ScalarKind::{Float, Sint, Uint};

const TYPES: &[&str] = &[
    "f32", "i32", "u32", "vec2<f32>", "vec3<f32>", "vec4<f32>", "vec2<i32>", "vec3<u32>", "vec4<u32>",
    "mat2x2<f32>", "mat2x3<f32>", "mat2x4<f32>", "mat3x2<f32>", "mat3x3<f32>", "mat3x4<f32>", "mat4x2<f32>",
    "mat4x3<f32>", "mat4x4<f32>", "array<vec4<f32>, 2>", "Inner", "array<Inner, 2>",
];
const NAMES: &[&str] = &[
    "a", "b", "color", "worldMatrix", "x_y", "type", "box", "yield", "gen", "macro", "try", "Self", "crate",
    "super", "_pad0", "_padding", "pad", "match", "r", "dyn",
];

fuzz_target!(|data: &[u8]| {
    let Some((&n, rest)) = data.split_first() else { return };
    let mut members = String::new();
    for (i, m) in rest.chunks_exact(3).take(1 + n as usize % 8).enumerate() {
        let ty = TYPES[m[0] as usize % TYPES.len()];
        let name = NAMES[m[1] as usize % NAMES.len()];
        let attr = match m[2] % 8 {
            0 => "@size(64) ".to_owned(),
            1 => "@align(16) ".to_owned(),
            2 => "@align(32) ".to_owned(),
            3 => format!("@size({}) ", 16 * (1 + m[2] as u32 / 8 % 4)),
            _ => String::new(),
        };
        // A name twice is the reflector's to refuse; a suffix keeps most inputs apart.
        let name = if m[2] & 0x80 != 0 { format!("{name}{i}") } else { name.to_owned() };
        members.push_str(&format!("    {attr}{name}: {ty},\n"));
    }
    let wgsl = format!(
        "struct Inner {{ a: f32, b: vec3<f32> }}\nstruct Block {{\n{members}}}\n\
         @group(2) @binding(0) var<uniform> blk: Block;\n\
         @fragment fn fs() -> @location(0) vec4<f32> {{ let x = blk; return vec4<f32>(0.0); }}\n"
    );
    let Ok(shader) = ShaderReflection::new("fuzz.wgsl", ShaderSource::Wgsl(&wgsl)) else { return };
    let mut registry = Registry::new(SlotPlan::default());
    if registry.add(shader).is_err() {
        return;
    }
    let rust = registry.rust_declarations();
    if let Err(e) = syn::parse_file(&rust) {
        panic!("generated Rust does not parse: {e}\n{rust}\n{wgsl}");
    }
    let slot = &registry[registry.slot_at(BindingPoint::new(2, 0)).expect("the block's slot")];
    let fields = parse_fields(&rust);
    let mut end = 0;
    for (name, ty, offset) in &fields {
        let m = slot.member(name).unwrap_or_else(|| panic!("field `{name}` is no member\n{rust}\n{wgsl}"));
        let [derived] = freqbuf::__derive::struct_members_at([("", *ty, *offset)]);
        assert!(derived.offset >= end, "`{name}` overlaps the field before\n{rust}");
        assert_eq!(derived.offset, m.offset, "`{name}`\n{rust}\n{wgsl}");
        // `@size` widens the member past its type; the field writes the type's bytes.
        assert!(derived.size <= m.size, "`{name}`: {} of {} bytes\n{rust}\n{wgsl}", derived.size, m.size);
        assert!(matches!(m.ty, MemberType::Plain { value, .. } if value == *ty) && !m.is_array(), "`{name}`");
        end = derived.offset + derived.size;
    }
    for m in slot.members().iter().map(|m| &m.member) {
        let rust_form = matches!(&m.ty, MemberType::Plain { value, .. }
            if !m.is_array() && value.width == 4 && (value.columns == 1 || value.kind == Float));
        let padding = m.name.starts_with("_pad");
        let has_field = fields.iter().any(|(n, ..)| *n == m.name);
        assert_eq!(has_field, rust_form && !padding, "member `{}`\n{rust}\n{wgsl}", m.name);
    }
});

/// `(member name, type, offset)` of every field, from the generated text.
fn parse_fields(rust: &str) -> Vec<(String, ValueType, u32)> {
    let mut out = Vec::new();
    let mut pending: Option<(Option<String>, u32)> = None;
    for line in rust.lines().map(str::trim) {
        if let Some(attr) = line.strip_prefix("#[shader(").and_then(|a| a.strip_suffix(")]")) {
            let name = attr.split("name = \"").nth(1).and_then(|s| s.split('"').next()).map(str::to_owned);
            let offset = attr.rsplit("offset = ").next().and_then(|o| o.parse().ok()).expect("an offset");
            pending = Some((name, offset));
        } else if let (Some(field), Some((name, offset))) = (line.strip_prefix("pub "), pending.take()) {
            let (ident, ty) = field.trim_end_matches(',').split_once(": ").expect("`ident: type`");
            let name = name.unwrap_or_else(|| ident.trim_start_matches("r#").to_owned());
            out.push((name, value_type(ty), offset));
        }
    }
    out
}

/// The WGSL shape of a generated field type: `f32`, `[u32; 3]`, `[[f32; 3]; 2]`.
fn value_type(ty: &str) -> ValueType {
    let scalar = |s: &str| match s {
        "f32" => Float,
        "i32" => Sint,
        "u32" => Uint,
        other => panic!("field type {other}"),
    };
    let count = |s: &str| s.trim().parse::<u8>().expect("a length");
    if let Some(inner) = ty.strip_prefix("[[").and_then(|t| t.strip_suffix(']')) {
        let (col, cols) = inner.rsplit_once("; ").expect("a matrix");
        let (s, rows) = col.trim_end_matches(']').split_once("; ").expect("a column");
        ValueType { kind: scalar(s), width: 4, columns: count(cols), rows: count(rows) }
    } else if let Some(inner) = ty.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let (s, rows) = inner.split_once("; ").expect("a vector");
        ValueType { kind: scalar(s), width: 4, columns: 1, rows: count(rows) }
    } else {
        ValueType::scalar(scalar(ty), 4)
    }
}
