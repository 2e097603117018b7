// Copies every auto constant out, in a fixed order.
struct Frame { time: f32, delta_time: f32, frame_index: u32 }
struct View {
    view: mat4x4<f32>,
    proj: mat4x4<f32>,
    view_proj: mat4x4<f32>,
    inv_view: mat4x4<f32>,
    inv_proj: mat4x4<f32>,
    inv_view_proj: mat4x4<f32>,
    camera_position: vec3<f32>,
    viewport_size: vec2<f32>,
}
struct Object { world: mat4x4<f32>, inv_world: mat4x4<f32>, normal_matrix: mat3x3<f32> }
@group(0) @binding(0) var<uniform> frame: Frame;
@group(1) @binding(0) var<uniform> view: View;
@group(3) @binding(0) var<uniform> object: Object;
@group(2) @binding(0) var<storage, read_write> out: array<f32, 160>;

fn put4(at: u32, m: mat4x4<f32>) {
    for (var c = 0u; c < 4u; c++) { for (var r = 0u; r < 4u; r++) { out[at + c * 4u + r] = m[c][r]; } }
}

@compute @workgroup_size(1)
fn main() {
    out[0] = frame.time;
    out[1] = frame.delta_time;
    out[2] = f32(frame.frame_index);
    put4(4u, view.view);
    put4(20u, view.proj);
    put4(36u, view.view_proj);
    put4(52u, view.inv_view);
    put4(68u, view.inv_proj);
    put4(84u, view.inv_view_proj);
    out[100] = view.camera_position.x;
    out[101] = view.camera_position.y;
    out[102] = view.camera_position.z;
    out[103] = view.viewport_size.x;
    out[104] = view.viewport_size.y;
    put4(108u, object.world);
    put4(124u, object.inv_world);
    for (var c = 0u; c < 3u; c++) { for (var r = 0u; r < 3u; r++) { out[140u + c * 3u + r] = object.normal_matrix[c][r]; } }
}
