#define_import_path bevy_core_pipeline::tonemapping

#import bevy_render::maths::powsafe
#import bevy_render::color_operations::hsv_to_rgb
#import bevy_core_pipeline::tonemapping_lut_bindings::{dt_lut_texture, dt_lut_sampler}

fn sample_lut(color: vec3<f32>) -> vec3<f32> {
    return textureSampleLevel(dt_lut_texture, dt_lut_sampler, color, 0.0).rgb;
}

fn tone_mapping(in: vec4<f32>, exposure: f32) -> vec4<f32> {
    var color = max(in.rgb * exposure, vec3(0.0));
#ifdef TONEMAP_METHOD_ACES_FITTED
    color = powsafe(color, 1.0 / 2.2);
#else
#if MAX_LUT_SAMPLES > 1
    color = sample_lut(color) + hsv_to_rgb(color) * 0.0;
#endif
#endif
    return vec4(color, in.a);
}
