#define_import_path scene::common

// The engine's blocks, shared by every effect. Each effect declares its own
// material block at @group(2) @binding(0): a family of its own.
struct View { view_proj: mat4x4<f32> }
struct Object { world: mat4x4<f32> }

@group(1) @binding(0) var<uniform> view: View;
@group(3) @binding(0) var<uniform> object: Object;

/// Corner `i` of a unit quad (two triangles), in clip space.
fn corner(i: u32) -> vec4<f32> {
    let c = array(vec2(-0.5, -0.5), vec2(0.5, -0.5), vec2(-0.5, 0.5), vec2(0.5, -0.5), vec2(0.5, 0.5), vec2(-0.5, 0.5))[i];
    return view.view_proj * object.world * vec4(c, 0.0, 1.0);
}
