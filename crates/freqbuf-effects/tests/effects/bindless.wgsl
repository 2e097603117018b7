struct Material { color: vec4<f32> }
#ifdef BINDLESS
struct Object { scale: vec4<f32>, material: u32, _pad: vec3<u32> }
@group(2) @binding(0) var<storage, read> materials: array<Material>;
#else
struct Object { scale: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
#endif
@group(3) @binding(0) var<storage, read> objects: array<Object>;

// A fullscreen triangle: the test draws each object into a one-texel viewport.
struct Out { @builtin(position) p: vec4<f32>, @location(0) @interpolate(flat) i: u32 }
@vertex fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> Out {
    let uv = vec2(f32((v << 1u) & 2u), f32(v & 2u));
    return Out(vec4(uv * 2.0 - 1.0, 0.0, 1.0), i);
}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> {
#ifdef BINDLESS
    let color = materials[objects[in.i].material].color;
#else
    let color = material.color;
#endif
    return color * objects[in.i].scale;
}
