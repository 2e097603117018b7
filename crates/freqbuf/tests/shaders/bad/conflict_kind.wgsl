@group(0) @binding(0) var frame: texture_2d<f32>;
@vertex fn vs() -> @builtin(position) vec4<f32> {
    return textureLoad(frame, vec2<i32>(0), 0);
}
