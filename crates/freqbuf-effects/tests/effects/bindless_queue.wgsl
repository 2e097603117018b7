struct Material { color: vec4<f32> }
#ifdef BINDLESS
struct Object { x: vec4<f32>, material: u32, _pad: vec3<u32> }
@group(2) @binding(0) var<storage, read> materials: array<Material>;
#else
struct Object { x: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
#endif
@group(3) @binding(0) var<storage, read> objects: array<Object>;

// A thin triangle over the texel centred at `x`: no neighbour's centre.
struct Out { @builtin(position) p: vec4<f32>, @location(0) @interpolate(flat) i: u32 }
@vertex fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> Out {
    let x = objects[i].x;
    let corner = array(vec2(x.x - x.y, -1.0), vec2(x.x + x.y, -1.0), vec2(x.x, 3.0));
    return Out(vec4(corner[v], 0.0, 1.0), i);
}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> {
#ifdef BINDLESS
    return materials[objects[in.i].material].color;
#else
    return material.color;
#endif
}
