//! WESL effects (feature `wesl`): `@if` flags, packages, the `constants`
//! package, split stages, names as users write them, files read once, and
//! errors at their `.wesl` file:line:column saying who refused.

use crate::common;

use common::gpu;
use freqbuf::{Binder, Draw, Manager, Registry, SlotPlan};
use freqbuf_effects::{EffectErrorKind, Effects, Targets};

fn path(name: &str) -> String {
    format!("{}/tests/effects/wesl/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn text(name: &str) -> String {
    std::fs::read_to_string(path(name)).unwrap()
}

/// The effect's files as `add_files` takes them, by their names relative to it.
fn files() -> Vec<(&'static str, String)> {
    ["tinted.wesl", "fullscreen.wesl", "shared/material.wesl", "shared/tint.wesl"]
        .into_iter()
        .map(|n| (n, text(n)))
        .collect()
}

/// The four permutations of `tinted`, each drawn with its own material into
/// one texel of a 4×1 float target, must read back as base × tint (with
/// TINT) × scale (with SCALE), computed here in the shader's order. The
/// material block is set by the names the package module gives it
/// (`material.base`, `Material.tint`), not the compiler's mangled ones, at
/// the group `constants::MATERIAL_BIND_GROUP` places it.
#[test]
fn a_wesl_material_draws_four_permutations_with_the_values_of_a_model() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let id = fx.load(path("tinted.effect.toml")).unwrap();
    let report = fx.check(fb.registry(), id, None).unwrap();
    assert_eq!((report.permutations, report.exhaustive), (4, true), "TINT and SCALE are tested");
    let pass = fx.technique(id, "t").unwrap().next().unwrap();
    if !gpu::renders_to(h, wgpu::TextureFormat::Rgba32Float) {
        return;
    }
    let targets = Targets::color(wgpu::TextureFormat::Rgba32Float);
    let combos: [&[&str]; 4] = [&[], &["TINT"], &["SCALE"], &["TINT", "SCALE"]];
    let mut draws = Vec::new();
    let mut expected = Vec::new();
    for (i, on) in combos.iter().enumerate() {
        let flags = fx.flags(id, on).unwrap();
        let (shader, pipeline) = fx.render_pipeline(&mut fb, pass, flags, &targets).unwrap();
        let pipeline = pipeline.clone();
        let k = i as f32 + 1.0;
        let (base, tint, scale) = ([0.5 * k, 0.25, 1.0 / k, 1.0], [2.0, 0.5 * k, 4.0, 0.5], 0.5 + k);
        let m = fb.create_material();
        let (b, t, s) = (
            fb.param("material.base").unwrap(),
            fb.param("Material.tint").unwrap(),
            fb.param("scale").unwrap(),
        );
        let at = fb.registry()[b.slot()].binding();
        assert_eq!(at, freqbuf::BindingPoint::new(2, 0), "constants::MATERIAL_BIND_GROUP is 2");
        fb.material(m).set(b, &base).unwrap();
        fb.material(m).set(t, &tint).unwrap();
        fb.material(m).set(s, &scale).unwrap();
        let mut model = base;
        if on.contains(&"TINT") {
            model = std::array::from_fn(|c| model[c] * tint[c]);
        }
        if on.contains(&"SCALE") {
            model = model.map(|c| c * scale);
        }
        expected.extend(model);
        draws.push((shader, pipeline, m));
    }
    fb.flush(&h.queue).unwrap();
    let size = wgpu::Extent3d { width: 4, height: 1, depth_or_array_layers: 1 };
    let usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
    let target = gpu::texture(h, wgpu::TextureFormat::Rgba32Float, size, usage);
    let view = target.create_view(&Default::default());
    let mut enc = h.device.create_command_encoder(&Default::default());
    {
        let mut rpass = gpu::color_pass(&mut enc, &view);
        let mut binder = Binder::new();
        for (i, (shader, pipeline, m)) in draws.iter().enumerate() {
            rpass.set_viewport(i as f32, 0.0, 1.0, 1.0, 0.0, 1.0);
            rpass.set_pipeline(pipeline);
            binder.bind(&mut fb, &mut rpass, &Draw::new(*shader).material(*m)).unwrap();
            rpass.draw(0..3, 0..1);
        }
    }
    let seen = gpu::read_texture(h, enc, &target, 16).into_iter().map(f32::from_bits).collect::<Vec<_>>();
    assert_eq!(seen, expected, "texel i: permutation {:?}", combos);
}

/// Loading reads the modules the source and stage file refer to, once for
/// the library (not `shared/unused.wesl`, which nothing imports), and the
/// files given by name to `add_files` make the same effect.
#[test]
fn files_are_read_once_and_only_those_imported() {
    let mut fx = Effects::new();
    let a = fx.load(path("tinted.effect.toml")).unwrap();
    assert_eq!(fx.stats().module_files, 2, "shared/material.wesl and shared/tint.wesl");
    let b = fx.load(path("tinted.effect.toml")).unwrap();
    assert_eq!(fx.stats().module_files, 2, "the second effect reads nothing again");
    assert_eq!(fx.effect(a).flags(), fx.effect(b).flags());

    let mut registry = Registry::new(SlotPlan::default());
    let given = files();
    let given = given.iter().map(|(n, t)| (*n, t.as_str())).collect::<Vec<_>>();
    let id = fx.add_files("tinted.effect.toml", &text("tinted.effect.toml"), &given).unwrap();
    let report = fx.merge(&mut registry, id, None).unwrap();
    assert_eq!(report.permutations, 4);
    let material = registry.slots().map(|(_, s)| s).find(|s| s.binding().group == 2).unwrap();
    let names = material.members().iter().map(|m| m.member.name.as_str()).collect::<Vec<_>>();
    assert_eq!(names, ["base", "tint", "scale"]);
}

