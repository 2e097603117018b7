//! `Effects::warm`: every pipeline an effect can need, built before the
//! first frame, so that no draw builds one.

use crate::common;

use common::gpu;
use freqbuf::{Manager, SlotPlan};
use freqbuf_effects::{Effects, Targets, WarmProgress, WarmReport};

const SOURCE: &str = "
struct M { color: vec4<f32> }
@group(2) @binding(0) var<uniform> m: M;
#ifdef WARM
const K: f32 = 2.0;
#endif
#ifdef COOL
const K: f32 = 0.5;
#endif
@vertex fn vs() -> @builtin(position) vec4<f32> { return m.color * K; }
@fragment fn fs() -> @location(0) vec4<f32> {
#ifdef EDGE
    return m.color;
#else
    return m.color * K;
#endif
}
@fragment fn outline() -> @location(0) vec4<f32> { return vec4<f32>(K); }
";

/// WARM or COOL (exactly one), EDGE free; the outline pass exists with EDGE only.
const TOML: &str = "flags = [\"WARM\", \"COOL\", \"EDGE\"]\nsource = \"w.wgsl\"\none_of = [[\"WARM\", \"COOL\"]]
[[technique]]\nname = \"t\"
  [[technique.pass]]\n  name = \"depth\"\n  vertex = \"vs\"
  [[technique.pass]]\n  name = \"color\"\n  vertex = \"vs\"\n  fragment = \"fs\"
  [[technique.pass]]\n  name = \"outline\"\n  vertex = \"vs\"\n  fragment = \"outline\"\n  requires = [\"EDGE\"]
";

/// The effect loaded in a new library, a manager, and colour and depth targets.
fn library(h: &freqbuf::Headless) -> (Effects, freqbuf_effects::EffectId, Manager, Targets) {
    let mut fx = Effects::new();
    let id = fx.add("w.effect.toml", TOML, SOURCE).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    let fb = Manager::new(&h.device, SlotPlan::default());
    let targets =
        Targets::color(wgpu::TextureFormat::Rgba8Unorm).with_depth(wgpu::TextureFormat::Depth32Float);
    (fx, id, fb, targets)
}

#[test]
fn warming_builds_every_allowed_pipeline_and_no_draw_builds_another() {
    let Some(h) = gpu::device() else { return };
    let (mut fx, id, mut fb, targets) = library(h);
    let report = fx.warm(&mut fb, id, &targets).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    // {WARM, COOL} × {EDGE, no EDGE}: two passes each, and the outline under EDGE.
    assert_eq!(report, WarmReport { permutations: 4, exhaustive: true, pipelines: 10 });
    let built = fx.stats().pipelines;
    assert_eq!(built, 10);
    for on in [&["WARM"][..], &["COOL"], &["WARM", "EDGE"], &["COOL", "EDGE"]] {
        let flags = fx.flags(id, on).unwrap();
        for pass in fx.technique(id, "t").unwrap() {
            let name = fx.pass(pass).name.clone();
            let built = fx.render_pipeline(&mut fb, pass, flags, &targets).map(drop);
            let e = built.as_ref().err().map(|e| common::chain(e));
            assert_eq!(built.is_ok(), name != "t.outline" || on.contains(&"EDGE"), "{on:?} {name}: {e:?}");
        }
    }
    assert_eq!(fx.stats().pipelines, built, "every draw's pipeline was warm");
    // Warming again builds nothing; other targets are other pipelines.
    assert_eq!(fx.warm(&mut fb, id, &targets).unwrap().pipelines, 10);
    assert_eq!(fx.stats().pipelines, built);
    let other = Targets::color(wgpu::TextureFormat::Bgra8Unorm).with_depth(wgpu::TextureFormat::Depth24Plus);
    fx.warm(&mut fb, id, &other).unwrap();
    assert_eq!(fx.stats().pipelines, built + 10);
    // Targets a pass cannot be built for (a depth-only pass without a depth
    // attachment) stop the warm with wgpu's typed refusal, not a panic.
    let e = fx.warm(&mut fb, id, &Targets::color(wgpu::TextureFormat::Bgra8Unorm)).unwrap_err();
    assert!(
        common::chain(&e).contains("t.depth: render pipeline: wgpu rejected it"),
        "{}",
        common::chain(&e)
    );
}

