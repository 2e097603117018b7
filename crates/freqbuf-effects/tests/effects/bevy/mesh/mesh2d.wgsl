// The mesh file: its vertex entry point serves every 2D material.
#import bevy_sprite::{
    mesh2d_bindings::mesh,
    mesh2d_view_bindings::view,
    mesh2d_vertex_output::VertexOutput,
}

const CORNERS = array<vec2<f32>, 6>(
    vec2(0.0, 0.0), vec2(1.0, 0.0), vec2(0.0, 1.0),
    vec2(0.0, 1.0), vec2(1.0, 0.0), vec2(1.0, 1.0),
);

@vertex
fn vertex(@builtin(vertex_index) corner: u32, @builtin(instance_index) instance: u32) -> VertexOutput {
    var out: VertexOutput;
    out.world_position = mesh[instance].world_from_local * vec4<f32>(CORNERS[corner], 0.0, 1.0);
    out.position = view.clip_from_world * out.world_position;
    out.tag = mesh[instance].tag;
#ifdef VERTEX_COLORS
    out.color = vec4<f32>(0.5);
#endif
    return out;
}
