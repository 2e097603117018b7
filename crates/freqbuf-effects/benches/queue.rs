//! The render queue: sorting and encoding 10,000 items with 1% changed per
//! frame, with bins kept between frames against sorting every bin again;
//! and settling a 1,000,000-item blending bin whose items change depth (2%
//! a frame), merged in against sorted from scratch.
//!
//! `cargo bench --all-features --bench queue`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freqbuf::{Binder, Headless, Manager, SlotPlan};
use freqbuf_effects::{Effects, Geometry, Materials, Order, QueueContext, QueueItem, RenderQueue, Targets};

const ITEMS: usize = 10_000;
const CHANGED: usize = ITEMS / 100;
const TOML: &str = "source = \"q.wgsl\"\nflags = [\"A\"]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"opaque\"\n  vertex = \"vs\"\n  fragment = \"fs\"\n  [[technique.pass]]\n  name = \"glass\"\n  vertex = \"vs\"\n  fragment = \"fs\"\n  blend = \"alpha\"\n";
const WGSL: &str = "struct M { color: vec4<f32> }\nstruct O { pos: vec4<f32> }\n@group(2) @binding(0) var<uniform> m: M;\n@group(3) @binding(0) var<uniform> o: O;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return o.pos; }\n@fragment fn fs() -> @location(0) vec4<f32> {\n#ifdef A\n    return m.color * 2.0;\n#else\n    return m.color;\n#endif\n}\n";

fn queue(c: &mut Criterion) {
    let gpu = match Headless::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("SKIPPED: queue benches need a real adapter: {e}");
            return;
        }
    };
    let mut fb = Manager::new(&gpu.device, SlotPlan::default());
    let mut fx = Effects::new();
    let effect = fx.add("q.effect.toml", TOML, WGSL).expect("effect");
    let mut mats = Materials::new();
    let materials = (0..40)
        .map(|i| {
            mats.create(&mut fx, &mut fb, effect, if i % 2 == 0 { &[] } else { &["A"] }).expect("material")
        })
        .collect::<Vec<_>>();
    let pass = fx.technique(effect, "t").expect("technique").next().expect("pass");
    let mut rq = RenderQueue::new();
    let mut items = Vec::new();
    for i in 0..ITEMS {
        let item = QueueItem {
            pass,
            material: materials[(i * 7) % materials.len()],
            view: None,
            object: Some(fb.create_object()),
            geometry: Geometry::vertices(0..3),
            depth: 0.0,
        };
        items.push((rq.insert(&fx, &mats, item.clone()).expect("insert"), item));
    }
    fb.flush(&gpu.queue).expect("flush");
    let targets = Targets::color(wgpu::TextureFormat::Rgba8Unorm);
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d { width: 4, height: 4, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = texture.create_view(&Default::default());
    let mut frame = 0usize;
    let mut group = c.benchmark_group("queue");
    group.throughput(Throughput::Elements(ITEMS as u64));
    for (name, resort, changing, order) in [
        ("bins_kept_1pct_changed", false, true, Order::Sorted),
        ("resort_all_1pct_changed", true, true, Order::Sorted),
        ("bins_kept_static", false, false, Order::Sorted),
        ("bins_kept_static_listed", false, false, Order::Listed),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                if changing {
                    change(&mut rq, &fx, &mats, &mut items, &materials, frame);
                    frame += 1;
                }
                if resort {
                    rq.resort_all();
                }
                let mut enc = gpu.device.create_command_encoder(&Default::default());
                let mut rpass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: None,
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                });
                let mut binder = Binder::new();
                rq.encode(
                    "t.opaque",
                    order,
                    &mut QueueContext {
                        effects: &mut fx,
                        manager: &mut fb,
                        materials: &mats,
                        targets: &targets,
                        pass: &mut rpass,
                        binder: &mut binder,
                    },
                )
                .expect("encode")
            });
        });
    }
    // The same without encoding: the sort alone.
    for (name, resort) in [("sort_only_bins_kept", false), ("sort_only_resort_all", true)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                change(&mut rq, &fx, &mats, &mut items, &materials, frame);
                frame += 1;
                if resort {
                    rq.resort_all();
                }
                rq.order("t.opaque").0.len()
            });
        });
    }
    group.finish();
}

/// 1% of the items change material: their sort keys move.
fn change(
    rq: &mut RenderQueue,
    fx: &Effects,
    mats: &Materials,
    items: &mut [(freqbuf_effects::ItemId, QueueItem)],
    materials: &[freqbuf::MaterialId],
    frame: usize,
) {
    for k in 0..CHANGED {
        let (id, item) = &mut items[(frame * CHANGED + k) % ITEMS];
        item.material = materials[(frame + k) % materials.len()];
        rq.update(fx, mats, *id, item.clone()).expect("update");
    }
}

/// A blending bin of a million items, 2% of them changing depth per frame:
/// the merge must never cost more than the sort (it once cost 180 times as much).
fn settle(c: &mut Criterion) {
    const BIG: usize = 1_000_000;
    const MOVED: usize = BIG / 50;
    let Ok(gpu) = Headless::new() else { return };
    let mut fb = Manager::new(&gpu.device, SlotPlan::default());
    let mut fx = Effects::new();
    let effect = fx.add("q.effect.toml", TOML, WGSL).expect("effect");
    let mut mats = Materials::new();
    let material = mats.create(&mut fx, &mut fb, effect, &[]).expect("material");
    let glass = fx.technique(effect, "t").expect("technique").nth(1).expect("glass pass");
    let item = |i: usize| QueueItem {
        pass: glass,
        material,
        view: None,
        object: None,
        geometry: Geometry::vertices(0..3),
        depth: (i.wrapping_mul(2_654_435_761) % BIG) as f32,
    };
    let mut rq = RenderQueue::new();
    let ids = (0..BIG).map(|i| rq.insert(&fx, &mats, item(i)).expect("insert")).collect::<Vec<_>>();
    rq.settle();
    let mut frame = 0usize;
    let mut group = c.benchmark_group("queue_settle_1m_blend");
    group.sample_size(10);
    group.throughput(Throughput::Elements(BIG as u64));
    for (name, resort) in [("merge_2pct_moved", false), ("resort_all_2pct_moved", true)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                for k in 0..MOVED {
                    let i = (frame * MOVED + k * 49) % BIG;
                    rq.update(&fx, &mats, ids[i], item(i + frame + 1)).expect("update");
                }
                frame += 1;
                if resort {
                    rq.resort_all();
                }
                rq.settle()
            });
        });
    }
    group.finish();
}

criterion_group!(benches, queue, settle);
criterion_main!(benches);
