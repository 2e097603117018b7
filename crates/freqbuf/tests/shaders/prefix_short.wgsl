// Declares only the first two members of the shared material block.
struct MatPrefix {
    base_color: vec4<f32>,
    roughness: f32,
}
@group(2) @binding(0) var<uniform> material: MatPrefix;
@fragment fn fs() -> @location(0) vec4<f32> {
    return material.base_color * material.roughness;
}
