#import scene::common::corner

// Another layout at the same binding point: `bright` where Solid has `color`.
struct Glass { bright: vec4<f32>, color: vec4<f32>, fade: f32 }
@group(2) @binding(0) var<uniform> material: Glass;

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> { return corner(i); }

// Additive, so that the image does not depend on the order of overlapping panes.
@fragment fn fs() -> @location(0) vec4<f32> {
#ifdef BRIGHT
    return material.bright;
#else
    return material.color;
#endif
}
