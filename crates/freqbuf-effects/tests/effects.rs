//! Effects: permutations read the right values from shared slots, the
//! whole-effect check catches permutations that disagree, render state is
//! applied, pipelines are built once, and every effect error says where.

use crate::common;

use common::gpu;
use freqbuf::{Binder, Draw, Manager, Registry, SlotPlan};
use freqbuf_effects::{EffectErrorKind, Effects, Materials, Targets};

fn path(name: &str) -> String {
    format!("{}/tests/effects/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Dispatches `pass` with `flags` once for a new material, which `setup`
/// gives its values, and returns the `words` floats the shader wrote to the
/// material's `seen` buffer.
fn run_seen(
    h: &freqbuf::Headless,
    fx: &mut Effects,
    fb: &mut Manager,
    (pass, flags): (freqbuf_effects::PassId, freqbuf_effects::FlagSet),
    words: u64,
    setup: impl FnOnce(&mut Manager, freqbuf::MaterialId),
) -> Vec<f32> {
    // Registered first: the permutation declares `seen`.
    let (shader, pipeline) = fx.compute_pipeline(fb, pass, flags).unwrap();
    let pipeline = pipeline.clone();
    let m = fb.create_material();
    let out = gpu::storage(h, words);
    setup(fb, m);
    fb.material(m).set_buffer("seen", &out).unwrap();
    fb.flush(&h.queue).unwrap();
    gpu::run(h, fb, [(&pipeline, Draw::new(shader).material(m))]);
    gpu::floats(h, &out)
}

/// The effects example's lit effect.
fn lit_file() -> String {
    format!("{}/../../examples/effects/lit.effect.toml", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn two_permutations_of_a_compute_pass_read_their_values_from_one_slot() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let probe = fx.load(path("probe.effect.toml")).unwrap();
    let plain = fx.flags(probe, &[]).unwrap();
    let normal = fx.flags(probe, &["NORMAL_MAP"]).unwrap();
    // Register both before any value is set: the flag grows the material slot.
    let pass = fx.technique(probe, "probe").unwrap().next().unwrap();
    fx.compute_pipeline(&mut fb, pass, plain).unwrap();
    fx.compute_pipeline(&mut fb, pass, normal).unwrap();
    let (color, strength) = (fb.param("base_color").unwrap(), fb.param("normal_strength").unwrap());
    let mut seen = Vec::new();
    for flags in [plain, normal] {
        let base = if flags == plain { 1.0 } else { 10.0 };
        let words = run_seen(h, &mut fx, &mut fb, (pass, flags), 8, |fb, m| {
            fb.material(m).set(color, &[base, base + 1.0, base + 2.0, base + 3.0]).unwrap();
            fb.material(m).set(strength, &(base + 4.0)).unwrap();
        });
        seen.push(words[..5].to_vec());
    }
    assert_eq!(seen[0], [1.0, 2.0, 3.0, 4.0, -1.0], "without NORMAL_MAP");
    assert_eq!(seen[1], [10.0, 11.0, 12.0, 13.0, 14.0], "with NORMAL_MAP");
    assert_eq!(fx.stats().registered, 2);
}

#[test]
fn the_whole_effect_check_names_the_combination_and_both_members() {
    let mut fx = Effects::new();
    let id = fx.load(path("conflict.effect.toml")).unwrap();
    let registry = Registry::new(SlotPlan::default());
    let e = fx.check(&registry, id, None).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::Conflict { .. }), "{e}");
    let text = common::chain(&e);
    assert_eq!(
        text,
        format!(
            "cannot merge the permutations of {}: the permutation with [ALPHA_TEST] (passes forward.depth) does not fit the others: cannot lay out @group(2) @binding(0): in family `conflict`, whose shaders share one layout here: members overlap: `normal_strength` in conflict[NORMAL_MAP] is vec4<f32> at offset 16 (size 16); but `alpha_cutoff` in conflict[ALPHA_TEST] is f32 at offset 16 (size 4)",
            path("conflict.wgsl"),
        )
    );
    // One permutation alone is fine; the check of it says it was not exhaustive.
    let only = fx.flags(id, &["ALPHA_TEST"]).unwrap();
    let report = fx.check(&registry, id, Some(only)).unwrap();
    assert_eq!((report.permutations, report.exhaustive), (1, false));
    // The good effect: all 8 combinations of its 3 tested flags agree; FOG is never tested.
    let lit = fx.load(lit_file()).unwrap();
    let report = fx.check(&registry, lit, None).unwrap();
    assert_eq!((report.permutations, report.exhaustive), (8, true));
}

/// Renders a 4×4 target: object A covers it all at depth 0.5 in red, B the
/// left half at depth 0.3 in green; the color pass draws B first, then A.
fn render_two_objects(h: &freqbuf::Headless, with_prepass: bool) -> Vec<[u8; 4]> {
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let lit = fx.load(lit_file()).unwrap();
    let flags = fx.flags(lit, &[]).unwrap();
    let targets =
        Targets::color(wgpu::TextureFormat::Rgba8Unorm).with_depth(wgpu::TextureFormat::Depth32Float);
    let passes = fx.technique(lit, "forward").unwrap().collect::<Vec<_>>();
    let shader = fx.shader(&mut fb, flags).unwrap();
    let (color, rect, depth) =
        (fb.param("base_color").unwrap(), fb.param("rect").unwrap(), fb.param("depth").unwrap());
    let mut objects = Vec::new();
    for (rgba, r, z) in [
        ([0.0f32, 1.0, 0.0, 1.0], [-1.0f32, -1.0, 0.0, 1.0], 0.3f32),
        ([1.0, 0.0, 0.0, 1.0], [-1.0, -1.0, 1.0, 1.0], 0.5),
    ] {
        let (m, o) = (fb.create_material(), fb.create_object());
        fb.material(m).set(color, &rgba).unwrap();
        fb.object(o).set(rect, &r).unwrap();
        fb.object(o).set(depth, &z).unwrap();
        objects.push((m, o));
    }
    fb.flush(&h.queue).unwrap();
    let size = wgpu::Extent3d { width: 4, height: 4, depth_or_array_layers: 1 };
    let texture = |format, usage| gpu::texture(h, format, size, usage);
    let target = texture(
        wgpu::TextureFormat::Rgba8Unorm,
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    );
    let depth_tex = texture(wgpu::TextureFormat::Depth32Float, wgpu::TextureUsages::RENDER_ATTACHMENT);
    let (view, depth_view) =
        (target.create_view(&Default::default()), depth_tex.create_view(&Default::default()));
    let mut enc = h.device.create_command_encoder(&Default::default());
    // The D3DX loop: every pass of the technique, each in a render pass of its own.
    for (k, &pass) in passes.iter().enumerate() {
        if k == 0 && !with_prepass {
            continue;
        }
        let pipeline = fx.render_pipeline(&mut fb, pass, flags, &targets).unwrap().1.clone();
        // A depth-only pass (no fragment entry point) renders into the depth attachment alone.
        let color = fx.pass(pass).fragment.is_some().then_some(wgpu::RenderPassColorAttachment {
            view: &view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                store: wgpu::StoreOp::Store,
            },
        });
        let mut rpass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(&fx.pass(pass).name),
            color_attachments: &color.into_iter().map(Some).collect::<Vec<_>>(),
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: if k == 0 || !with_prepass { wgpu::LoadOp::Clear(1.0) } else { wgpu::LoadOp::Load },
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        rpass.set_pipeline(&pipeline);
        let mut binder = Binder::new();
        for &(m, o) in &objects {
            binder.bind(&mut fb, &mut rpass, &Draw::new(shader).material(m).object(o)).unwrap();
            rpass.draw(0..6, 0..1);
        }
    }
    gpu::read_texture(h, enc, &target, 4).into_iter().map(u32::to_le_bytes).collect()
}

