// One texture at texture_array.wgsl's binding array of four: a binding
// holds one count, so the two cannot share the point.
@group(2) @binding(3) var GMRTs: texture_2d<f32>;
@group(2) @binding(4) var gmrt_sampler: sampler;
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return textureSample(GMRTs, gmrt_sampler, p.xy);
}
