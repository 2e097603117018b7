#define_import_path bevy_render::view

struct View {
    clip_from_world: mat4x4<f32>,
    world_position: vec3<f32>,
    exposure: f32,
    viewport: vec4<f32>,
    color_grading_exposure: f32,
}
