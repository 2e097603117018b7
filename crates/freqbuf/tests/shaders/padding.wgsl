struct Light {
    position: vec3<f32>,
    radius: f32,
    color: vec3<f32>,
    kind: u32,
}
struct Inner {
    a: vec2<f32>,
    b: f32,
}
struct Outer {
    x: f32,
    @align(16) inner: Inner,
    y: f32,
}
struct Object {
    world: mat4x4<f32>,
    tint: vec3<f32>,
    alpha: f32,
    normal_mat: mat3x3<f32>,
    nested: Outer,
    lights: array<Light, 4>,
    flag: u32,
}
@group(3) @binding(0) var<uniform> object: Object;
@group(0) @binding(3) var<uniform> cascade_splits: array<vec4<f32>, 4>;

@vertex fn vs() -> @builtin(position) vec4<f32> {
    return object.world[0] + object.lights[1].position.xyzz + cascade_splits[2] + vec4<f32>(object.nested.inner.b);
}