#[test]
fn a_depth_prepass_and_a_less_equal_color_pass_give_the_expected_image() {
    let Some(h) = gpu::device() else { return };
    let (red, green) = ([255, 0, 0, 255], [0, 255, 0, 255]);
    let image = render_two_objects(h, true);
    let expected = (0..16).map(|i| if i % 4 < 2 { green } else { red }).collect::<Vec<_>>();
    assert_eq!(image, expected, "left half: B (nearer) wins; right half: A");
    // Without the pre-pass, the color pass writes no depth: A, drawn last, covers all.
    let image = render_two_objects(h, false);
    assert_eq!(image, vec![red; 16]);
}

#[test]
fn pipelines_and_permutations_are_built_once() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let lit = fx.load(lit_file()).unwrap();
    let targets =
        Targets::color(wgpu::TextureFormat::Rgba8Unorm).with_depth(wgpu::TextureFormat::Depth32Float);
    let color = fx.technique(lit, "forward").unwrap().nth(1).unwrap();
    let plain = fx.flags(lit, &[]).unwrap();
    let fog = fx.flags(lit, &["FOG"]).unwrap();
    let normal = fx.flags(lit, &["NORMAL_MAP"]).unwrap();
    let a = fx.render_pipeline(&mut fb, color, plain, &targets).unwrap().0;
    let b = fx.render_pipeline(&mut fb, color, plain, &targets).unwrap().0;
    // FOG is declared but the source never tests it: the same permutation and pipeline.
    let c = fx.render_pipeline(&mut fb, color, fog, &targets).unwrap().0;
    assert_eq!((a, a), (b, c));
    assert_eq!((fx.stats().registered, fx.stats().pipelines, fx.stats().compositions), (1, 1, 1));
    fx.render_pipeline(&mut fb, color, normal, &targets).unwrap();
    fx.render_pipeline(&mut fb, color, plain, &Targets::color(wgpu::TextureFormat::Bgra8Unorm)).unwrap();
    assert_eq!((fx.stats().registered, fx.stats().pipelines), (2, 3));
    // A compute pipeline of a render pass is an error, not a panic.
    let e = fx.compute_pipeline(&mut fb, color, plain).unwrap_err();
    assert_eq!(common::chain(&e), "cannot use lit: pass `forward.color` is not a compute pass");
}

const TOML: &str = "source = \"e.wgsl\"\nflags = [\"A\"]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  vertex = \"vs\"\n  fragment = \"fs\"\n";
const WGSL: &str = "@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4(0.0); }\n#ifndef A\n@fragment fn fs() -> @location(0) vec4<f32> { return vec4(1.0); }\n#endif\n";

