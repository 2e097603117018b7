#import bevy_sprite::mesh2d_view_bindings::view
#import bevy_core_pipeline::tonemapping::tone_mapping

struct Tint { color: vec4<f32> }
@group(1) @binding(0) var<uniform> tint: Tint;

@vertex
fn vertex(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    return view.clip_from_world * vec4<f32>(f32(index & 1u), f32(index >> 1u), 0.0, 1.0);
}

@fragment
fn fragment() -> @location(0) vec4<f32> {
#ifdef TONEMAP_IN_SHADER
    return tone_mapping(tint.color, view.exposure);
#else
    return tint.color;
#endif
}
