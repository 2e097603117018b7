//! The render queue over a slab material (the device sets `BINDLESS`):
//! items linked before the flush (and then ordered front to back, since
//! their materials bind nothing), drawn item by item on the first encode
//! and as one indirect run across every material after, each texel read
//! back against its material's colour.

use crate::common;

use common::gpu;
use freqbuf::{Binder, Manager, SlotPlan};
use freqbuf_effects::{Effects, Geometry, Materials, QueueContext, QueueItem, RenderQueue, Targets};

const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;
const N: u32 = 30;

#[test]
fn queued_slab_items_are_linked_before_the_flush_and_drawn_as_one_run() {
    let Some(h) = gpu::device() else { return };
    let arrays = wgpu::Features::TEXTURE_BINDING_ARRAY
        | wgpu::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING;
    if !h.device.features().contains(arrays) {
        return gpu::skip_unoffered(h, "TEXTURE_BINDING_ARRAY");
    }
    if !gpu::renders_to(h, FORMAT) {
        return;
    }
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let e =
        fx.load(format!("{}/tests/effects/bindless_queue.effect.toml", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let pass = fx.technique(e, "t").unwrap().next().unwrap();
    let mut mats = Materials::new();
    let materials = (0..6)
        .map(|k| {
            let m = mats.create(&mut fx, &mut fb, e, &[]).unwrap();
            mats.set(&mut fb, m, "color", &[k as f32, 1.0, 0.5, 1.0]).unwrap();
            m
        })
        .collect::<Vec<_>>();
    let x = fb.param("x").unwrap();
    let mut rq = RenderQueue::new();
    let mut ids = Vec::new();
    for i in 0..N {
        let o = fb.create_object();
        let centre = (i as f32 + 0.5) / N as f32 * 2.0 - 1.0;
        fb.object(o).set(x, &[centre, 0.9 / N as f32, 0.0, 0.0]).unwrap();
        let item = QueueItem {
            pass,
            material: materials[(i * 7 % 6) as usize],
            view: None,
            object: Some(o),
            geometry: Geometry::vertices(0..3),
            depth: (N - i) as f32,
        };
        ids.push(rq.insert(&fx, &mats, item).unwrap());
    }
    let (by_material, _) = rq.order("t.opaque");
    assert_ne!(by_material, ids.iter().rev().copied().collect::<Vec<_>>(), "before linking: by material");
    assert_eq!(rq.link(&mut fx, &mats, &mut fb).unwrap(), N as usize);
    let (order, _) = rq.order("t.opaque");
    assert_eq!(order, ids.iter().rev().copied().collect::<Vec<_>>(), "materials bind nothing: front to back");
    assert_eq!(rq.link(&mut fx, &mats, &mut fb).unwrap(), 0, "nothing new to link");
    fb.flush(&h.queue).unwrap();
    let slab = fb.registry().slots().any(|(_, s)| s.slab().is_some());
    assert!(slab, "the device set BINDLESS: the material is a slab");
    let target = gpu::target(h, FORMAT, (N, 1));
    let targets = Targets::color(FORMAT);
    let model = (0..N).map(|i| [(i * 7 % 6) as f32, 1.0, 0.5, 1.0]).collect::<Vec<_>>();
    let first_instance = h.device.features().contains(wgpu::Features::INDIRECT_FIRST_INSTANCE);
    for frame in 0..2 {
        let view = target.create_view(&Default::default());
        let mut enc = h.device.create_command_encoder(&Default::default());
        fb.take_stats();
        {
            let mut pass = gpu::color_pass(&mut enc, &view);
            let mut binder = Binder::new();
            let mut cx = QueueContext {
                effects: &mut fx,
                manager: &mut fb,
                materials: &mats,
                targets: &targets,
                pass: &mut pass,
                binder: &mut binder,
            };
            rq.encode_indirect("t.opaque", &h.queue, &mut cx).unwrap();
        }
        let calls = fb.take_stats().total().draw_calls;
        if frame == 1 && first_instance {
            assert_eq!(calls, 1, "a steady bin: one run across six materials");
        }
        let words = gpu::read_texture(h, enc, &target, 16);
        let seen = words.chunks(4).map(|c| [0, 1, 2, 3].map(|k| f32::from_bits(c[k]))).collect::<Vec<_>>();
        assert_eq!(seen, model, "frame {frame}");
    }
}