#[test]
fn effect_errors_say_where() {
    let mut fx = Effects::new();
    let id = fx.add("e.effect.toml", TOML, WGSL).unwrap();
    let e = fx.flags(id, &["A", "B"]).unwrap_err();
    assert_eq!(common::chain(&e), "cannot use e: effect `e` has no flag `B`; its flags are `A`");
    let e = fx.technique(id, "deferred").unwrap_err();
    assert_eq!(common::chain(&e), "cannot use e: effect `e` has no technique `deferred`; it has `t`");
    let a = fx.flags(id, &["A"]).unwrap();
    let e = fx.check(&Registry::new(SlotPlan::default()), id, Some(a)).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot build e.wgsl: pass `t.p` [A]: the permutation has no fragment entry point `fs`"
    );

    let bad_state = TOML.replace("fragment = \"fs\"", "fragment = \"fs\"\n  blend = \"glow\"");
    let e = fx.add("bad.effect.toml", &bad_state, WGSL).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::Toml(_)));
    assert_eq!(
        common::chain(&e),
        "cannot load bad.effect.toml:9:11: unknown variant `glow`, expected one of `opaque`, `alpha`, `additive`, `premultiplied`"
    );
    let e = fx.add("twice.effect.toml", &TOML.replace("[\"A\"]", "[\"A\", \"A\"]"), WGSL).unwrap_err();
    assert_eq!(common::chain(&e), "cannot load twice.effect.toml:2:15: flag `A` is declared twice");
    let e = fx
        .add("nostage.effect.toml", &TOML.replace("  vertex = \"vs\"\n  fragment = \"fs\"\n", ""), WGSL)
        .unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot load nostage.effect.toml:6:10: pass `t.p` names neither a vertex nor a compute entry point"
    );

    // A WGSL error inside a permutation points into the source file, through naga_oil.
    let broken = "@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4(0.0); }\n#ifdef A\nfn oops( {\n#endif\n@fragment fn fs() -> @location(0) vec4<f32> { return vec4(1.0); }\n";
    let id = fx.add("broken.effect.toml", TOML, broken).unwrap();
    let a = fx.flags(id, &["A"]).unwrap();
    let e = fx.check(&Registry::new(SlotPlan::default()), id, Some(a)).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::Compose { .. }), "{e}");
    assert_eq!(
        common::chain(&e),
        "cannot compose e.wgsl:3:10: with [A], naga's WGSL parser refused it: expected identifier, found \"{\""
    );
    assert_eq!(
        format!("{e:?}"),
        "cannot compose e.wgsl:3:10\n\nCaused by:\n    with [A], naga's WGSL parser refused it: expected identifier, found \"{\""
    );
    // Without the flag the same source composes.
    let none = fx.flags(id, &[]).unwrap();
    fx.check(&Registry::new(SlotPlan::default()), id, Some(none)).unwrap();
    let e = Effects::new().load(path("missing.effect.toml")).unwrap_err();
    assert!(common::chain(&e).contains("cannot read the file"), "{e}");
}

/// Above 16,384 allowed combinations (15 free flags) the check is pairwise:
/// no flag, each alone, each pair, all.
#[test]
fn more_than_16384_combinations_are_checked_pairwise() {
    let names = (0..15).map(|i| format!("F{i}")).collect::<Vec<_>>();
    let toml = format!(
        "source = \"many.wgsl\"\nflags = [{}]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n",
        names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ")
    );
    let body = names.iter().map(|n| format!("#ifdef {n}\n    x = x + 1.0;\n#endif\n")).collect::<String>();
    let source = format!(
        "@group(0) @binding(0) var<uniform> u: vec4<f32>;\n@compute @workgroup_size(1) fn main() {{\n    var x = u.x;\n{body}}}\n"
    );
    let mut fx = Effects::new();
    let id = fx.add("many.effect.toml", &toml, &source).unwrap();
    let report = fx.check(&Registry::new(SlotPlan::default()), id, None).unwrap();
    assert_eq!((report.permutations, report.exhaustive), (1 + 1 + 15 + 15 * 14 / 2, false));
}

/// Past 16 permutations the check composes on every core and merges in
/// combination order: the conflict it reports is the first in that order
/// (`[F3]`, combination 8 of 64, after `[F2]` put `y` where `x` goes), as
/// one thread would report it, and every combination is composed once.
#[test]
fn the_check_on_several_cores_reports_the_first_conflict_in_order() {
    let names = ["F0", "F1", "F2", "F3", "F4", "F5"];
    let toml = format!(
        "name = \"par\"\nsource = \"par.wgsl\"\nflags = [{}]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n",
        names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ")
    );
    let source = "struct M {\n    a: vec4<f32>,\n#ifdef F3\n    x: vec4<f32>,\n#endif\n#ifdef F2\n    y: f32,\n#endif\n}\n@group(2) @binding(0) var<uniform> m: M;\n@compute @workgroup_size(1) fn main() {\n    var v = m.a;\n#ifdef F0\n    v = v * 2.0;\n#endif\n#ifdef F1\n    v = v * 3.0;\n#endif\n#ifdef F2\n    v.x = m.y;\n#endif\n#ifdef F3\n    v = v + m.x;\n#endif\n#ifdef F4\n    v = v * 5.0;\n#endif\n#ifdef F5\n    v = v * 7.0;\n#endif\n}\n";
    let mut fx = Effects::new();
    let id = fx.add("par.effect.toml", &toml, source).unwrap();
    let e = fx.check(&Registry::new(SlotPlan::default()), id, None).unwrap_err();
    let text = common::chain(&e);
    assert!(
        text.starts_with("cannot merge the permutations of par.wgsl: the permutation with [F3] (passes t.p)"),
        "{text}"
    );
    assert!(text.contains("`y` in par[F2] is f32 at offset 16") && text.contains("`x` in par[F3]"), "{text}");
    // Without the conflict (one struct for all), all 64 agree, each composed once.
    let agreed = source.replace(
        "#ifdef F3\n    x: vec4<f32>,\n#endif\n#ifdef F2\n    y: f32,\n#endif\n",
        "    x: vec4<f32>,\n    y: f32,\n",
    );
    let mut fx = Effects::new();
    let id = fx.add("par.effect.toml", &toml, &agreed).unwrap();
    let report = fx.check(&Registry::new(SlotPlan::default()), id, None).unwrap();
    assert_eq!((report.permutations, report.exhaustive), (64, true));
    assert_eq!(fx.stats().compositions, 64);
}