/// An effect whose files are given by name, one of them replaced.
fn with(
    fx: &mut Effects,
    name: &str,
    replaced: &str,
) -> Result<freqbuf_effects::EffectId, freqbuf_effects::EffectError> {
    let mut given = files();
    given.retain(|(n, _)| *n != name);
    if !replaced.is_empty() {
        given.push((name, replaced.to_owned()));
    }
    let given = given.iter().map(|(n, t)| (*n, t.as_str())).collect::<Vec<_>>();
    fx.add_files("tinted.effect.toml", &text("tinted.effect.toml"), &given)
}

/// Each error names the `.wesl` file and line:column, the permutation, and
/// who refused: the WESL compiler (a parse error in an imported module, a
/// module with no file) or naga (a type error in the compiled WGSL).
#[test]
fn wesl_errors_point_into_their_file_and_name_the_permutation_and_who_refused() {
    let registry = Registry::new(SlotPlan::default());
    let mut fx = Effects::new();
    // A parse error in a module imported only with TINT: other permutations compile.
    let id = with(&mut fx, "shared/tint.wesl", "fn apply_tint(color: vec4<f32> {\n    return color;\n}\n")
        .unwrap();
    fx.check(&registry, id, Some(fx.flags(id, &["SCALE"]).unwrap())).unwrap();
    let e = fx.check(&registry, id, Some(fx.flags(id, &["TINT"]).unwrap())).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::WeslCompiler { .. }), "{e:?}");
    let chain = common::chain(&e);
    assert!(
        chain.starts_with("cannot compose shared/tint.wesl:1:32: with [TINT], the WESL compiler refused it: unexpected token"),
        "{chain}"
    );

    // A module with no file is refused where its importer names it.
    let id = with(&mut fx, "shared/tint.wesl", "").unwrap();
    let e = fx.check(&registry, id, None).unwrap_err();
    let chain = common::chain(&e);
    assert!(
        chain.starts_with(
            "cannot compose tinted.wesl:4:8: with [TINT], the WESL compiler refused it: module not found"
        ),
        "{chain}"
    );

    // A type error that naga finds in the output, at its place in the source.
    let tinted = text("tinted.wesl").replace("material.scale", "material.scal");
    let id = with(&mut fx, "tinted.wesl", &tinted).unwrap();
    let e = fx.check(&registry, id, None).unwrap_err();
    // Only [SCALE] reads the typo, so the whole-effect check names the rule that would exclude it.
    let EffectErrorKind::Excludable { rule, cause } = &*e.kind else { panic!("{e:?}") };
    assert!(matches!(**cause, EffectErrorKind::WeslNaga { .. }), "{e:?}");
    assert_eq!(rule, "implies.SCALE = [\"TINT\"]");
    let chain = common::chain(&e);
    assert!(
        chain.starts_with(
            "cannot compose tinted.wesl:12:30: with [SCALE], naga refused the WGSL compiled from it: "
        ) && chain.ends_with(
            "; `implies.SCALE = [\"TINT\"]` would exclude it and keep every combination that composes"
        ),
        "{chain}"
    );
    // One flag set alone suggests nothing: the rule is the whole-effect check's.
    let e = fx.check(&registry, id, Some(fx.flags(id, &["SCALE"]).unwrap())).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::WeslNaga { .. }), "{e:?}");

    // freqbuf refuses a package name WESL cannot import, at its place in the effect file.
    let toml = text("tinted.effect.toml").replace("shared = \"shared\"", "constants = \"shared\"");
    let e =
        fx.add_files("bad.effect.toml", &toml, &[("tinted.wesl", ""), ("fullscreen.wesl", "")]).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::WeslSetup(_)), "{e:?}");
    assert!(
        common::chain(&e)
            .starts_with("cannot load bad.effect.toml:8:13: `constants` cannot name a WESL package"),
        "{e}"
    );
}

/// `add` takes the source's text; its imports come from the library's
/// packages (`add_package`, or `add_packages` by glob, named by folder).
#[test]
fn add_reads_imports_from_the_library_packages() {
    let mut fx = Effects::new();
    // `SCALE`, which tinted.wesl tests, is a def here, off: not a flag.
    let toml = "source = \"m.wesl\"\nflags = [\"TINT\"]\n[defs]\nMATERIAL_BIND_GROUP = 1\nSCALE = false\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  vertex = \"vertex\"\n  fragment = \"fragment\"\n";
    let source = format!("{}\n{}", text("tinted.wesl"), text("fullscreen.wesl"));
    let early = fx.add("m.effect.toml", toml, &source).unwrap();
    let e = fx.check(&Registry::new(SlotPlan::default()), early, None).unwrap_err();
    assert!(common::chain(&e).contains("no package `shared` is given (packages: none)"), "{e}");
    // Packages apply to effects added after them.
    assert_eq!(fx.add_packages(&path("s*")).unwrap(), ["shared"]);
    let id = fx.add("m.effect.toml", toml, &source).unwrap();
    let mut registry = Registry::new(SlotPlan::default());
    let report = fx.merge(&mut registry, id, None).unwrap();
    assert_eq!(report.permutations, 2, "TINT is tested; SCALE is not a flag here");
    let material = registry.slots().map(|(_, s)| s).next().unwrap();
    assert_eq!(material.binding(), freqbuf::BindingPoint::new(1, 0), "MATERIAL_BIND_GROUP = 1");
}