/// Warming on two threads: the pipelines build on both (wgpu's error scopes
/// are per thread, so each failure is its own pipeline's), progress is
/// reported once per pipeline in order of completion, and what is built is
/// what one thread builds; a failure keeps what the other jobs built.
#[test]
fn warming_on_two_threads_reports_progress_and_builds_what_one_thread_builds() {
    let Some(h) = gpu::device() else { return };
    let (mut fx, id, mut fb, targets) = library(h);
    let mut seen = Vec::new();
    let report = fx.warm_with(&mut fb, id, &targets, 2, &mut |p| seen.push(p)).unwrap();
    assert_eq!(report, WarmReport { permutations: 4, exhaustive: true, pipelines: 10 });
    let want = (1..=10).map(|done| WarmProgress { done, total: 10 }).collect::<Vec<_>>();
    assert_eq!(seen, want);
    assert_eq!(fx.stats().pipelines, 10);
    for on in [&["WARM"][..], &["COOL", "EDGE"]] {
        let flags = fx.flags(id, on).unwrap();
        for pass in fx.technique(id, "t").unwrap() {
            let _ = fx.render_pipeline(&mut fb, pass, flags, &targets);
        }
    }
    assert_eq!(fx.stats().pipelines, 10, "every draw's pipeline was warm");
    // Again: nothing to build, no progress.
    seen.clear();
    fx.warm_with(&mut fb, id, &targets, 2, &mut |p| seen.push(p)).unwrap();
    assert!(seen.is_empty());
    // Color-only targets: the depth-only pass fails under every combination,
    // the others build and are kept; the error is the first combination's.
    let color = Targets::color(wgpu::TextureFormat::Bgra8Unorm);
    let e = fx.warm_with(&mut fb, id, &color, 2, &mut |_| {}).unwrap_err();
    assert!(
        common::chain(&e).contains("t.depth: render pipeline: wgpu rejected it"),
        "{}",
        common::chain(&e)
    );
    assert_eq!(fx.stats().pipelines, 10 + 6, "the color and outline passes were kept");
    let flags = fx.flags(id, &["WARM", "EDGE"]).unwrap();
    let outline = fx.technique(id, "t").unwrap().find(|&p| fx.pass(p).name == "t.outline").unwrap();
    fx.render_pipeline(&mut fb, outline, flags, &color).unwrap();
    assert_eq!(fx.stats().pipelines, 16, "kept, not built again");
}

/// A combination that fails to compose stops the warm there, and every
/// pipeline of the combinations before it is still built and kept, on one
/// thread and on two (where those build while the failing one composes).
/// They were made and dropped unbuilt before the jobs streamed.
#[test]
fn a_combination_that_fails_to_compose_keeps_the_pipelines_before_it() {
    let Some(h) = gpu::device() else { return };
    let source = "
struct M { color: vec4<f32> }
@group(2) @binding(0) var<uniform> m: M;
@vertex fn vs() -> @builtin(position) vec4<f32> { return m.color; }
@fragment fn fs() -> @location(0) vec4<f32> {
#ifdef BROKEN
    return undefined_name;
#else
#ifdef TINT
    return m.color * 0.5;
#else
    return m.color;
#endif
#endif
}
";
    let toml = "flags = [\"TINT\", \"BROKEN\"]\nsource = \"b.wgsl\"
[[technique]]\nname = \"t\"
  [[technique.pass]]\n  name = \"color\"\n  vertex = \"vs\"\n  fragment = \"fs\"
";
    let targets = Targets::color(wgpu::TextureFormat::Rgba8Unorm);
    for threads in [1, 2] {
        let mut fx = Effects::new();
        let id = fx.add("b.effect.toml", toml, source).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
        let mut fb = Manager::new(&h.device, SlotPlan::default());
        let mut seen = Vec::new();
        let e = fx.warm_with(&mut fb, id, &targets, threads, &mut |p| seen.push(p)).unwrap_err();
        let text = common::chain(&e);
        assert!(text.contains("undefined_name"), "{threads} threads: {text}");
        // Combinations in order: none, TINT, then BROKEN fails.
        assert_eq!(fx.stats().pipelines, 2, "{threads} threads: the two before BROKEN were kept");
        assert_eq!(seen, [WarmProgress { done: 1, total: 2 }, WarmProgress { done: 2, total: 2 }]);
        let pass = fx.technique(id, "t").unwrap().next().unwrap();
        for on in [&[][..], &["TINT"]] {
            let flags = fx.flags(id, on).unwrap();
            fx.render_pipeline(&mut fb, pass, flags, &targets).unwrap();
        }
        assert_eq!(fx.stats().pipelines, 2, "{threads} threads: the draws found them warm");
    }
}

