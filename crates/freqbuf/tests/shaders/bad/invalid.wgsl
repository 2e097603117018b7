// Passes the WGSL front end; naga's validator rejects the uniform array stride of 4.
@group(0) @binding(0) var<uniform> weights: array<f32, 4>;
@vertex fn vs() -> @builtin(position) vec4<f32> {
    return vec4<f32>(weights[0]);
}
