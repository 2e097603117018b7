#define_import_path bevy_sprite::mesh2d_vertex_output

struct VertexOutput {
    @builtin(position) position: vec4<f32>,
    @location(0) world_position: vec4<f32>,
    @location(1) tag: vec4<f32>,
#ifdef VERTEX_COLORS
    @location(2) color: vec4<f32>,
#endif
}