/// A `wgpu::PipelineCache` given to the library goes into every pipeline it
/// builds, and a manager moved to another device drops it (it belongs to the
/// old one). lavapipe keeps no pipelines in its cache, so what shows the
/// cache is used is wgpu refusing it where it does not belong.
#[test]
fn every_pipeline_is_built_with_the_applications_pipeline_cache() {
    let Some(h) = gpu::device() else { return };
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: (wgpu::Backends::VULKAN | wgpu::Backends::GL).with_env(),
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).expect("an adapter");
    if !adapter.features().contains(wgpu::Features::PIPELINE_CACHE) {
        return gpu::skip_unoffered(h, "PIPELINE_CACHE");
    }
    // Two devices of one adapter (of one Instance, so that wgpu can tell a
    // cache of the other device, where ids of two Instances would collide).
    let device = || {
        let desc = wgpu::DeviceDescriptor {
            required_features: wgpu::Features::PIPELINE_CACHE,
            ..Default::default()
        };
        pollster::block_on(adapter.request_device(&desc)).expect("checked above").0
    };
    let (first, second) = (device(), device());
    let mut fx = Effects::new();
    let id = fx.add("w.effect.toml", TOML, SOURCE).unwrap();
    let mut fb = Manager::new(&first, SlotPlan::default());
    // SAFETY: no data: wgpu starts an empty cache.
    let cache = unsafe {
        first.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
            label: None,
            data: None,
            fallback: true,
        })
    };
    fx.set_pipeline_cache(&fb, Some(cache.clone()));
    let targets =
        Targets::color(wgpu::TextureFormat::Rgba8Unorm).with_depth(wgpu::TextureFormat::Depth32Float);
    fx.warm(&mut fb, id, &targets).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    assert!(cache.get_data().is_some(), "a Vulkan cache has data to save");
    // Moved to another device: the old cache is dropped with the pipelines.
    fb.recreate(&second).unwrap();
    let before = fx.stats().pipelines;
    fx.warm(&mut fb, id, &targets).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    assert_eq!(fx.stats().pipelines, before + 10, "rebuilt on the new device, without the old cache");
    // Given the old device's cache anyway, the next pipeline is refused, typed.
    fx.set_pipeline_cache(&fb, Some(cache));
    let other_targets =
        Targets::color(wgpu::TextureFormat::Bgra8Unorm).with_depth(wgpu::TextureFormat::Depth32Float);
    let e = fx.warm(&mut fb, id, &other_targets).unwrap_err();
    assert!(common::chain(&e).contains("wgpu rejected it"), "{}", common::chain(&e));
}

