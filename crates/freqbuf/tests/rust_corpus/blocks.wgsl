// Blocks whose Rust declarations must land every field at its reflected
// offset: arrays (of values, of structs, past std's 32 for `Default`, of
// arrays), nested structs, matrices of every shape, @size and @align,
// padding members and keyword names. Kept out of
// tests/shaders, whose WGSL declarations must reflect back: keywords.comp's
// member names are words WGSL reserves.
struct Inner { a: vec3<f32>, b: f32 }
struct ArrMid { before: f32, arr: array<vec3<f32>, 2>, after: f32, tail: vec2<f32> }
struct NestMid { before: f32, inner: Inner, after: f32 }
struct SizeAttr { @size(16) a: f32, b: f32, @align(32) c: vec2<f32>, d: u32 }
struct Mats {
    m32: mat3x2<f32>,
    after: f32,
    m23: mat2x3<f32>,
    m33: mat3x3<f32>,
    m43: mat4x3<f32>,
    m42: mat4x2<f32>,
    m34: mat3x4<f32>,
    last: f32,
}
struct Padded { x: f32, _pad0: f32, _pad1: vec2<f32>, y: vec4<f32> }
struct Keywords { box: f32, gen: f32, dyn: f32, in: f32 }
struct Light { position: vec3<f32>, range: f32, color: vec4<f32> }
struct Deep { inner: Inner, lights: array<Light, 2>, scale: f32 }
struct Arrays {
    lights: array<Light, 3>,
    weights: array<vec4<f32>, 2>,
    many: array<vec4<u32>, 40>,
    grid: array<array<vec4<f32>, 2>, 2>,
    frames: array<mat4x3<f32>, 2>,
    deep: Deep,
    end: f32,
}
@group(2) @binding(0) var<uniform> arr_mid: ArrMid;
@group(2) @binding(1) var<uniform> nest_mid: NestMid;
@group(2) @binding(2) var<uniform> size_attr: SizeAttr;
@group(2) @binding(3) var<uniform> mats: Mats;
@group(2) @binding(4) var<uniform> padded: Padded;
@group(2) @binding(5) var<uniform> keywords: Keywords;
@group(2) @binding(8) var<uniform> arrays: Arrays;
@compute @workgroup_size(1) fn main() {
    _ = arr_mid; _ = nest_mid; _ = size_attr; _ = mats; _ = padded; _ = keywords; _ = arrays;
}
