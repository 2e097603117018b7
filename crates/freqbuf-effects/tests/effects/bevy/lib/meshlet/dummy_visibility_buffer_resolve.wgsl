// The dummy of visibility_buffer_resolve.wgsl (see there).
#define_import_path bevy_pbr::meshlet_visibility_buffer_resolve

fn resolve_vertex_output() -> f32 { return 0.0; }