/// The pipeline log: what one run built, saved as TOML and replayed by the
/// next, which then builds nothing at its draws; entries a library no
/// longer has are skipped, and malformed text is an error.
#[test]
fn a_saved_pipeline_log_replays_what_the_last_run_drew() {
    let Some(h) = gpu::device() else { return };
    let targets =
        Targets::color(wgpu::TextureFormat::Rgba8Unorm).with_depth(wgpu::TextureFormat::Depth32Float);
    let used: [(&[&str], &str); 3] =
        [(&["WARM"], "t.color"), (&["COOL", "EDGE"], "t.outline"), (&["WARM"], "t.color")];
    let draw = |fx: &mut Effects, fb: &mut Manager, id| {
        for (on, name) in used {
            let flags = fx.flags(id, on).unwrap();
            let pass = fx.technique(id, "t").unwrap().find(|&p| fx.pass(p).name == name).unwrap();
            fx.render_pipeline(fb, pass, flags, &targets).unwrap();
        }
    };
    let mut fx = Effects::new();
    let id = fx.add("w.effect.toml", TOML, SOURCE).unwrap();
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    draw(&mut fx, &mut fb, id);
    let log = fx.pipeline_log();
    let names = log.iter().map(|l| (l.pass.as_str(), l.flags.join("+"))).collect::<Vec<_>>();
    assert_eq!(names, [("t.color", "WARM".to_owned()), ("t.outline", "COOL+EDGE".to_owned())]);
    let saved = fx.pipeline_log_toml();

    // The next start: replay first, then the same draws build nothing.
    let mut next = Effects::new();
    let id = next.add("w.effect.toml", TOML, SOURCE).unwrap();
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let stale = "\n[[pipeline]]\neffect = \"gone\"\npass = \"t.color\"\nflags = []\n\
                 [[pipeline]]\neffect = \"w\"\npass = \"t.removed\"\nflags = []\n";
    let report =
        next.replay_pipeline_log(&mut fb, "pipelines.toml", &(saved.clone() + stale), |_| targets.clone());
    let report = report.unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    assert_eq!(report.built, 2);
    let why = report.skipped.iter().map(|(_, why)| why.as_str()).collect::<Vec<_>>();
    assert_eq!(why, ["no effect `gone` is loaded", "effect `w` has no pass `t.removed`"]);
    assert_eq!(next.stats().pipelines, 2);
    draw(&mut next, &mut fb, id);
    assert_eq!(next.stats().pipelines, 2, "every draw's pipeline was replayed");
    let e =
        next.replay_pipeline_log(&mut fb, "pipelines.toml", "[[pipeline]]\neffect = 3", |_| targets.clone());
    assert!(common::chain(&e.unwrap_err()).starts_with("cannot load pipelines.toml"));

    // The log twice over, on 2 threads with progress: each pipeline is built
    // once and reported once, and the draws then build nothing.
    let mut third = Effects::new();
    let id = third.add("w.effect.toml", TOML, SOURCE).unwrap();
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut seen = Vec::new();
    let twice = saved.clone() + &saved;
    let report = third
        .replay_pipeline_log_with(&mut fb, "pipelines.toml", &twice, |_| targets.clone(), 2, &mut |p| {
            seen.push((p.done, p.total));
        })
        .unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    assert_eq!((report.built, report.skipped.len()), (4, 0));
    assert_eq!(seen, [(1, 2), (2, 2)]);
    assert_eq!(third.stats().pipelines, 2);
    draw(&mut third, &mut fb, id);
    assert_eq!(third.stats().pipelines, 2, "every draw's pipeline was replayed");
}

