struct Frame {
    seconds: f32,
}
@group(0) @binding(0) var<uniform> frame: Frame;
@vertex fn vs() -> @builtin(position) vec4<f32> {
    return vec4<f32>(frame.seconds);
}
