struct Mat {
    base_color: vec4<f32>,
    roughness: f32,
    metallic: f32,
    emissive: vec3<f32>,
    uv_scale: vec2<f32>,
}
@group(2) @binding(0) var<uniform> material: Mat;
@fragment fn fs() -> @location(0) vec4<f32> {
    return material.base_color * material.roughness + vec4<f32>(material.emissive, material.uv_scale.x);
}
