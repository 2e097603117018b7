struct Extra {
    fog_color: vec4<f32>,
}
@group(1) @binding(13) var<uniform> extra: Extra;
@fragment fn fs() -> @location(0) vec4<f32> {
    return extra.fog_color;
}
