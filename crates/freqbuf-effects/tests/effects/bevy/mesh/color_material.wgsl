// A 2D material: only a fragment entry point; the vertex stage is mesh2d.wgsl's.
#import bevy_sprite::{
    mesh2d_vertex_output::VertexOutput,
    mesh2d_view_bindings::view,
}

struct ColorMaterial {
    color: vec4<f32>,
    flags: u32,
    alpha_cutoff: f32,
};

@group(#{MATERIAL_BIND_GROUP}) @binding(0) var<uniform> material: ColorMaterial;
@group(#{MATERIAL_BIND_GROUP}) @binding(1) var texture: texture_2d<f32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(2) var texture_sampler: sampler;

@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
    var out = material.color * textureSample(texture, texture_sampler, vec2<f32>(0.5)) + in.tag;
#ifdef VERTEX_COLORS
    out = out * in.color;
#endif
    return out * view.exposure;
}