/// Combinations that preprocess to one text are composed once: the line
/// inside `#ifdef A` / `#ifdef B` needs both, so `{}`, `{A}` and `{B}` are
/// one text; `C` is tested only in an imported module, so it always counts.
#[test]
fn the_check_composes_each_distinct_text_once() {
    let module = "#define_import_path lib::pick\nfn pick() -> f32 {\n#ifdef C\n    return 2.0;\n#else\n    return 1.0;\n#endif\n}\n";
    let source = "#import lib::pick::pick\n@group(2) @binding(0) var<storage, read_write> seen: array<f32, 1>;\n@compute @workgroup_size(1) fn main() {\n    seen[0] = pick();\n#ifdef A\n#ifdef B\n    seen[0] = seen[0] * 3.0;\n#endif\n#endif\n}\n";
    let toml = "name = \"nest\"\nsource = \"n.wgsl\"\nflags = [\"A\", \"B\", \"C\"]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";
    let mut fx = Effects::new();
    fx.add_module("pick.wgsl", module).unwrap();
    let id = fx.add("n.effect.toml", toml, source).unwrap();
    let report = fx.check(&Registry::new(SlotPlan::default()), id, None).unwrap();
    // 8 combinations: two texts, each with and without C.
    assert_eq!((report.permutations, report.distinct, report.exhaustive), (8, 4, true));
    assert_eq!(fx.stats().compositions, 4);
}

/// The declarations module can be `#import`ed: a shader that imports the
/// frame block instead of declaring it merges into the same slot.
#[test]
fn shaders_import_the_generated_declarations() {
    let dir = format!("{}/../freqbuf/tests/shaders", env!("CARGO_MANIFEST_DIR"));
    let frame = freqbuf::reflect::ShaderReflection::from_path(format!("{dir}/frame.wgsl"), None).unwrap();
    let mut registry = Registry::new(SlotPlan::default());
    registry.add(frame).unwrap();
    let module = registry.declarations_module("freqbuf::slots").unwrap();
    let mut fx = Effects::new();
    fx.add_module("slots.wgsl", &module).unwrap();
    let toml = "source = \"uses.wgsl\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  vertex = \"vs\"\n";
    let source = "#import freqbuf::slots::frame\n@vertex fn vs() -> @builtin(position) vec4<f32> { return frame.view_proj * vec4(frame.time); }\n";
    let id = fx.add("uses.effect.toml", toml, source).unwrap();
    let mut merged = registry;
    let report = fx.merge(&mut merged, id, None).unwrap();
    assert_eq!(report.permutations, 1);
    let slot = &merged[merged.slot_at(freqbuf::BindingPoint::new(0, 0)).unwrap()];
    assert_eq!(slot.users().len(), 2, "frame.wgsl and the importing shader share the slot");
}

/// A pipeline's cache key holds everything it is built from: a pass of one
/// effect with the flags of another is refused, and cannot leave a pipeline
/// that the right call would then get.
#[test]
fn a_pass_and_flags_of_different_effects_are_refused() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let probe = fx.load(path("probe.effect.toml")).unwrap();
    let wgsl = "@compute @workgroup_size(1) fn other_main() {}\n";
    let toml = "name = \"other\"\nsource = \"other.wgsl\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"other_main\"\n";
    let other = fx.add("other.effect.toml", toml, wgsl).unwrap();
    let probe_pass = fx.technique(probe, "probe").unwrap().next().unwrap();
    let other_flags = fx.flags(other, &[]).unwrap();
    let e = fx.compute_pipeline(&mut fb, probe_pass, other_flags).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::OtherEffect { .. }));
    assert_eq!(
        common::chain(&e),
        format!(
            "cannot use probe: pass `probe.copy` is of effect `probe` (family `{}`), but the flags are of effect `other` (family `other`)",
            fx.effect(probe).family()
        )
    );
    let probe_flags = fx.flags(probe, &[]).unwrap();
    let (shader, _) = fx.compute_pipeline(&mut fb, probe_pass, probe_flags).unwrap();
    assert_eq!(shader, fx.shader(&mut fb, probe_flags).unwrap());
    assert_eq!(fx.stats().pipelines, 1);

    // Ids of another library are errors, not panics or another effect's data.
    let mut library = Effects::new();
    let foreign = library.add("other.effect.toml", toml, wgsl).unwrap();
    let foreign_pass = library.technique(foreign, "t").unwrap().next().unwrap();
    let foreign_flags = library.flags(foreign, &[]).unwrap();
    let e = fx.flags(foreign, &[]).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use effect library: the effect id belongs to another effect library"
    );
    assert!(fx.technique(foreign, "t").is_err());
    assert!(fx.shader(&mut fb, foreign_flags).is_err());
    let e = fx.compute_pipeline(&mut fb, foreign_pass, probe_flags).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::Foreign { what: "pass" }), "{e}");
    assert!(fx.merge(&mut Registry::new(SlotPlan::default()), foreign, None).is_err());
    assert_eq!(fx.stats().pipelines, 1);
}

