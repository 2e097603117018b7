struct Frame {
    time: f32,
}
struct Debug {
    // Would conflict with every other shader's view block, but nothing uses it.
    nonsense: vec2<u32>,
}
@group(0) @binding(0) var<uniform> frame: Frame;
@group(1) @binding(0) var<uniform> debug_view: Debug;
@vertex fn vs() -> @builtin(position) vec4<f32> {
    return vec4<f32>(frame.time);
}
