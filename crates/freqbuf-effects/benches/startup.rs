//! Start-up: the first start checks an effect of three flags (8
//! permutations, as a small app's) or six (64) and warms its pipelines; the
//! second replays the pipeline log the first saved. Each on 1 and on 2
//! threads, with a new library and manager per iteration on one device, so
//! every pipeline is built again.
//!
//! `cargo bench --all-features --bench startup`

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use freqbuf::{Headless, Manager, SlotPlan};
use freqbuf_effects::{EffectId, Effects, Targets};

/// An effect of `flags` flags, each changing the fragment shader.
fn effect(flags: usize) -> (String, String) {
    let names = ["A", "B", "C", "D", "E", "F"];
    let bodies =
        ["c = c * 2.0;", "c = c + m.glow;", "c = sqrt(abs(c));", "c = c.yxzw;", "c = c * c;", "c = exp(c);"];
    let list = names[..flags].iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
    let toml = format!(
        "source = \"s.wgsl\"\nflags = [{list}]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  vertex = \"vs\"\n  fragment = \"fs\"\n"
    );
    let tests =
        (0..flags).map(|i| format!("#ifdef {}\n    {}\n#endif\n", names[i], bodies[i])).collect::<String>();
    let wgsl = format!(
        "struct M {{ color: vec4<f32>, glow: vec4<f32> }}\nstruct O {{ pos: vec4<f32> }}\n@group(2) @binding(0) var<uniform> m: M;\n@group(3) @binding(0) var<uniform> o: O;\n@vertex fn vs() -> @builtin(position) vec4<f32> {{ return o.pos; }}\n@fragment fn fs() -> @location(0) vec4<f32> {{\n    var c = m.color;\n{tests}    return c;\n}}\n"
    );
    (toml, wgsl)
}

fn fresh(device: &wgpu::Device, (toml, wgsl): &(String, String)) -> (Manager, Effects, EffectId) {
    let fb = Manager::new(device, SlotPlan::default());
    let mut fx = Effects::new();
    let effect = fx.add("s.effect.toml", toml, wgsl).expect("effect");
    (fb, fx, effect)
}

fn startup(c: &mut Criterion) {
    let gpu = match Headless::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("SKIPPED: start-up benches need a real adapter: {e}");
            return;
        }
    };
    let targets = Targets::color(wgpu::TextureFormat::Rgba8Unorm);
    let mut group = c.benchmark_group("startup");
    group.sample_size(10);
    // What a library costs before any effect: naga_oil's composer and preprocessor.
    group.bench_function("library_new", |b| b.iter(Effects::new));
    for flags in [3, 6] {
        let source = effect(flags);
        let pipelines = 1 << flags;
        let log = {
            let (mut fb, mut fx, effect) = fresh(&gpu.device, &source);
            fx.warm(&mut fb, effect, &targets).expect("warm");
            fx.pipeline_log_toml()
        };
        for threads in [1, 2] {
            group.bench_function(format!("first_check_and_warm_{pipelines}_threads_{threads}"), |b| {
                b.iter_batched(
                    || fresh(&gpu.device, &source),
                    |(mut fb, mut fx, effect)| {
                        fx.check(fb.registry(), effect, None).expect("check");
                        let report =
                            fx.warm_with(&mut fb, effect, &targets, threads, &mut |_| {}).expect("warm");
                        assert_eq!(report.pipelines, pipelines);
                        (fb, fx)
                    },
                    BatchSize::PerIteration,
                );
            });
            group.bench_function(format!("second_replay_{pipelines}_threads_{threads}"), |b| {
                b.iter_batched(
                    || fresh(&gpu.device, &source),
                    |(mut fb, mut fx, _)| {
                        let report = fx
                            .replay_pipeline_log_with(
                                &mut fb,
                                "s.pipelines.toml",
                                &log,
                                |_| targets.clone(),
                                threads,
                                &mut |_| {},
                            )
                            .expect("replay");
                        assert_eq!(report.built, pipelines);
                        (fb, fx)
                    },
                    BatchSize::PerIteration,
                );
            });
        }
    }
    group.finish();
}

criterion_group!(benches, startup);
criterion_main!(benches);
