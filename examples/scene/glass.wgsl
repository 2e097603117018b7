#import scene::common::{corner, material}

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> { return corner(i); }

// Additive, so that the image does not depend on the order of overlapping panes.
@fragment fn fs() -> @location(0) vec4<f32> {
#ifdef BRIGHT
    return material.extra;
#else
    return material.color;
#endif
}
