//! `declare --rust` against reflection: the input picks a uniform block's
//! members (types from scalars to `mat4x4`, arrays of values, of structs and
//! of arrays, nested structs holding arrays, `@size`/`@align`, names that
//! are Rust keywords or padding). Whatever the registry accepts, its
//! generated Rust must parse as Rust (`syn`), and each field, into nested
//! structs, must lie where the derive would put it (`struct_members_at`, as
//! `#[derive(ShaderStruct)]` does): the member of that name, of that shape
//! (type, array count and stride), at that offset and size, in order and
//! without overlap; every member with a Rust form has its field.
#![no_main]

use std::collections::BTreeMap;
use std::sync::Mutex;

use freqbuf::reflect::{Member, MemberType, ShaderReflection, ShaderSource, ValueType};
use freqbuf::{BindingPoint, Registry, SlotPlan};
use freqbuf::shape::{FieldType, StructMember};
use libfuzzer_sys::fuzz_target;
use naga::ScalarKind::{Float, Sint, Uint};

const TYPES: &[&str] = &[
    "f32", "i32", "u32", "vec2<f32>", "vec3<f32>", "vec4<f32>", "vec2<i32>", "vec3<u32>", "vec4<u32>",
    "mat2x2<f32>", "mat2x3<f32>", "mat2x4<f32>", "mat3x2<f32>", "mat3x3<f32>", "mat3x4<f32>", "mat4x2<f32>",
    "mat4x3<f32>", "mat4x4<f32>", "array<vec4<f32>, 2>", "Inner", "array<Inner, 2>", "array<mat4x3<f32>, 3>",
    "array<array<vec4<f32>, 2>, 2>", "Outer", "array<Outer, 33>", "array<vec4<i32>, 40>",
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
        "struct Inner {{ a: f32, b: vec3<f32> }}\n\
         struct Outer {{ inner: Inner, @size(32) c: f32, lights: array<Inner, 2>, grid: array<array<vec4<f32>, 2>, 2> }}\n\
         struct Block {{\n{members}}}\n\
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
    let structs = parse_structs(&rust);
    let block = structs.get("Block").unwrap_or_else(|| panic!("no `Block`\n{rust}"));
    let members = slot.members().iter().map(|m| &m.member).collect::<Vec<_>>();
    compare(block, &members, &structs, &format!("{rust}\n{wgsl}"));
});

/// A generated field: the member it names, its Rust type, its offset, and
/// its array stride where it is an array.
struct Field {
    name: String,
    ty: String,
    offset: u32,
    stride: Option<u32>,
}

/// Every generated struct's fields, by struct name, from the text.
fn parse_structs(rust: &str) -> BTreeMap<String, Vec<Field>> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, Vec<Field>)> = None;
    let mut pending: Option<(Option<String>, u32, Option<u32>)> = None;
    for line in rust.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix("pub struct ").and_then(|l| l.strip_suffix(" {")) {
            current = Some((name.to_owned(), Vec::new()));
        } else if line == "}" {
            let (name, fields) = current.take().expect("a struct open");
            out.insert(name, fields);
        } else if let Some(attr) = line.strip_prefix("#[shader(").and_then(|a| a.strip_suffix(")]")) {
            let int = |key: &str| attr.split(key).nth(1).map(|s| s.split(',').next().unwrap().trim().parse().unwrap());
            let name = attr.split("name = \"").nth(1).and_then(|s| s.split('"').next()).map(str::to_owned);
            let stride = attr.contains("array").then(|| int("stride = ").expect("an array's stride"));
            pending = Some((name, int("offset = ").expect("an offset"), stride));
        } else if let (Some(field), Some((name, offset, stride))) = (line.strip_prefix("pub "), pending.take()) {
            let (ident, ty) = field.trim_end_matches(',').split_once(": ").expect("`ident: type`");
            let name = name.unwrap_or_else(|| ident.trim_start_matches("r#").to_owned());
            let fields = &mut current.as_mut().expect("a field inside a struct").1;
            fields.push(Field { name, ty: ty.to_owned(), offset, stride });
        }
    }
    out
}