/// A module added after the effect that imports it brings the flags it
/// tests: the check sees both permutations, and the flag's permutation
/// has the module's code.
#[test]
fn a_module_added_after_its_effect_brings_its_flags() {
    let Some(h) = gpu::device() else { return };
    let module = "#define_import_path lib::pick\nfn pick() -> f32 {\n#ifdef BRIGHT\n    return 2.0;\n#else\n    return 1.0;\n#endif\n}\n";
    let wgsl = "#import lib::pick::pick\n@group(2) @binding(0) var<storage, read_write> seen: array<f32, 1>;\n@compute @workgroup_size(1) fn cs_main() { seen[0] = pick(); }\n";
    let toml = "name = \"late\"\nsource = \"late.wgsl\"\nflags = [\"BRIGHT\"]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"cs_main\"\n";
    let mut fx = Effects::new();
    let late = fx.add("late.effect.toml", toml, wgsl).unwrap();
    fx.add_module("pick.wgsl", module).unwrap();
    let report = fx.check(&Registry::new(SlotPlan::default()), late, None).unwrap();
    assert_eq!((report.permutations, report.exhaustive), (2, true));
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let pass = fx.technique(late, "t").unwrap().next().unwrap();
    let mut seen = Vec::new();
    for flags in [&[][..], &["BRIGHT"][..]] {
        let flags = fx.flags(late, flags).unwrap();
        seen.push(run_seen(h, &mut fx, &mut fb, (pass, flags), 1, |_, _| {})[0]);
    }
    assert_eq!(seen, [1.0, 2.0]);
}

/// naga_oil's parser recurses as naga's does: composition runs on the same
/// input-sized stack as reflection, so 20,000 chained unary minuses are a
/// result, not an abort, on cargo's 2 MiB test thread.
#[test]
fn deeply_nested_effect_source_does_not_overflow_the_stack() {
    let wgsl = format!(
        "@group(2) @binding(0) var<storage, read_write> seen: array<f32, 1>;\n@compute @workgroup_size(1) fn cs_main() {{ let u = seen[0]; seen[0] = {}u; }}\n",
        "- ".repeat(20000)
    );
    let toml = "name = \"deep\"\nsource = \"deep.wgsl\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"cs_main\"\n";
    let mut fx = Effects::new();
    let deep = fx.add("deep.effect.toml", toml, &wgsl).unwrap();
    match fx.check(&Registry::new(SlotPlan::default()), deep, None) {
        Ok(report) => assert_eq!(report.permutations, 1),
        Err(e) => eprintln!("refused: {e}"),
    }
    let module =
        format!("#define_import_path deep::lib\nfn f(u: f32) -> f32 {{ return {}u; }}\n", "- ".repeat(20000));
    if let Err(e) = fx.add_module("deep_lib.wgsl", &module) {
        eprintln!("refused: {e}");
    }
}

