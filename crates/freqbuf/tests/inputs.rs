//! Reflection inputs that once crashed or were misreported: nested arrays,
//! deep nesting, corrupt SPIR-V, every scalar width, and names that collide
//! once normalized.

use crate::common;

use common::gpu;
use common::scene::{Kind, Report, Rig, TestShader};
use freqbuf::error::ReflectErrorKind;
use freqbuf::reflect::{MemberType, ShaderReflection, ShaderSource};
use freqbuf::{Draw, Manager, SlotPlan};

fn wgsl(name: &str, src: &str) -> Result<ShaderReflection, freqbuf::error::ReflectError> {
    ShaderReflection::new(name, ShaderSource::Wgsl(src))
}

#[test]
fn nested_arrays_are_laid_out_and_addressable() {
    let s = wgsl("nested.wgsl", include_str!("shaders/nested.wgsl")).unwrap();
    let block = s.resources()[0].block.as_ref().unwrap();
    let c = &block.members[0];
    assert_eq!((c.name.as_str(), c.offset, c.size, c.count, c.stride), ("coeffs", 0, 432, 9, 48));
    let MemberType::Array { elem, count: 3, stride: 16, wgsl } = &c.ty else { panic!("{:?}", c.ty) };
    assert_eq!((wgsl.as_str(), elem.name()), ("array<vec4<f32>, 3>", "vec4<f32>"));
    // GLSL arrays of arrays keep std140 strides at both levels; naga orders the dimensions.
    let g = ShaderReflection::new(
        "nested.frag",
        ShaderSource::Glsl {
            source: "#version 450\nlayout(set = 0, binding = 2, std140) uniform Sh { vec4 a[3][9]; };\nlayout(location = 0) out vec4 o;\nvoid main() { o = a[1][1]; }",
            stage: freqbuf::naga::ShaderStage::Fragment,
        },
    )
    .unwrap();
    let a = &g.resources()[0].block.as_ref().unwrap().members[0];
    let MemberType::Array { count, stride: 16, .. } = a.ty else { panic!("{:?}", a.ty) };
    assert_eq!((a.count * count, a.stride, a.size), (27, count * 16, 432), "{a:?}");

    let mut r = freqbuf::Registry::new(SlotPlan::default());
    r.add(s).unwrap();
    let at = r.resolve("coeffs[8][2]", None).unwrap();
    assert_eq!(
        (at.offset(), at.value_type().unwrap().to_string().as_str(), at.count()),
        (8 * 48 + 2 * 16, "vec4<f32>", 1)
    );
    let row = r.resolve("coeffs[8]", None).unwrap();
    assert_eq!((row.offset(), row.size(), row.count()), (8 * 48, 48, 1));
    let e = r.resolve("coeffs[8][3]", None).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use parameter `coeffs[8][3]`: index 3 is out of range for `coeffs[8]` (count 3)"
    );
    let e = r.resolve("coeffs[8][2][0]", None).unwrap_err();
    assert_eq!(common::chain(&e), "cannot use parameter `coeffs[8][2][0]`: `coeffs[8][2]` is not an array");
    let e = r.resolve("scale[0][1]", None).unwrap_err();
    assert_eq!(common::chain(&e), "cannot use parameter `scale[0][1]`: `scale` is not an array");
}

const NESTED: TestShader = TestShader {
    tag: 41,
    wgsl: r#"
struct Sh { coeffs: array<array<vec4<f32>, 3>, 9>, scale: f32 }
@group(0) @binding(2) var<uniform> sh: Sh;
@compute @workgroup_size(1) fn main() { begin(41u); put4(sh.coeffs[0][1]); put4(sh.coeffs[8][2]); putf(sh.scale); }
"#,
    reports: &[
        Report { name: "coeffs[0][1]", kind: Kind::Vec4 },
        Report { name: "coeffs[8][2]", kind: Kind::Vec4 },
        Report { name: "scale", kind: Kind::F32 },
    ],
};

#[test]
fn shaders_see_nested_array_elements_set_by_path() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 1);
    let id = rig.register(&h.device, &mut m, &NESTED);
    m.frame().set_by_name("coeffs[8][2]", &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let row = m.param("coeffs[0]").unwrap();
    let bytes: Vec<u8> =
        bytemuck::cast_slice(&[0.0f32, 0.0, 0.0, 0.0, 5.0, 6.0, 7.0, 8.0, 0.0, 0.0, 0.0, 0.0]).to_vec();
    m.frame().set_bytes(row, &bytes).unwrap();
    m.frame().set_by_name("scale", &0.5f32).unwrap();
    m.flush(&h.queue).unwrap();
    let rec = &rig.run(h, &mut m, &[Draw::new(id)])[0];
    let f = rec[1..].iter().map(|&w| f32::from_bits(w)).collect::<Vec<_>>();
    assert_eq!(f, [5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 0.5]);
}

#[test]
fn structs_nested_too_deep_are_refused_not_a_stack_overflow() {
    let depth = 3000;
    let mut src = String::from("struct S0 { x: f32 }\n");
    for i in 1..depth {
        src += &format!("struct S{i} {{ inner: S{} }}\n", i - 1);
    }
    src += &format!("@group(0) @binding(0) var<uniform> u: S{};\n", depth - 1);
    src += "@fragment fn fs() -> @location(0) vec4<f32> { let k = u; return vec4<f32>(0.0); }\n";
    // naga itself recurses over the types; give it the stack a main thread has.
    let out = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || wgsl("deep.wgsl", &src).err())
        .unwrap();
    let e = out.join().unwrap().expect("an error");
    assert_eq!(e.kind, ReflectErrorKind::TooDeep { name: "u".into(), limit: 64 });
    assert_eq!(
        common::chain(&e),
        "cannot reflect deep.wgsl:3001:23: uniform `u` nests structs and arrays more than 64 levels deep"
    );
}

