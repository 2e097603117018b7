#import scene::common::corner

struct Stripes { width: f32, dark: vec4<f32>, light: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Stripes;

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> { return corner(i); }

@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
#ifdef WIDE
    let w = material.width * 2.0;
#else
    let w = material.width;
#endif
    return select(material.dark, material.light, fract(p.x / (2.0 * w)) < 0.5);
}
