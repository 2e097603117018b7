struct Frame {
    time: f32,
    delta: f32,
    resolution: vec2<f32>,
    view_proj: mat4x4<f32>,
}
@group(0) @binding(0) var<uniform> frame: Frame;
@vertex fn vs() -> @builtin(position) vec4<f32> {
    return frame.view_proj * vec4<f32>(frame.time, frame.delta, frame.resolution);
}
