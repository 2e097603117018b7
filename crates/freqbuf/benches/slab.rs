//! Material writes and flushes: a slab (`materials: array<Material>`, found
//! through each object's `material`) against the uniform material slot
//! (`var<uniform> material: Material`, one 256-byte step per material).
//!
//! `cargo bench --all-features --bench slab`
//!
//! 10,000 materials; each sample changes the base colour of 1% of them
//! (100, spread evenly). `material_write` times the 100 `set` calls;
//! `material_flush` times the flush plus the wait for the GPU to finish it.
//! Runs on the first real adapter; exits if there is none.

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use freqbuf::{Draw, Headless, Manager, MaterialId, Param, SlotPlan};

const UNIFORM: &str = r#"
struct Material { base_color: vec4<f32>, params: vec4<f32>, emissive: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
@fragment fn fs() -> @location(0) vec4<f32> { return material.base_color + material.emissive; }
"#;

const SLAB: &str = r#"
struct Object { world: mat4x4<f32>, material: u32, _pad: vec3<u32> }
@group(3) @binding(0) var<storage> objects: array<Object>;
struct Material { base_color: vec4<f32>, params: vec4<f32>, emissive: vec4<f32> }
@group(2) @binding(0) var<storage> materials: array<Material>;
@fragment fn fs(@location(0) @interpolate(flat) i: u32) -> @location(0) vec4<f32> {
    let m = materials[objects[i].material];
    return m.base_color + m.emissive;
}
"#;

const MATERIALS: usize = 10_000;
const CHANGED: usize = MATERIALS / 100;

struct Setup {
    gpu: Headless,
    manager: Manager,
    materials: Vec<MaterialId>,
    base_color: Param,
    tick: f32,
}

fn setup(gpu: Headless, slab: bool) -> Setup {
    let mut manager = Manager::new(&gpu.device, SlotPlan::default());
    let shader = manager.register_wgsl("material.wgsl", if slab { SLAB } else { UNIFORM }).expect("valid");
    let base_color = manager.param("base_color").expect("declared");
    let materials = (0..MATERIALS).map(|_| manager.create_material()).collect::<Vec<_>>();
    if slab {
        // One object per material, linked: the slab is what draws would read.
        let draws = materials.iter().map(|&m| Draw::new(shader).material(m).object(manager.create_object()));
        let draws = draws.collect::<Vec<_>>();
        manager.flush(&gpu.queue).expect("flush");
        manager.link(&draws).expect("live");
    }
    manager.flush(&gpu.queue).expect("flush");
    gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    Setup { gpu, manager, materials, base_color, tick: 1.0 }
}

impl Setup {
    fn write(&mut self) {
        self.tick += 1.0;
        let step = MATERIALS / CHANGED;
        for &m in self.materials.iter().step_by(step) {
            self.manager.material(m).set(self.base_color, &[self.tick; 4]).expect("vec4");
        }
    }

    fn time_writes(&mut self, iters: u64) -> Duration {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            let start = Instant::now();
            self.write();
            total += start.elapsed();
            self.manager.flush(&self.gpu.queue).expect("flush");
        }
        total
    }

    fn time_flushes(&mut self, iters: u64) -> Duration {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            self.write();
            let start = Instant::now();
            self.manager.flush(&self.gpu.queue).expect("flush");
            self.gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
            total += start.elapsed();
        }
        total
    }
}

fn gpu() -> Option<Headless> {
    match Headless::new() {
        Ok(g) => Some(g),
        Err(e) => {
            eprintln!("SKIPPED: slab benches need a real adapter: {e}");
            None
        }
    }
}

fn materials(c: &mut Criterion) {
    let Some(mut g) = gpu() else { return };
    for (group_name, flush) in [("material_write", false), ("material_flush", true)] {
        let mut group = c.benchmark_group(group_name);
        group
            .sample_size(30)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        group.throughput(Throughput::Elements(CHANGED as u64));
        for (name, slab) in [("uniform_slot", false), ("slab", true)] {
            let mut s = setup(g, slab);
            group.bench_with_input(BenchmarkId::new(name, MATERIALS), &slab, |b, _| {
                b.iter_custom(|iters| if flush { s.time_flushes(iters) } else { s.time_writes(iters) })
            });
            g = s.gpu;
        }
        group.finish();
    }
}

criterion_group!(benches, materials);
criterion_main!(benches);
