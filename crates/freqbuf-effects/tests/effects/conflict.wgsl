// The realistic mistake: each flag appends to the material block, so
// `alpha_cutoff` sits at 16 with ALPHA_TEST alone and at 32 with both flags.
struct Material {
    base_color: vec4<f32>,
#ifdef NORMAL_MAP
    normal_strength: vec4<f32>,
#endif
#ifdef ALPHA_TEST
    alpha_cutoff: f32,
#endif
}

@group(2) @binding(0) var<uniform> material: Material;

@vertex
fn vs_main() -> @builtin(position) vec4<f32> {
    var c = material.base_color;
#ifdef NORMAL_MAP
    c = c * material.normal_strength;
#endif
#ifdef ALPHA_TEST
    c.w = material.alpha_cutoff;
#endif
    return c;
}
