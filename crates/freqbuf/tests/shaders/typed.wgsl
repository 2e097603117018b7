// A material block with every kind of field a typed block maps (and two it
// does not: padding and an array), copied word by word into `out`.
struct Material {
    color: vec4<f32>,
    roughness: f32,
    offset: vec3<f32>,
    layers: u32,
    basis: mat3x3<f32>,
    uv_scale: vec2<f32>,
    bias: i32,
    _pad: f32,
    weights: array<vec4<f32>, 2>,
}
@group(2) @binding(0) var<uniform> material: Material;
@group(2) @binding(1) var<storage, read_write> out: array<u32, 24>;

@compute @workgroup_size(1) fn main() {
    let m = material;
    for (var i = 0u; i < 4u; i++) { out[i] = bitcast<u32>(m.color[i]); }
    out[4] = bitcast<u32>(m.roughness);
    for (var i = 0u; i < 3u; i++) { out[5u + i] = bitcast<u32>(m.offset[i]); }
    out[8] = m.layers;
    for (var c = 0u; c < 3u; c++) {
        for (var r = 0u; r < 3u; r++) { out[9u + c * 3u + r] = bitcast<u32>(m.basis[c][r]); }
    }
    out[18] = bitcast<u32>(m.uv_scale.x);
    out[19] = bitcast<u32>(m.uv_scale.y);
    out[20] = bitcast<u32>(m.bias);
    out[21] = bitcast<u32>(m.weights[1].w);
}
