#define_import_path bevy_sprite::mesh2d_bindings

#import bevy_sprite::mesh2d_types::Mesh2d

@group(1) @binding(0) var<storage> mesh: array<Mesh2d>;
