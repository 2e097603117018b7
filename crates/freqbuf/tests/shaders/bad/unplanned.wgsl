struct X {
    v: vec4<f32>,
}
@group(5) @binding(0) var<uniform> x: X;
@vertex fn vs() -> @builtin(position) vec4<f32> {
    return x.v;
}
