//! The draw binder's own cost per draw, without wgpu's: binds go to a target
//! that only counts them.
//!
//! `cargo bench --all-features --bench binder`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freqbuf::{BindTarget, Binder, Draw, Headless, Manager, SlotPlan};
use freqbuf_bench::scene::{Scene, SceneParams};

/// Counts binds and does nothing else.
struct Counter(u64);

impl BindTarget for Counter {
    #[inline]
    fn set_bind_group(&mut self, _: u32, _: &wgpu::BindGroup, offsets: &[u32]) {
        self.0 += 1 + offsets.len() as u64;
    }
    #[inline]
    fn set_immediates(&mut self, _: u32, data: &[u8]) {
        self.0 += data.len() as u64;
    }
}

fn binder(c: &mut Criterion) {
    let gpu = match Headless::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("SKIPPED: binder benches need a real adapter: {e}");
            return;
        }
    };
    let mut group = c.benchmark_group("binder");
    // Uniform objects (a dynamic offset per draw), and objects in an array slot
    // (bound once, the draw's element returned as its instance index).
    for (name, storage, objects) in [
        ("reference_scene_10k_draws", false, 10_000),
        ("object_storage_10k_draws", true, 10_000),
        ("object_storage_100k_draws", true, 100_000),
    ] {
        let params = SceneParams { object_storage: storage, objects, ..SceneParams::reference() };
        let (mut m, draws) = manager(&gpu, &Scene::new(&params));
        group.throughput(Throughput::Elements(draws.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut target = Counter(0);
                let mut binder = Binder::new();
                for d in &draws {
                    target.0 += u64::from(binder.bind(&mut m, &mut target, d).expect("bind"));
                }
                target.0
            })
        });
        // The same draws from a draw list: no handle lookups.
        let mut list = m.draw_list(&draws).expect("flushed");
        group.bench_function(format!("{name}_listed"), |b| {
            b.iter(|| {
                let mut target = Counter(0);
                let mut firsts = 0u64;
                Binder::new()
                    .bind_list(&mut m, &mut target, &mut list, |_, _, first| firsts += u64::from(first))
                    .expect("bind");
                target.0 + firsts
            })
        });
        if !storage {
            // Shared access, as each thread of a parallel encode binds.
            let state = m.prepare(&draws).expect("prepare");
            group.bench_function("prepared_shared_10k_draws", |b| {
                b.iter(|| {
                    let mut target = Counter(0);
                    let mut binder = Binder::new();
                    for d in &draws {
                        binder.bind_prepared(&state, &mut target, d).expect("bind");
                    }
                    target.0
                })
            });
        }
    }
    group.finish();
}

/// A manager with the scene's shaders and instances, flushed, and its draws.
fn manager(gpu: &Headless, scene: &Scene) -> (Manager, Vec<Draw>) {
    let mut m = Manager::new(&gpu.device, SlotPlan::default());
    let shaders = freqbuf_bench::register_all(&mut m, scene);
    let views = scene.views.iter().map(|_| m.create_view()).collect::<Vec<_>>();
    let materials = scene.materials.iter().map(|_| m.create_material()).collect::<Vec<_>>();
    let objects = scene.objects.iter().map(|_| m.create_object()).collect::<Vec<_>>();
    m.flush(&gpu.queue).expect("flush");
    let draws = scene
        .draws
        .iter()
        .map(|&o| {
            let obj = &scene.objects[o];
            Draw::new(shaders[scene.materials[obj.material].shader])
                .view(views[obj.view])
                .material(materials[obj.material])
                .object(objects[o])
        })
        .collect();
    (m, draws)
}

criterion_group!(benches, binder);
criterion_main!(benches);
