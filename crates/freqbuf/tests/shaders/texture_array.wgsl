enable wgpu_binding_array;
@group(2) @binding(3) var GMRTs: binding_array<texture_2d<f32>, 4>;
@group(2) @binding(4) var gmrt_sampler: sampler;
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return textureSample(GMRTs[2], gmrt_sampler, p.xy);
}
