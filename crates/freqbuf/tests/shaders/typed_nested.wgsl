// A view block of arrays and nested structs, as a renderer keeps it:
// lights as an array of structs, fog as a nested struct, cascades as an
// array of vectors, shadow matrices as an array of matrices. Copied word by
// word into `out`, field by field.
struct Light { position: vec3<f32>, range: f32, color: vec4<f32> }
struct Fog { color: vec3<f32>, density: f32 }
struct View {
    lights: array<Light, 4>,
    fog: Fog,
    cascades: array<vec4<f32>, 3>,
    shadows: array<mat4x3<f32>, 2>,
    count: u32,
}
@group(2) @binding(0) var<uniform> view: View;
@group(2) @binding(1) var<storage, read_write> out: array<u32, 73>;

@compute @workgroup_size(1) fn main() {
    let v = view;
    for (var l = 0u; l < 4u; l++) {
        for (var i = 0u; i < 3u; i++) { out[l * 8u + i] = bitcast<u32>(v.lights[l].position[i]); }
        out[l * 8u + 3u] = bitcast<u32>(v.lights[l].range);
        for (var i = 0u; i < 4u; i++) { out[l * 8u + 4u + i] = bitcast<u32>(v.lights[l].color[i]); }
    }
    for (var i = 0u; i < 3u; i++) { out[32u + i] = bitcast<u32>(v.fog.color[i]); }
    out[35] = bitcast<u32>(v.fog.density);
    for (var c = 0u; c < 3u; c++) {
        for (var i = 0u; i < 4u; i++) { out[36u + c * 4u + i] = bitcast<u32>(v.cascades[c][i]); }
    }
    for (var s = 0u; s < 2u; s++) {
        for (var c = 0u; c < 4u; c++) {
            for (var r = 0u; r < 3u; r++) { out[48u + s * 12u + c * 3u + r] = bitcast<u32>(v.shadows[s][c][r]); }
        }
    }
    out[72] = v.count;
}
