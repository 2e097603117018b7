#import scene::common::{corner, material}

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> { return corner(i); }

@fragment fn fs() -> @location(0) vec4<f32> {
#ifdef TINT
    return material.color * material.extra;
#else
    return material.color;
#endif
}
