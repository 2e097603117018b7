#import bevy_sprite::mesh2d_view_bindings::view
#ifdef TONEMAP_IN_SHADER
#import bevy_core_pipeline::tonemapping::tone_mapping
#endif

struct VertexOutput {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
};

@vertex
fn vertex(
    @builtin(vertex_index) index: u32,
    @location(0) i_model_transpose_col0: vec4<f32>,
    @location(1) i_model_transpose_col1: vec4<f32>,
    @location(2) i_model_transpose_col2: vec4<f32>,
    @location(3) i_color: vec4<f32>,
    @location(4) i_uv_offset_scale: vec4<f32>,
) -> VertexOutput {
    var out: VertexOutput;
    let vertex_position = vec3<f32>(f32(index & 0x1u), f32((index & 0x2u) >> 1u), 0.0);
    out.clip_position = view.clip_from_world * vec4<f32>(
        dot(vec4(vertex_position, 1.0), i_model_transpose_col0),
        dot(vec4(vertex_position, 1.0), i_model_transpose_col1),
        dot(vec4(vertex_position, 1.0), i_model_transpose_col2),
        1.0,
    );
    out.uv = vec2<f32>(vertex_position.xy) * i_uv_offset_scale.zw + i_uv_offset_scale.xy;
    out.color = i_color;
    return out;
}

@group(#{MATERIAL_BIND_GROUP}) @binding(0) var sprite_texture: texture_2d<f32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(1) var sprite_sampler: sampler;

@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
    var color = in.color * textureSample(sprite_texture, sprite_sampler, in.uv);
#ifdef TONEMAP_IN_SHADER
    color = tone_mapping(color, view.color_grading_exposure);
#endif
#ifdef DEBAND_DITHER
    color = vec4(color.rgb + vec3(0.5 / 255.0), color.a);
#endif
    return color;
}
