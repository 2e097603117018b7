struct Huge {
    data: array<vec4<f32>, 4097>,
}
@group(3) @binding(0) var<uniform> huge: Huge;
@vertex fn vs() -> @builtin(position) vec4<f32> {
    return huge.data[0];
}
