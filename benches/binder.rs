//! The draw binder's own cost per draw, without wgpu's: binds go to a target
//! that only counts them.
//!
//! `cargo bench --all-features --bench binder`

#[path = "support/mod.rs"]
mod support;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freqbuf::{BindTarget, Binder, Draw, Headless, Manager, SlotPlan};
use support::scene::{Scene, SceneParams};

/// Counts binds and does nothing else.
struct Counter(u64);

impl BindTarget for Counter {
    #[inline]
    fn set_bind_group(&mut self, _: u32, _: &wgpu::BindGroup, offsets: &[u32]) {
        self.0 += 1 + offsets.len() as u64;
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
    let scene = Scene::new(&SceneParams::reference());
    let mut m = Manager::new(&gpu.device, SlotPlan::default());
    let shaders = support::methods::register_all(&mut m, &scene);
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
        .collect::<Vec<_>>();
    let mut group = c.benchmark_group("binder");
    group.throughput(Throughput::Elements(draws.len() as u64));
    group.bench_function("reference_scene_10k_draws", |b| {
        b.iter(|| {
            let mut target = Counter(0);
            let mut binder = Binder::new();
            for d in &draws {
                binder.bind(&mut m, &mut target, d).expect("bind");
            }
            target.0
        })
    });
    group.finish();
}

criterion_group!(benches, binder);
criterion_main!(benches);
