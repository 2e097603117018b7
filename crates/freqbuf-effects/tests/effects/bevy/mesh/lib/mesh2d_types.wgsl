#define_import_path bevy_sprite::mesh2d_types

struct Mesh2d {
    world_from_local: mat4x4<f32>,
    tag: vec4<f32>,
    flags: u32,
};
