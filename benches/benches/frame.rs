//! Per-frame CPU cost (set + flush + encode + submit) of freqbuf and each
//! baseline, on the reference, static and everything-moves scenes, the static
//! scene replayed from a bundle, and the reference scene with objects in an
//! array slot against `storage_instancing`.
//!
//! `cargo bench --all-features --bench frame`
//!
//! Each criterion iteration is one frame of the scene; the wait for the GPU
//! after it is not timed. The stress example prints bytes and calls besides.

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use freqbuf::Headless;
use freqbuf_bench::scene::{Scene, SceneParams};
use freqbuf_bench::{
    EncodeFloor, Freqbuf, FullRewrite, Method, PerShaderCache, Shared, StorageInstancing, Target,
};

fn frames(c: &mut Criterion) {
    let gpu = match Headless::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("SKIPPED: frame benches need a real adapter: {e}");
            return;
        }
    };
    eprintln!("adapter: {} ({:?})", gpu.info.name, gpu.info.backend);
    let mut group = c.benchmark_group("frame");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    let uniform = ["freqbuf", "per_shader_cache", "full_rewrite", "encode_floor"].as_slice();
    let storage = ["freqbuf", "storage_instancing", "full_rewrite", "encode_floor"].as_slice();
    for (scene_name, params, names) in [
        ("reference", SceneParams::reference(), uniform),
        ("static", SceneParams::static_scene(), ["freqbuf", "freqbuf_bundles", "encode_floor"].as_slice()),
        ("everything_moves", SceneParams::everything_moves(), uniform),
        ("object_storage", SceneParams { object_storage: true, ..SceneParams::reference() }, storage),
    ] {
        let scene0 = Scene::new(&params);
        let shared = Shared::new(&gpu, &scene0);
        let target = Target::new(&gpu);
        // Build every method and run each for a while before timing any: the
        // first method to run pays for memory the driver and allocator have not
        // touched yet (seen here as 14 ms vs 10.5 ms for the same method).
        let mut methods: Vec<(Box<dyn Method>, Scene, u32)> = names
            .iter()
            .map(|&name| {
                let method: Box<dyn Method> = match name {
                    "freqbuf" => Box::new(Freqbuf::new(&gpu, &scene0)),
                    "freqbuf_bundles" => Box::new(Freqbuf::new(&gpu, &scene0).with_bundles()),
                    "per_shader_cache" => Box::new(PerShaderCache::new(&gpu, &shared, &scene0)),
                    "full_rewrite" => Box::new(FullRewrite::new(&gpu, &shared, &scene0)),
                    "storage_instancing" => Box::new(StorageInstancing::new(&gpu, &shared, &scene0)),
                    _ => Box::new(EncodeFloor::new(&gpu, &shared, &scene0)),
                };
                (method, scene0.clone(), 0)
            })
            .collect();
        for _ in 0..WARM_FRAMES {
            for (method, scene, frame) in &mut methods {
                step(&gpu, &shared, &target, method.as_mut(), scene, frame);
            }
        }
        for (method, scene, frame) in &mut methods {
            group.bench_function(BenchmarkId::new(method.name(), scene_name), |b| {
                b.iter_custom(|iters| {
                    (0..iters).map(|_| step(&gpu, &shared, &target, method.as_mut(), scene, frame)).sum()
                })
            });
        }
    }
    group.finish();
}

/// Frames every method runs, interleaved, before any is timed.
const WARM_FRAMES: usize = 20;

/// One frame: the changes (not timed), the method's frame (timed), the wait for the GPU (not timed).
fn step(
    gpu: &Headless,
    shared: &Shared,
    target: &Target,
    method: &mut dyn Method,
    scene: &mut Scene,
    frame: &mut u32,
) -> Duration {
    *frame += 1;
    let changes = scene.changes(*frame);
    scene.apply(&changes);
    let start = Instant::now();
    method.frame(gpu, shared, scene, &changes, target);
    let elapsed = start.elapsed();
    gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    elapsed
}

criterion_group!(benches, frames);
criterion_main!(benches);
