#import scene::common::corner

struct Solid { color: vec4<f32>, tint: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Solid;

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> { return corner(i); }

@fragment fn fs() -> @location(0) vec4<f32> {
#ifdef TINT
    return material.color * material.tint;
#else
    return material.color;
#endif
}
