// Two material blocks that both declare `color`.
struct MatA { color: vec4<f32> }
struct MatB { color: vec4<f32>, rough: f32 }
@group(2) @binding(0) var<uniform> mat_a: MatA;
@group(2) @binding(1) var<uniform> mat_b: MatB;
@fragment fn fs() -> @location(0) vec4<f32> { return mat_a.color + mat_b.color * mat_b.rough; }