/// Effect files and the sources they name are read as shaders are: a FIFO
/// (which would block) and `/dev/zero` (which never ends) are refused at once.
#[cfg(unix)]
#[test]
fn effect_files_and_sources_must_be_regular_files() {
    let dir = std::env::temp_dir().join(format!("freqbuf-effect-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo.effect.toml");
    let _ = std::fs::remove_file(&fifo);
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let mut fx = Effects::new();
    let e = fx.load(&fifo).unwrap_err();
    assert_eq!(
        common::chain(&e),
        format!("cannot load {}: cannot read the file: not a regular file", fifo.display())
    );
    let zero = dir.join("zero.wgsl");
    let _ = std::fs::remove_file(&zero);
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let toml = dir.join("zero.effect.toml");
    std::fs::write(&toml, "source = \"zero.wgsl\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n").unwrap();
    let e = fx.load(&toml).unwrap_err();
    assert_eq!(
        common::chain(&e),
        format!(
            "cannot load {}:1:10: cannot read the file: {}: not a regular file",
            toml.display(),
            zero.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `[defs]` give shader defs values for every permutation, as Bevy's valued
/// defs do: `#if COUNT > 1` compares them, `#{BINDING}` substitutes them, and
/// a value that is not a boolean or an integer that fits names the def.
#[test]
fn valued_defs_are_compared_and_substituted() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let wgsl = "#if COUNT > 1
@group(2) @binding(#{BINDING}) var<uniform> many: vec4<f32>;
fn pick() -> f32 { return many.x; }
#else
@group(2) @binding(#{BINDING}) var<uniform> few: vec4<f32>;
fn pick() -> f32 { return few.x; }
#endif
@group(2) @binding(0) var<storage, read_write> seen: array<f32, 1>;
@compute @workgroup_size(1) fn main() {
#ifdef SHOW
    seen[0] = pick();
#endif
}
";
    let toml = |defs: &str| {
        format!(
            "name = \"v\"\nsource = \"v.wgsl\"\nflags = [\"SHOW\"]\n{defs}\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n"
        )
    };
    let mut fx = Effects::new();
    let id = fx.add("v.effect.toml", &toml("[defs]\nCOUNT = 4\nBINDING = 5"), wgsl).unwrap();
    let shader = fx.shader(&mut fb, fx.flags(id, &["SHOW"]).unwrap()).unwrap();
    let names = fb.registry()[shader]
        .used_resources()
        .map(|r| (r.name.clone(), r.binding.binding))
        .collect::<Vec<_>>();
    assert!(names.contains(&("many".into(), 5)), "{names:?}");
    let id = fx.add("w.effect.toml", &toml("[defs]\nCOUNT = 1\nBINDING = 3"), wgsl).unwrap();
    let shader = fx.shader(&mut fb, fx.flags(id, &["SHOW"]).unwrap()).unwrap();
    let names = fb.registry()[shader]
        .used_resources()
        .map(|r| (r.name.clone(), r.binding.binding))
        .collect::<Vec<_>>();
    assert!(names.contains(&("few".into(), 3)), "{names:?}");
    let e = fx.add("x.effect.toml", &toml("[defs]\nCOUNT = 1.5"), wgsl).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot take x.effect.toml:5:9: def `COUNT` is a float; a def is a boolean, an integer, or a string to paste"
    );
    let e = fx.add("y.effect.toml", &toml("[defs]\nSHOW = true"), wgsl).unwrap_err();
    assert!(common::chain(&e).contains("def `SHOW` is also a flag"), "{e}");
    let e = fx.add("z.effect.toml", &toml("[defs]\nCOUNT = 5000000000"), wgsl).unwrap_err();
    assert!(common::chain(&e).contains("def `COUNT` is 5000000000, which u32 cannot hold"), "{e}");
}

/// `[defs]` overridden per pipeline request: `with_defs` gives an effect
/// of its own whose pipelines compose with the new values (read back from
/// the GPU), in the base effect's family; the same values give the same
/// effect, and an unknown def or a value of another kind names the def.
#[test]
fn defs_are_overridden_per_pipeline_request() {
    use freqbuf_effects::DefValue;
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let wgsl = "@group(2) @binding(0) var<storage, read_write> seen: array<f32, 2>;
@compute @workgroup_size(1) fn main() {
    seen[0] = f32(#{CASCADES});
#if CASCADES > 2
    seen[1] = 1.0;
#else
    seen[1] = 2.0;
#endif
}
";
    let toml = "name = \"shadow\"\nsource = \"s.wgsl\"\n[defs]\nCASCADES = 1\nSOFT = true\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";
    let mut fx = Effects::new();
    let base = fx.add("s.effect.toml", toml, wgsl).unwrap();
    let four = fx.with_defs(base, &[("CASCADES", DefValue::UInt(4))]).unwrap();
    assert_ne!(four, base);
    assert_eq!(fx.with_defs(base, &[("CASCADES", 4u32.into())]).unwrap(), four, "made once");
    assert_eq!(fx.with_defs(base, &[("CASCADES", 1u32.into())]).unwrap(), base, "the file's own values");
    assert_eq!(fx.effect(four).name(), "shadow{CASCADES=4}");
    assert_eq!(fx.effect(four).family(), fx.effect(base).family());
    let mut seen = Vec::new();
    for id in [base, four] {
        let pass = fx.technique(id, "t").unwrap().next().unwrap();
        let flags = fx.flags(id, &[]).unwrap();
        seen.push(run_seen(h, &mut fx, &mut fb, (pass, flags), 2, |_, _| {}));
    }
    assert_eq!(seen, [[1.0, 2.0], [4.0, 1.0]]);
    let e = fx.with_defs(base, &[("CASCADE", DefValue::UInt(2))]).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot take shadow: def `CASCADE` is not one of the effect's [defs] (CASCADES, SOFT)"
    );
    let e = fx.with_defs(base, &[("SOFT", DefValue::UInt(2))]).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot take shadow: def `SOFT` is a boolean in [defs], and was given an unsigned integer"
    );
}

/// A pass whose entry point exists only under a flag (Bevy's
/// `downsample_first` under `FIRST_DOWNSAMPLE`) says so with `requires`:
/// other permutations do not have it, the whole-effect check passes, and a
/// pipeline of it without the flag is a typed error.
#[test]
fn a_pass_can_require_the_flags_its_entry_point_exists_under() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let wgsl = "@group(2) @binding(0) var<storage, read_write> seen: array<f32, 1>;
#ifdef FIRST_DOWNSAMPLE
@compute @workgroup_size(1) fn downsample_first() { seen[0] = 1.0; }
#endif
@compute @workgroup_size(1) fn downsample() { seen[0] = 2.0; }
";
    let toml = |requires: &str| {
        format!(
            "name = \"bloom\"\nsource = \"bloom.wgsl\"\nflags = [\"FIRST_DOWNSAMPLE\"]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"first\"\n  compute = \"downsample_first\"\n  {requires}\n  [[technique.pass]]\n  name = \"rest\"\n  compute = \"downsample\"\n"
        )
    };
    let mut fx = Effects::new();
    let without = fx.add("old.effect.toml", &toml(""), wgsl).unwrap();
    let e = fx.check(&Registry::new(SlotPlan::default()), without, None).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::MissingEntryPoint { .. }), "{e}");
    let id = fx.add("bloom.effect.toml", &toml("requires = [\"FIRST_DOWNSAMPLE\"]"), wgsl).unwrap();
    let report = fx.check(&Registry::new(SlotPlan::default()), id, None).unwrap();
    assert_eq!((report.permutations, report.exhaustive), (2, true));
    let mut passes = fx.technique(id, "t").unwrap();
    let (first, rest) = (passes.next().unwrap(), passes.next().unwrap());
    let none = fx.flags(id, &[]).unwrap();
    let e = fx.compute_pipeline(&mut fb, first, none).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use bloom: pass `t.first` exists only with FIRST_DOWNSAMPLE, and the flags are [no flags]"
    );
    fx.compute_pipeline(&mut fb, rest, none).unwrap();
    fx.compute_pipeline(&mut fb, first, fx.flags(id, &["FIRST_DOWNSAMPLE"]).unwrap()).unwrap();
    let e = fx.add("bad.effect.toml", &toml("requires = [\"SECOND\"]"), wgsl).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot load bad.effect.toml:9:15: pass `t.first` requires `SECOND`, which is not one of the effect's flags"
    );
}

