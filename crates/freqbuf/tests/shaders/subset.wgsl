// Declares only `emissive`, padding over the members it does not use.
struct MatSubset {
    _pad0: vec4<f32>,
    _pad1: vec4<f32>,
    emissive: vec3<f32>,
}
@group(2) @binding(0) var<uniform> material: MatSubset;
@fragment fn fs() -> @location(0) vec4<f32> {
    return vec4<f32>(material.emissive, 1.0);
}