#[test]
fn spirv_that_makes_naga_panic_is_a_parse_error() {
    let module = freqbuf::naga::front::wgsl::parse_str(
        "@group(0) @binding(0) var<uniform> u: vec4<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return u; }",
    )
    .unwrap();
    let info = freqbuf::naga::valid::Validator::new(Default::default(), Default::default())
        .validate(&module)
        .unwrap();
    let mut words = freqbuf::naga::back::spv::write_vec(&module, &info, &Default::default(), None).unwrap();
    // OpTypeFloat (opcode 22, 3 words): make its width 24.
    let at = (5..words.len()).find(|&i| words[i] == (3 << 16 | 22)).expect("an OpTypeFloat");
    words[at + 2] = 24;
    let bytes: Vec<u8> = bytemuck::cast_slice(&words).to_vec();
    let e = ShaderReflection::new("f24.spv", ShaderSource::SpirV(&bytes)).unwrap_err();
    assert!(
        matches!(
            e.kind,
            ReflectErrorKind::Panic { front: "SPIR-V front end", .. } | ReflectErrorKind::Spirv(_)
        ),
        "{e}"
    );
}

#[test]
fn type_names_are_right_for_every_scalar_width() {
    let s = wgsl(
        "wide.wgsl",
        "enable f16;\nstruct W { a: i64, b: vec2<u64>, c: f16, d: vec4<f16>, e: mat2x2<f16>, f: f32 }\n@group(0) @binding(0) var<uniform> w: W;\n@fragment fn fs() -> @location(0) vec4<f32> { let k = w; return vec4<f32>(0.0); }",
    )
    .unwrap();
    let names =
        s.resources()[0].block.as_ref().unwrap().members.iter().map(|m| m.ty.name()).collect::<Vec<_>>();
    assert_eq!(names, ["i64", "vec2<u64>", "f16", "vec4<f16>", "mat2x2<f16>", "f32"]);
}

#[test]
fn member_names_that_collide_once_normalized_are_an_error() {
    let mut module = freqbuf::naga::front::wgsl::parse_str(
        "struct B { x: f32, y: f32 }\n@group(0) @binding(0) var<uniform> b: B;\n@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(b.x + b.y); }",
    )
    .unwrap();
    let (h, ty) = module.types.iter().find(|(_, t)| t.name.as_deref() == Some("B")).unwrap();
    let mut ty = ty.clone();
    if let freqbuf::naga::TypeInner::Struct { members, .. } = &mut ty.inner {
        members[0].name = Some("a[0]".into());
        members[1].name = Some("a[1]".into());
    }
    module.types.replace(h, ty);
    let e = ShaderReflection::from_module("renamed", module).unwrap_err();
    assert_eq!(e.kind, ReflectErrorKind::DuplicateMember { block: "b".into(), member: "a".into() });
}

/// Inputs the fuzzers found that overflowed naga's recursion on an 8 MiB stack
/// (no artifact survives a stack overflow; these are their shapes, reduced by hand).
fn deep_inputs() -> Vec<(&'static str, ShaderSource<'static>)> {
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let parens = leak(format!(
        "#version 450\nlayout(set = 0, binding = 0) uniform U {{ float u; }};\nlayout(location = 0) out vec4 o;\nvoid main() {{ float x = {}u{}; o = vec4(x); }}",
        "(".repeat(6000),
        ")".repeat(6000)
    ));
    let chain = leak(format!(
        "#version 450\nlayout(set = 0, binding = 0) uniform U {{ float u; }};\nlayout(location = 0) out vec4 o;\nvoid main() {{ float x = u{}; o = vec4(x); }}",
        "+1.0".repeat(20000)
    ));
    let unary = leak(format!(
        "@group(0) @binding(0) var<uniform> u: f32;\n@fragment fn fs() -> @location(0) vec4<f32> {{ let x = {}u; return vec4<f32>(x); }}",
        "- ".repeat(20000)
    ));
    let frag = freqbuf::naga::ShaderStage::Fragment;
    vec![
        ("parens.frag", ShaderSource::Glsl { source: parens, stage: frag }),
        ("chain.frag", ShaderSource::Glsl { source: chain, stage: frag }),
        ("unary.wgsl", ShaderSource::Wgsl(unary)),
    ]
}

#[test]
fn deeply_nested_source_does_not_overflow_the_stack() {
    // The test thread has cargo's 2 MiB stack: less than the 8 MiB these once overflowed.
    for (name, source) in deep_inputs() {
        match ShaderReflection::new(name, source) {
            Ok(s) => {
                let Some(h) = gpu::device() else { continue };
                let mut m = Manager::new(&h.device, SlotPlan::default());
                match m.register(s) {
                    Ok(id) => drop(m.create_shader_module(id).unwrap()),
                    Err(e) => eprintln!("{name}: refused: {e}"),
                }
            }
            Err(e) => eprintln!("{name}: refused: {e}"),
        }
    }
}