/// A flag that a source only substitutes (`#{FLAG}`, `#FLAG`), never tests
/// with `#if`, still makes its own permutation: its value is in the text.
#[test]
fn a_flag_only_substituted_counts_as_tested() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let wgsl = "@group(2) @binding(0) var<storage, read_write> seen: array<u32, 1>;
@compute @workgroup_size(1) fn main() { seen[0] = select(0u, 1u, #{LAYERED}); }
";
    let toml = "name = \"s\"\nsource = \"s.wgsl\"\nflags = [\"LAYERED\", \"UNUSED\"]\n[defs]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";
    let mut fx = Effects::new();
    let id = fx.add("s.effect.toml", toml, wgsl).unwrap();
    let on = fx.shader(&mut fb, fx.flags(id, &["LAYERED"]).unwrap()).unwrap();
    let also_on = fx.shader(&mut fb, fx.flags(id, &["LAYERED", "UNUSED"]).unwrap()).unwrap();
    assert_eq!(on, also_on, "UNUSED is never tested: one permutation");
    assert_eq!(fx.stats().registered, 1);
    // Without LAYERED the text differs (naga_oil leaves an undefined `#{..}`):
    // not the LAYERED permutation, as it would be were the flag untested.
    let off = fx.shader(&mut fb, fx.flags(id, &[]).unwrap());
    assert_ne!(off.ok(), Some(on));
}

/// A Bevy-shaped module library (`tests/effects/bevy/`): a sprite effect whose
/// view bindings, tonemapping (LUT bindings placed by valued defs),
/// colour operations and maths are six modules listed by a glob; a second
/// effect finds the same modules by import path in a module directory.
/// Bevy's numbering: group 0 the view, group 1 the material.
#[test]
fn a_bevy_shaped_module_library_loads_by_glob_and_by_module_directory() {
    let plan =
        SlotPlan::empty().with_group(0, freqbuf::Frequency::View).with_group(1, freqbuf::Frequency::Material);
    let registry = Registry::new(plan.clone());
    let mut fx = Effects::new();
    let sprite = fx.load(path("bevy/sprite.effect.toml")).unwrap();
    assert_eq!(fx.stats().module_files, 6, "six modules, each read once");
    // Every combination of its three flags that its [implies] allows (5 of
    // 8: the method and dithering only with tonemapping in the shader).
    let report = fx.check(&registry, sprite, None).unwrap();
    assert_eq!((report.permutations, report.exhaustive), (5, true));
    let mut merged = registry.scratch();
    let tonemapped = fx.flags(sprite, &["TONEMAP_IN_SHADER"]).unwrap();
    fx.merge(&mut merged, sprite, Some(tonemapped)).unwrap();
    let (_, shader) = merged.shaders().next().unwrap();
    let bound = shader
        .used_resources()
        .map(|r| (r.name.as_str(), r.binding.group, r.binding.binding))
        .collect::<Vec<_>>();
    assert_eq!(
        bound,
        [
            ("view", 0, 0),
            ("dt_lut_texture", 0, 3),
            ("dt_lut_sampler", 0, 4),
            ("sprite_texture", 1, 0),
            ("sprite_sampler", 1, 1)
        ],
        "the LUT at the bindings [defs] give, the material group from #{{MATERIAL_BIND_GROUP}}"
    );
    // Imported items keep the names their modules gave them (naga_oil decorates them).
    assert!(merged.resolve("view.exposure", None).is_ok());
    assert!(merged.resolve("View.exposure", None).is_ok());
    // The second effect lists no modules: the directory has them by import path,
    // and the ones already added are not read again.
    let mut bare = Effects::new();
    let t = bare.load(path("bevy/tinted.effect.toml")).unwrap();
    let e = bare.check(&registry, t, None).unwrap_err();
    assert!(common::chain(&e).contains("bevy_sprite::mesh2d_view_bindings"), "{}", common::chain(&e));
    fx.add_module_dir(path("bevy/lib")).unwrap();
    let tinted = fx.load(path("bevy/tinted.effect.toml")).unwrap();
    assert_eq!(fx.stats().module_files, 6);
    assert_eq!(fx.check(&registry, tinted, None).unwrap().permutations, 2);
    let mut alone = Effects::new();
    alone.add_module_dir(path("bevy/lib")).unwrap();
    let tinted = alone.load(path("bevy/tinted.effect.toml")).unwrap();
    assert_eq!(alone.stats().module_files, 6, "view, view bindings, tonemapping and what it imports");
    assert_eq!(alone.check(&registry, tinted, None).unwrap().permutations, 2);
    // A glob that matches nothing is an error at its place in the file.
    let dir = std::env::temp_dir().join(format!("freqbuf-glob-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let toml = std::fs::read_to_string(path("bevy/sprite.effect.toml"))
        .unwrap()
        .replace("lib/*.wgsl", "nothing/*.wgsl");
    std::fs::write(dir.join("sprite.effect.toml"), toml).unwrap();
    std::fs::copy(path("bevy/sprite.wgsl"), dir.join("sprite.wgsl")).unwrap();
    let e = Effects::new().load(dir.join("sprite.effect.toml")).unwrap_err();
    assert!(common::chain(&e).contains("nothing/*.wgsl: no file matches"), "{}", common::chain(&e));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Past 32 flags (Bevy's PBR shader tests over a hundred definitions): flags
/// past the 32nd make their own permutations, the whole-effect check samples
/// and says so, and past the limit the error names it.
#[test]
fn effects_take_more_than_32_flags() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let flags = (0..40).map(|i| format!("F{i}")).collect::<Vec<_>>();
    let tests = flags
        .iter()
        .enumerate()
        .map(|(i, f)| format!("#ifdef {f}\n    seen[0] += {i}u;\n#endif\n"))
        .collect::<String>();
    let wgsl = format!(
        "@group(2) @binding(0) var<storage, read_write> seen: array<u32, 1>;\n@compute @workgroup_size(1) fn main() {{\n{tests}}}\n"
    );
    let toml = |n: usize| {
        let list = (0..n).map(|i| format!("\"F{i}\"")).collect::<Vec<_>>().join(", ");
        format!(
            "source = \"many.wgsl\"\nflags = [{list}]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n"
        )
    };
    let mut fx = Effects::new();
    let id = fx.add("many.effect.toml", &toml(40), &wgsl).unwrap();
    let a = fx.shader(&mut fb, fx.flags(id, &["F35"]).unwrap()).unwrap();
    let b = fx.shader(&mut fb, fx.flags(id, &["F39"]).unwrap()).unwrap();
    let c = fx.shader(&mut fb, fx.flags(id, &["F3", "F39"]).unwrap()).unwrap();
    assert!(a != b && b != c && a != c);
    let report = fx.check(&Registry::new(SlotPlan::default()), id, None).unwrap();
    // None, all, each alone and each pair: 2 + 40 + 780, not 2^40.
    assert_eq!((report.permutations, report.exhaustive), (822, false));
    let e = fx.add("over.effect.toml", &toml(129), &wgsl).unwrap_err();
    assert!(
        common::chain(&e).contains("129 flags; an effect may declare at most 128"),
        "{}",
        common::chain(&e)
    );
}

/// naga_oil decorates imported names (`corner` becomes `cornerX_naga_oil_mod_X…X`);
/// a WGSL error after them on the same line still points at its column in the file.
#[test]
fn error_columns_after_imported_names_point_into_the_file() {
    let mut fx = Effects::new();
    fx.add_module(
        "common.wgsl",
        "#define_import_path lib::common\n\nfn corner(i: u32) -> vec4<f32> { return vec4<f32>(f32(i)); }\n",
    )
    .unwrap();
    let line = "@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> { return corner(i) + corner(i) * undefined_name; }";
    let wgsl = format!("#import lib::common::corner\n\n{line}\n");
    let toml = "source = \"e.wgsl\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  vertex = \"vs\"\n";
    let id = fx.add("e.effect.toml", toml, &wgsl).unwrap();
    let e = fx.check(&Registry::new(SlotPlan::default()), id, None).unwrap_err();
    let column = line.find("undefined_name").unwrap() + 1;
    assert_eq!(
        common::chain(&e),
        format!(
            "cannot compose e.wgsl:3:{column}: with [no flags], naga's WGSL parser refused it: no definition in scope for identifier: `undefined_name`"
        )
    );
}

/// A pass's pipelines see only what its entry points use: a depth pass's
/// layout has no material group, and two passes may use different resources
/// at one binding point (the shadow example's shape) where the whole
/// permutation is refused.
#[test]
fn each_pass_registers_what_its_entry_points_use() {
    let Some(h) = gpu::device() else { return };
    let wgsl = "struct M { color: vec4<f32> }
struct O { pos: vec4<f32> }
@group(2) @binding(0) var<uniform> m: M;
@group(3) @binding(0) var<uniform> o: O;
@group(0) @binding(1) var<storage, read> s_data: array<vec4<f32>>;
@group(0) @binding(1) var<uniform> u_data: vec4<f32>;
@vertex fn vs() -> @builtin(position) vec4<f32> { return o.pos; }
@fragment fn fs_storage() -> @location(0) vec4<f32> { return m.color * s_data[0]; }
@fragment fn fs_uniform() -> @location(0) vec4<f32> { return m.color * u_data; }
";
    let pass =
        |name: &str, fs: &str| format!("  [[technique.pass]]\n  name = \"{name}\"\n  vertex = \"vs\"\n{fs}");
    let toml = format!(
        "source = \"p.wgsl\"\n[[technique]]\nname = \"t\"\n{}{}{}",
        pass("depth", ""),
        pass("storage", "  fragment = \"fs_storage\"\n"),
        pass("uniform", "  fragment = \"fs_uniform\"\n")
    );
    let mut fx = Effects::new();
    let id = fx.add("p.effect.toml", &toml, wgsl).unwrap();
    let [depth, storage, uniform] = {
        let p = fx.technique(id, "t").unwrap().collect::<Vec<_>>();
        [p[0], p[1], p[2]]
    };
    let flags = fx.flags(id, &[]).unwrap();
    let targets =
        Targets::color(wgpu::TextureFormat::Rgba8Unorm).with_depth(wgpu::TextureFormat::Depth32Float);
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let e = fx.shader(&mut fb, flags).unwrap_err();
    assert!(common::chain(&e).contains("are both at this binding point"), "{}", common::chain(&e));
    let depth_shader = fx.render_pipeline(&mut fb, depth, flags, &targets).unwrap().0;
    let used = fb.registry()[depth_shader].used_resources().map(|r| r.name.clone()).collect::<Vec<_>>();
    assert_eq!(used, ["o"], "the depth pass binds no material");
    // Only a pass's narrowed part is registered: the family is fixed all the same.
    assert!(matches!(*fx.set_family(id, "other").unwrap_err().kind, EffectErrorKind::FamilyFixed { .. }));
    fx.render_pipeline(&mut fb, storage, flags, &targets).unwrap();
    // The two fragment variants bind different resources at (0, 1): one
    // manager holds both, each pipeline's layout declaring its own.
    let uniform_shader = fx.render_pipeline(&mut fb, uniform, flags, &targets).unwrap().0;
    let used = fb.registry()[uniform_shader].used_resources().map(|r| r.name.clone()).collect::<Vec<_>>();
    assert_eq!(used, ["u_data", "m", "o"]);
    // An effect of the depth and storage passes only: its materials and its
    // check register what those passes use, though the module declares more.
    let toml = format!(
        "source = \"p.wgsl\"\n[[technique]]\nname = \"t\"\n{}{}",
        pass("depth", ""),
        pass("storage", "  fragment = \"fs_storage\"\n")
    );
    let two = fx.add("two.effect.toml", &toml, wgsl).unwrap();
    assert_eq!(fx.check(&Registry::new(SlotPlan::default()), two, None).unwrap().permutations, 1);
    let mut mats = Materials::new();
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let m = mats.create(&mut fx, &mut fb, two, &[]).unwrap();
    mats.set(&mut fb, m, "color", &[1.0f32; 4]).unwrap();
}
