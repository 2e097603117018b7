//! Flush cost: the two strategies for scattered dirty instances, and how flush
//! scales with the instance count at a fixed number of dirty instances.
//!
//! `cargo bench --all-features --bench flush`
//!
//! Each sample sets the dirty values (not timed), then times `flush` plus the
//! wait for the GPU to finish it, so GPU-side work (copies, the scatter pass)
//! is counted. Runs on the first real adapter; exits if there is none.
//!
//! Upload calls per flush are bounded per slot per chunk: a slot whose dirty
//! bytes form one range is written directly (one call), all other ranges are
//! packed into chunks of at most a quarter of a storage binding (32 MiB at
//! WebGPU's defaults), one call each. Every sample here checks that bound.

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use freqbuf::{FlushStrategy, Headless, Manager, ObjectId, Param, SlotPlan};

const SHADER: &str = r#"
struct Object { world: mat4x4<f32>, color: vec4<f32> }
@group(3) @binding(0) var<uniform> object: Object;
@vertex fn vs() -> @builtin(position) vec4<f32> { return object.world * object.color; }
"#;

struct Setup {
    gpu: Headless,
    manager: Manager,
    objects: Vec<ObjectId>,
    world: Param,
    tick: f32,
}

fn setup(gpu: Headless, count: usize, strategy: FlushStrategy) -> Setup {
    let mut manager = Manager::with_strategy(&gpu.device, SlotPlan::default(), strategy);
    manager.register_wgsl("object.wgsl", SHADER).expect("valid shader");
    let world = manager.param("world").expect("declared");
    let objects = (0..count).map(|_| manager.create_object()).collect::<Vec<_>>();
    manager.flush(&gpu.queue).expect("flush");
    gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    Setup { gpu, manager, objects, world, tick: 1.0 }
}

impl Setup {
    /// Dirties `dirty` objects spread evenly over all of them, then times flush + GPU completion.
    fn run(&mut self, dirty: usize, iters: u64) -> Duration {
        let step = (self.objects.len() / dirty.max(1)).max(1);
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            self.tick += 1.0;
            for &o in self.objects.iter().step_by(step).take(dirty) {
                self.manager.object(o).set(self.world, &[[self.tick; 4]; 4]).expect("mat4");
            }
            self.manager.take_stats();
            let start = Instant::now();
            self.manager.flush(&self.gpu.queue).expect("flush");
            self.gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
            total += start.elapsed();
            let s = self.manager.stats();
            let chunk = (self.gpu.device.limits().max_storage_buffer_binding_size / 4).max(1);
            let chunks = (s.total().bytes_uploaded).div_ceil(chunk).max(1);
            assert!(s.total().upload_calls <= 1 + chunks, "upload calls past the bound: {:?}", s.total());
        }
        total
    }

    fn into_gpu(self) -> Headless {
        self.gpu
    }
}

fn gpu() -> Option<Headless> {
    match Headless::new() {
        Ok(g) => {
            eprintln!("adapter: {} ({:?})", g.info.name, g.info.backend);
            Some(g)
        }
        Err(e) => {
            eprintln!("SKIPPED: flush benches need a real adapter: {e}");
            None
        }
    }
}

fn strategies(c: &mut Criterion) {
    let Some(mut g) = gpu() else { return };
    let mut group = c.benchmark_group("flush_strategy");
    group.sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for &dirty in &[10usize, 100, 1_000, 10_000] {
        group.throughput(Throughput::Elements(dirty as u64));
        for strategy in [FlushStrategy::Copies, FlushStrategy::Scatter, FlushStrategy::Auto] {
            let mut s = setup(g, 100_000, strategy);
            group.bench_with_input(BenchmarkId::new(format!("{strategy:?}"), dirty), &dirty, |b, &d| {
                b.iter_custom(|iters| s.run(d, iters))
            });
            g = s.into_gpu();
        }
    }
    group.finish();
}

fn scaling(c: &mut Criterion) {
    let Some(mut g) = gpu() else { return };
    let mut group = c.benchmark_group("flush_scaling");
    group.sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for &count in &[1_000usize, 10_000, 100_000, 1_000_000] {
        for &dirty in &[0usize, 100] {
            let mut s = setup(g, count, FlushStrategy::default());
            group.bench_with_input(BenchmarkId::new(format!("dirty{dirty}"), count), &count, |b, _| {
                b.iter_custom(|iters| s.run(dirty, iters))
            });
            g = s.into_gpu();
        }
    }
    group.finish();
}

/// When most of a slot is dirty, one upload of the whole dirty span against
/// the packed ranges: the crossover sets the default span fraction.
fn density(c: &mut Criterion) {
    let Some(mut g) = gpu() else { return };
    let mut group = c.benchmark_group("flush_density");
    group.sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    let count = 100_000;
    for &percent in &[10usize, 25, 40, 50, 75, 100] {
        let dirty = count * percent / 100;
        group.throughput(Throughput::Elements(dirty as u64));
        for (name, fraction) in [("ranges", 2.0f32), ("span", 0.0)] {
            let mut s = setup(g, count, FlushStrategy::default());
            s.manager.set_span_fraction(fraction);
            group.bench_with_input(BenchmarkId::new(name, percent), &dirty, |b, &d| {
                b.iter_custom(|iters| s.run(d, iters))
            });
            g = s.into_gpu();
        }
    }
    group.finish();
}

criterion_group!(benches, strategies, scaling, density);
criterion_main!(benches);
