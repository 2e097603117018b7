struct Frame {
    time: f32,
    resolution: vec2<f32>,
}
struct View {
    view_proj: mat4x4<f32>,
    eye: vec3<f32>,
    exposure: f32,
}
@group(0) @binding(0) var<uniform> frame: Frame;
@group(1) @binding(0) var<uniform> view: View;
@group(2) @binding(1) var albedo_tex: texture_2d<f32>;
@group(2) @binding(2) var albedo_smp: sampler;
@group(3) @binding(7) var<uniform> debug_view: vec4<f32>;

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    return view.view_proj * vec4<f32>(f32(i), frame.time, 0.0, 1.0);
}
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return textureSample(albedo_tex, albedo_smp, p.xy) * view.exposure;
}
