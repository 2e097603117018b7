//! Binding arrays of storage buffers: each element set by name and read
//! back; an element not set reads a zeroed placeholder, as a texture
//! array's does (a plain storage buffer not set is `Error::Unset`).

use crate::common;

use common::gpu;
use freqbuf::{Draw, Manager, SlotPlan};

const SUM: &str = "enable wgpu_binding_array;
struct B { v: array<u32> }
@group(0) @binding(0) var<storage> bufs: binding_array<B, 3>;
@group(0) @binding(1) var<storage, read_write> seen: array<u32, 3>;
@compute @workgroup_size(1) fn main() {
    seen[0] = bufs[0].v[0];
    seen[1] = bufs[1].v[0];
    seen[2] = bufs[2].v[0];
}
";

/// A storage buffer holding one word.
fn word(h: &freqbuf::Headless, w: u32) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    h.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &w.to_le_bytes(),
        usage: wgpu::BufferUsages::STORAGE,
    })
}

#[test]
fn each_element_of_a_buffer_array_is_the_buffer_set_for_it() {
    let Some(shared) = gpu::device() else { return };
    let features = wgpu::Features::BUFFER_BINDING_ARRAY | wgpu::Features::STORAGE_RESOURCE_BINDING_ARRAY;
    if !shared.adapter.features().contains(features) {
        return gpu::skip_unoffered(shared, "BUFFER_BINDING_ARRAY");
    }
    let Some(h) = gpu::device_with(features, |l| l.max_binding_array_elements_per_shader_stage = 16) else {
        return;
    };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let shader = m.register_wgsl("sum.wgsl", SUM).unwrap();
    let seen = gpu::storage(&h, 3);
    m.frame().set_buffer("seen", &seen).unwrap();
    let word = |w: u32| word(&h, w);
    m.frame().set_buffer("bufs[0]", &word(7)).unwrap();
    m.frame().set_buffer("bufs[2]", &word(9)).unwrap();
    m.flush(&h.queue).unwrap();
    // Element 1 unset reads a zeroed placeholder, as a texture array's does.
    gpu::dispatch(&h, &mut m, &[(Draw::new(shader), "main")]);
    assert_eq!(gpu::read_words(&h, &seen), [7, 0, 9]);
    m.frame().set_buffer("bufs[1]", &word(8)).unwrap();
    gpu::dispatch(&h, &mut m, &[(Draw::new(shader), "main")]);
    assert_eq!(gpu::read_words(&h, &seen), [7, 8, 9]);
    // One element replaced: the bind group is rebuilt with it.
    m.frame().set_buffer("bufs[1]", &word(80)).unwrap();
    gpu::dispatch(&h, &mut m, &[(Draw::new(shader), "main")]);
    assert_eq!(gpu::read_words(&h, &seen), [7, 80, 9]);
}

/// A device with texture arrays only: the buffer array is refused at
/// registration, naming both features it lacks.
#[test]
fn a_buffer_array_needs_buffer_and_storage_binding_arrays() {
    let Some(shared) = gpu::device() else { return };
    if !shared.adapter.features().contains(wgpu::Features::TEXTURE_BINDING_ARRAY) {
        return gpu::skip_unoffered(shared, "TEXTURE_BINDING_ARRAY");
    }
    let Some(h) = gpu::device_with(wgpu::Features::TEXTURE_BINDING_ARRAY, |_| {}) else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let e = m.register_wgsl("sum.wgsl", SUM).unwrap_err();
    assert_eq!(
        e.to_string(),
        "sum.wgsl is not supported: `bufs` is a binding array of 3, and the device lacks Features::BUFFER_BINDING_ARRAY and \
         Features::STORAGE_RESOURCE_BINDING_ARRAY"
    );
}

/// Bevy solari's scene shape: binding arrays without a fixed size, of
/// buffers and of textures, not indexed through a slab. They take their
/// length from the device; what was set is read, the rest is placeholders.
const SCENE: &str = "enable wgpu_binding_array;
struct VertexBuffer { v: array<u32> }
@group(0) @binding(0) var<storage> vertex_buffers: binding_array<VertexBuffer>;
@group(0) @binding(1) var textures: binding_array<texture_2d<f32>>;
@group(0) @binding(2) var<storage, read_write> seen: array<f32, 4>;
@compute @workgroup_size(1) fn main() {
    seen[0] = f32(vertex_buffers[0].v[0]);
    seen[1] = f32(vertex_buffers[LAST].v[0]);
    seen[2] = f32(vertex_buffers[1].v[0]);
    seen[3] = textureLoad(textures[LAST], vec2<i32>(0), 0).x;
}
";

#[test]
fn arrays_without_a_fixed_size_take_the_devices_length() {
    let Some(shared) = gpu::device() else { return };
    let features = wgpu::Features::BUFFER_BINDING_ARRAY
        | wgpu::Features::STORAGE_RESOURCE_BINDING_ARRAY
        | wgpu::Features::TEXTURE_BINDING_ARRAY;
    if !shared.adapter.features().contains(features) {
        return gpu::skip_unoffered(shared, "BUFFER_BINDING_ARRAY");
    }
    let Some(h) = gpu::device_with(features, |l| l.max_binding_array_elements_per_shader_stage = 256) else {
        return;
    };
    // 256 / 16 elements each.
    let len = 16;
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let shader = m.register_wgsl("scene.wgsl", &SCENE.replace("LAST", &(len - 1).to_string())).unwrap();
    let counts = m.registry()[shader].resources().iter().map(|r| r.count).collect::<Vec<_>>();
    assert_eq!(counts, [len, len, 1]);
    let seen = gpu::storage(&h, 4);
    m.frame().set_buffer("seen", &seen).unwrap();
    let word = |w: u32| word(&h, w);
    m.frame().set_buffer("vertex_buffers[0]", &word(3)).unwrap();
    m.frame().set_buffer(&format!("vertex_buffers[{}]", len - 1), &word(5)).unwrap();
    m.frame().set_texture(&format!("textures[{}]", len - 1), &gpu::texel(&h, [255, 0, 0, 255])).unwrap();
    let e = m.frame().set_buffer(&format!("vertex_buffers[{len}]"), &word(1)).unwrap_err();
    assert!(common::chain(&e).contains(&format!("index {len}")), "{}", common::chain(&e));
    m.flush(&h.queue).unwrap();
    gpu::dispatch(&h, &mut m, &[(Draw::new(shader), "main")]);
    assert_eq!(gpu::floats(&h, &seen), [3.0, 5.0, 0.0, 1.0]);
}
