// A lit surface: a depth pre-pass and a color pass. Flags switch members on.
struct Material {
    base_color: vec4<f32>,
    alpha_cutoff: f32,
#ifdef NORMAL_MAP
    normal_strength: f32,
#endif
}

struct Object {
    rect: vec4<f32>,
    depth: f32,
#ifdef SKINNED
    bones: array<mat4x4<f32>, 4>,
#endif
}

@group(2) @binding(0) var<uniform> material: Material;
@group(3) @binding(0) var<uniform> object: Object;

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    // Two triangles covering `object.rect` (x0, y0, x1, y1 in clip space).
    let corner = array(vec2(0u, 0u), vec2(1u, 0u), vec2(0u, 1u), vec2(1u, 0u), vec2(1u, 1u), vec2(0u, 1u))[i];
    let x = select(object.rect.x, object.rect.z, corner.x == 1u);
    let y = select(object.rect.y, object.rect.w, corner.y == 1u);
    var z = object.depth;
#ifdef SKINNED
    z = z + object.bones[0][3].z;
#endif
    return vec4(x, y, z, 1.0);
}

@fragment
fn fs_main() -> @location(0) vec4<f32> {
    var color = material.base_color;
#ifdef ALPHA_TEST
    if color.a < material.alpha_cutoff {
        discard;
    }
#endif
#ifdef NORMAL_MAP
    color = vec4(color.rgb * material.normal_strength, color.a);
#endif
    return color;
}
