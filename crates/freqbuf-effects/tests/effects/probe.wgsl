// A compute-only effect that copies what it sees of the material block out.
struct Material {
    base_color: vec4<f32>,
#ifdef NORMAL_MAP
    normal_strength: f32,
#endif
}

@group(2) @binding(0) var<uniform> material: Material;
@group(2) @binding(1) var<storage, read_write> seen: array<f32, 8>;

@compute @workgroup_size(1)
fn cs_main() {
    seen[0] = material.base_color.x;
    seen[1] = material.base_color.y;
    seen[2] = material.base_color.z;
    seen[3] = material.base_color.w;
#ifdef NORMAL_MAP
    seen[4] = material.normal_strength;
#else
    seen[4] = -1.0;
#endif
}