const DEFS_SOURCE: &str = "
struct M { color: vec4<f32> }
@group(2) @binding(0) var<uniform> m: M;
@vertex fn vs() -> @builtin(position) vec4<f32> { return m.color * f32(#{TAPS}); }
@fragment fn fs() -> @location(0) vec4<f32> { return m.color; }
";

const DEFS_TOML: &str = "source = \"d.wgsl\"\n[defs]\nTAPS = 1
[[technique]]\nname = \"t\"
  [[technique.pass]]\n  name = \"color\"\n  vertex = \"vs\"\n  fragment = \"fs\"
";

/// The log names a `with_defs` copy by its base and the defs it changed,
/// and each render pipeline's attachments. Replay makes the copy again and
/// builds its pipeline, so the copy's draw builds nothing; an entry whose
/// attachments the application no longer gives, whose def is gone, or whose
/// def has another kind now is skipped with why.
#[test]
fn the_pipeline_log_keeps_defs_and_attachments_and_skips_what_changed() {
    use freqbuf_effects::{DefValue, LoggedTargets};
    let Some(h) = gpu::device() else { return };
    let depth = Targets::color(wgpu::TextureFormat::Rgba8Unorm).with_depth(wgpu::TextureFormat::Depth32Float);
    let plain = Targets::color(wgpu::TextureFormat::Bgra8Unorm);
    let draw = |fx: &mut Effects, fb: &mut Manager, id, targets: &Targets| {
        let flags = fx.flags(id, &[]).unwrap();
        let pass = fx.technique(id, "t").unwrap().next().unwrap();
        fx.render_pipeline(fb, pass, flags, targets).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    };
    let mut fx = Effects::new();
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let id = fx.add("d.effect.toml", DEFS_TOML, DEFS_SOURCE).unwrap();
    let taps = fx.with_defs(id, &[("TAPS", DefValue::UInt(4))]).unwrap();
    draw(&mut fx, &mut fb, taps, &depth);
    draw(&mut fx, &mut fb, id, &plain);
    let log = fx.pipeline_log();
    let seen = log.iter().map(|l| (l.effect.as_str(), l.defs.clone(), l.targets.clone())).collect::<Vec<_>>();
    let attachments = |color: &str, depth: Option<&str>| {
        Some(LoggedTargets { color: vec![color.into()], depth: depth.map(Into::into), samples: 1 })
    };
    assert_eq!(
        seen,
        [
            ("d", Default::default(), attachments("Bgra8Unorm", None)),
            (
                "d",
                [("TAPS".to_owned(), "4".to_owned())].into(),
                attachments("Rgba8Unorm", Some("Depth32Float"))
            ),
        ]
    );
    let saved = fx.pipeline_log_toml();
    assert!(saved.contains("TAPS = \"4\"") && saved.contains("color = [\"Rgba8Unorm\"]"), "{saved}");

    // The next start: the application now draws the base effect in HDR.
    let mut next = Effects::new();
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let id = next.add("d.effect.toml", DEFS_TOML, DEFS_SOURCE).unwrap();
    let hdr = Targets::color(wgpu::TextureFormat::Rgba16Float);
    let stale = "\n[[pipeline]]\neffect = \"d\"\npass = \"t.color\"\nflags = []\ndefs = { GONE = \"2\" }\n\
                 [[pipeline]]\neffect = \"d\"\npass = \"t.color\"\nflags = []\ndefs = { TAPS = \"yes\" }\n";
    let report = next.replay_pipeline_log(&mut fb, "pipelines.toml", &(saved + stale), |entry| {
        if entry.defs.is_empty() { hdr.clone() } else { depth.clone() }
    });
    let report = report.unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    assert_eq!(report.built, 1);
    let why = report.skipped.iter().map(|(_, why)| why.as_str()).collect::<Vec<_>>();
    assert_eq!(
        why,
        [
            "the application now gives attachments LoggedTargets { color: [\"Rgba16Float\"], depth: None, \
             samples: 1 }, the log has LoggedTargets { color: [\"Bgra8Unorm\"], depth: None, samples: 1 }",
            "effect `d` has no def `GONE`",
            "def `TAPS` of effect `d` is an unsigned integer, and the log has `yes`",
        ]
    );
    let built = next.stats().pipelines;
    let taps = next.with_defs(id, &[("TAPS", DefValue::UInt(4))]).unwrap();
    draw(&mut next, &mut fb, taps, &depth);
    assert_eq!(next.stats().pipelines, built, "the copy's pipeline was replayed");
    draw(&mut next, &mut fb, id, &hdr);
    assert_eq!(next.stats().pipelines, built + 1, "the skipped entry's pipeline is built at its draw");
}

/// Start-up does each composition once: a whole-effect check, then warming,
/// compose each permutation once between them (they shared none before: 4
/// and 4 again), whichever runs first.
#[test]
fn a_check_then_a_warm_compose_each_permutation_once() {
    let Some(h) = gpu::device() else { return };
    let (mut fx, id, mut fb, targets) = library(h);
    let report = fx.check(fb.registry(), id, None).unwrap();
    assert_eq!((report.permutations, report.distinct), (4, 4));
    assert_eq!(fx.stats().compositions, 4);
    fx.warm(&mut fb, id, &targets).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    assert_eq!(fx.stats().compositions, 4, "warming reused the check's compositions");
    // The other order: warming first, then the check.
    let (mut fx, id, mut fb, targets) = library(h);
    fx.warm(&mut fb, id, &targets).unwrap();
    fx.check(fb.registry(), id, None).unwrap();
    assert_eq!(fx.stats().compositions, 4, "the check reused warming's compositions");
}
