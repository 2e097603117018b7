#import scene::common::{corner, material}

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> { return corner(i); }

@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
#ifdef WIDE
    let w = 8.0;
#else
    let w = 3.0;
#endif
    return select(material.color, material.extra, fract(p.x / (2.0 * w)) < 0.5);
}
