//! Binding arrays of storage buffers: each element set by name and read
//! back; an element not set is an error naming it, never a silent zero.

use crate::common;

use common::gpu;
use freqbuf::{Binder, Draw, Manager, SlotPlan};

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
    let word = |w: u32| {
        use wgpu::util::DeviceExt;
        h.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: &w.to_le_bytes(),
            usage: wgpu::BufferUsages::STORAGE,
        })
    };
    m.frame().set_buffer("bufs[0]", &word(7)).unwrap();
    m.frame().set_buffer("bufs[2]", &word(9)).unwrap();
    m.flush(&h.queue).unwrap();
    // Element 1 unset: the bind names it (before, it read as zeros).
    let mut enc = h.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        let e = Binder::new().bind(&mut m, &mut pass, &Draw::new(shader)).unwrap_err();
        assert_eq!(e.to_string(), "`bufs[1]` at @group(0) @binding(0) has not been set");
    }
    drop(enc);
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
        "sum.wgsl: `bufs` is a binding array of 3, and the device lacks Features::BUFFER_BINDING_ARRAY and \
         Features::STORAGE_RESOURCE_BINDING_ARRAY"
    );
}
