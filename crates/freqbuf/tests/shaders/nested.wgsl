// A nested array in a uniform block: 9 elements of 3 vec4s.
struct Sh { coeffs: array<array<vec4<f32>, 3>, 9>, scale: f32 }
@group(0) @binding(2) var<uniform> sh: Sh;
@fragment fn fs() -> @location(0) vec4<f32> { return sh.coeffs[8][2] * sh.scale; }
