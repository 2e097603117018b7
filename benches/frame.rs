//! Per-frame CPU cost (set + flush + encode + submit) of freqbuf and each
//! baseline, on the reference, static and everything-moves scenes.
//!
//! `cargo bench --bench frame`
//!
//! Each criterion iteration is one frame of the scene; the wait for the GPU
//! after it is not timed. The stress example prints bytes and calls besides.

#[path = "support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use freqbuf::headless;
use support::methods::{EncodeFloor, Freqbuf, FullRewrite, Method, PerShaderCache, Shared, Target};
use support::scene::{Scene, SceneParams};

fn frames(c: &mut Criterion) {
    let gpu = match headless::request(headless::LimitsChoice::Defaults) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("SKIPPED: frame benches need a real adapter: {e}");
            return;
        }
    };
    eprintln!("adapter: {} ({:?})", gpu.info.name, gpu.info.backend);
    let mut group = c.benchmark_group("frame");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    for (scene_name, params) in [
        ("reference", SceneParams::reference()),
        ("static", SceneParams::static_scene()),
        ("everything_moves", SceneParams::everything_moves()),
    ] {
        let scene0 = Scene::new(&params);
        let shared = Shared::new(&gpu, &scene0);
        let target = Target::new(&gpu);
        for name in ["freqbuf", "per_shader_cache", "full_rewrite", "encode_floor"] {
            let mut method: Box<dyn Method> = match name {
                "freqbuf" => Box::new(Freqbuf::new(&gpu, &scene0)),
                "per_shader_cache" => Box::new(PerShaderCache::new(&gpu, &shared, &scene0)),
                "full_rewrite" => Box::new(FullRewrite::new(&gpu, &shared, &scene0)),
                _ => Box::new(EncodeFloor::new(&gpu, &shared, &scene0)),
            };
            let mut scene = scene0.clone();
            let mut frame = 0u32;
            group.bench_function(BenchmarkId::new(name, scene_name), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        frame += 1;
                        let changes = scene.changes(frame);
                        scene.apply(&changes);
                        let start = Instant::now();
                        method.frame(&gpu, &shared, &scene, &changes, &target);
                        total += start.elapsed();
                        gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
                    }
                    total
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