/// Each field against its reflected member, where the derive puts it: the
/// member of that name and shape, at that offset, in order and without
/// overlap; and every member with a Rust form has its field.
fn compare(fields: &[Field], members: &[&Member], structs: &BTreeMap<String, Vec<Field>>, context: &str) {
    let mut end = 0;
    for f in fields {
        let m = members.iter().find(|m| m.name == f.name).unwrap_or_else(|| panic!("`{}` is no member\n{context}", f.name));
        let ty = field_type(f, structs);
        let [derived] = freqbuf::__derive::struct_members_at([("", ty, f.offset)]);
        assert!(derived.offset >= end, "`{}` overlaps the field before\n{context}", f.name);
        assert_eq!(derived.offset, m.offset, "`{}`\n{context}", f.name);
        // `@size` widens the member past its type; the field writes the type's bytes.
        assert!(derived.size <= m.size, "`{}`: {} of {} bytes\n{context}", f.name, derived.size, m.size);
        match (f.stride, &m.ty) {
            (Some(stride), elem) => {
                assert_eq!((stride, m.count), (m.stride, array_len(&f.ty)), "`{}`\n{context}", f.name);
                same(element(&f.ty), elem, structs, context);
            }
            (None, ty) => {
                assert_eq!(m.stride, 0, "`{}` is an array\n{context}", f.name);
                same(&f.ty, ty, structs, context);
            }
        }
        end = derived.offset + derived.size;
    }
    for m in members {
        let has_field = fields.iter().any(|f| f.name == m.name);
        assert_eq!(has_field, rust_form(m), "member `{}`\n{context}", m.name);
    }
}

/// A Rust type against one reflected value (an array's element, or a member).
fn same(rust: &str, ty: &MemberType, structs: &BTreeMap<String, Vec<Field>>, context: &str) {
    match ty {
        MemberType::Plain { value, .. } => assert_eq!(value_type(rust), *value, "{rust}\n{context}"),
        MemberType::Struct { fields, .. } => {
            let nested = structs.get(rust).unwrap_or_else(|| panic!("no struct `{rust}`\n{context}"));
            compare(nested, &fields.iter().collect::<Vec<_>>(), structs, context);
        }
        MemberType::Array { .. } => panic!("an array of arrays as `{rust}`\n{context}"),
    }
}

/// Whether the generator gives a member a field: not padding, and a 32-bit
/// value (every `f32` matrix), a struct, or a fixed array of those.
fn rust_form(m: &Member) -> bool {
    let value = |ty: &MemberType| match ty {
        MemberType::Plain { value, .. } => value.width == 4 && (value.columns == 1 || value.kind == Float),
        MemberType::Struct { .. } => true,
        MemberType::Array { .. } => false,
    };
    !m.name.starts_with("_pad") && value(&m.ty) && (m.stride == 0 || m.count > 0)
}

/// The derive's shape of a field, as its attributes and type say.
fn field_type(f: &Field, structs: &BTreeMap<String, Vec<Field>>) -> FieldType {
    match f.stride {
        Some(stride) => FieldType::array(shape(element(&f.ty), structs), array_len(&f.ty), stride),
        None => *shape(&f.ty, structs),
    }
}

/// Shapes made so far, by the text they come from: `FieldType` holds
/// `'static` references, and a map that keeps them keeps the leak checker quiet.
static SHAPES: Mutex<BTreeMap<String, &'static FieldType>> = Mutex::new(BTreeMap::new());

fn shape(rust: &str, structs: &BTreeMap<String, Vec<Field>>) -> &'static FieldType {
    let fields = structs.get(rust);
    let key = match fields {
        Some(fields) => fields.iter().map(|f| format!("{} {} {} {:?};", f.name, f.ty, f.offset, f.stride)).collect(),
        None => rust.to_owned(),
    };
    if let Some(shape) = SHAPES.lock().unwrap().get(&key) {
        return shape;
    }
    let shape = match fields {
        None => FieldType::Value(value_type(rust)),
        Some(fields) => {
            let members = fields
                .iter()
                .map(|f| freqbuf::__derive::struct_members_at([("", field_type(f, structs), f.offset)])[0])
                .collect::<Vec<StructMember>>();
            let members: &'static [StructMember] = Box::leak(members.into_boxed_slice());
            let align = members.iter().map(|m| m.ty.align()).max().unwrap_or(1);
            let size = members.last().map_or(0, |m| (m.offset + m.size).next_multiple_of(align));
            FieldType::Struct { name: "nested", members, size }
        }
    };
    let shape: &'static FieldType = Box::leak(Box::new(shape));
    SHAPES.lock().unwrap().insert(key, shape);
    shape
}

/// `[T; N]`: T, and N.
fn element(ty: &str) -> &str {
    ty.strip_prefix('[').and_then(|t| t.rsplit_once("; ")).expect("an array type").0
}

fn array_len(ty: &str) -> u32 {
    ty.trim_end_matches(']').rsplit_once("; ").expect("an array type").1.parse().expect("a length")
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
