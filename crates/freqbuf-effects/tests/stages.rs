//! Passes whose stages come from different files: Bevy's 2D materials take
//! the vertex stage from the mesh file and the fragment stage from their own,
//! both composed with the same flags and defs, and linked into one layout.

use crate::common;

use common::gpu;
use freqbuf::{Binder, BindingPoint, Draw, Frequency, Manager, Registry, SlotPlan};
use freqbuf_effects::{EffectErrorKind, Effects, Targets};

fn path(name: &str) -> String {
    format!("{}/tests/effects/bevy/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn bevy_plan() -> SlotPlan {
    SlotPlan::empty()
        .with_group(0, Frequency::View)
        .with_group(1, Frequency::Object)
        .with_group(2, Frequency::Material)
}

/// Four quads, one per pixel of a 4×1 target, two materials; each pixel must
/// be its material's color plus its object's tag (halved with VERTEX_COLORS),
/// read back from the GPU. The mesh data is a storage array slot in group 1.
#[test]
fn a_2d_material_draws_with_the_mesh_files_vertex_stage() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::with_downlevel(&h.device, bevy_plan(), h.downlevel);
    let mut fx = Effects::new();
    let id = fx.load(path("color_material.effect.toml")).unwrap();
    let pass = fx.technique(id, "t").unwrap().next().unwrap();
    assert_eq!(fx.pass(pass).files[0].as_deref(), Some("mesh/mesh2d.wgsl"));
    assert_eq!(fx.pass(pass).files[1], None, "the fragment stage is the source's");
    let format = wgpu::TextureFormat::Rgba32Float;
    if !gpu::renders_to(h, format) {
        return;
    }
    let family = fx.effect(id).family().to_owned();
    let white = gpu::texel(h, [255; 4]);
    let sampler = h.device.create_sampler(&Default::default());
    for (flags, scale) in [(&[][..], 1.0f32), (&["VERTEX_COLORS"][..], 0.5)] {
        let flags = fx.flags(id, flags).unwrap();
        let (shader, pipeline) = fx.render_pipeline(&mut fb, pass, flags, &Targets::color(format)).unwrap();
        let pipeline = pipeline.clone();
        // The pipeline binds what both files' stages use, each once.
        let used =
            fb.registry()[shader].used_resources().map(|r| (r.name.clone(), r.binding)).collect::<Vec<_>>();
        let at = BindingPoint::new;
        let names = ["view", "mesh", "material", "texture", "texture_sampler"].map(str::to_owned);
        let points = [at(0, 0), at(1, 0), at(2, 0), at(2, 1), at(2, 2)];
        assert_eq!(used, names.into_iter().zip(points).collect::<Vec<_>>());
        let v = fb.create_view();
        let clip =
            [[1.0f32, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];
        let (clip_p, exposure) =
            (fb.param("view.clip_from_world").unwrap(), fb.param("view.exposure").unwrap());
        fb.view(v).set(clip_p, &clip).unwrap();
        fb.view(v).set(exposure, &1.0f32).unwrap();
        let color = fb.param_in(&family, "material.color").unwrap();
        let (world_p, tag) = (fb.param("mesh.world_from_local").unwrap(), fb.param("mesh.tag").unwrap());
        let colors = [[0.25f32, 0.5, 0.0, 1.0], [0.0, 0.125, 0.75, 0.5]];
        let materials = colors.map(|c| {
            let m = fb.create_material_in(&family);
            fb.material(m).set(color, &c).unwrap();
            fb.material(m).set_texture("texture", &white).unwrap();
            fb.material(m).set_sampler("texture_sampler", &sampler).unwrap();
            m
        });
        let objects = (0..4)
            .map(|i| {
                let o = fb.create_object();
                // The unit quad scaled to one pixel of four and moved to pixel i.
                let x = -1.0 + 0.5 * i as f32;
                let world = [
                    [0.5f32, 0.0, 0.0, 0.0],
                    [0.0, 2.0, 0.0, 0.0],
                    [0.0, 0.0, 1.0, 0.0],
                    [x, -1.0, 0.0, 1.0],
                ];
                fb.object(o).set(world_p, &world).unwrap();
                fb.object(o).set(tag, &[0.0f32, 0.0, 0.0625 * i as f32, 0.0]).unwrap();
                o
            })
            .collect::<Vec<_>>();
        fb.flush(&h.queue).unwrap();
        let size = wgpu::Extent3d { width: 4, height: 1, depth_or_array_layers: 1 };
        let usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
        let target = gpu::texture(h, format, size, usage);
        let view = target.create_view(&Default::default());
        let mut enc = h.device.create_command_encoder(&Default::default());
        {
            let mut rpass = gpu::color_pass(&mut enc, &view);
            rpass.set_pipeline(&pipeline);
            let mut binder = Binder::new();
            for (i, &o) in objects.iter().enumerate() {
                let draw = Draw::new(shader).view(v).material(materials[i % 2]).object(o);
                let first = binder.bind(&mut fb, &mut rpass, &draw).unwrap();
                rpass.draw(0..6, first..first + 1);
            }
        }
        let words = gpu::read_texture(h, enc, &target, 16);
        let pixels = words.chunks(4).map(|c| c.iter().map(|w| f32::from_bits(*w)).collect::<Vec<_>>());
        for (i, seen) in pixels.enumerate() {
            let mut want = colors[i % 2];
            want[2] += 0.0625 * i as f32;
            let want = want.map(|c| c * scale);
            assert_eq!(seen, want, "pixel {i} with {:?}", fx.effect(id).flags());
        }
    }
}

/// The whole-effect check composes both files per permutation and merges
/// their link; `add_files` takes the files by the names the effect gives.
#[test]
fn the_check_links_both_files_and_text_effects_name_them() {
    let registry = Registry::new(bevy_plan());
    let mut fx = Effects::new();
    let id = fx.load(path("color_material.effect.toml")).unwrap();
    let report = fx.check(&registry, id, None).unwrap();
    assert_eq!((report.permutations, report.exhaustive), (2, true), "VERTEX_COLORS is tested in both files");
    let mut merged = registry.scratch();
    fx.merge(&mut merged, id, None).unwrap();
    assert!(merged.slot_at(BindingPoint::new(1, 0)).is_some_and(|s| merged[s].is_array()));

    let toml = "source = \"fs.wgsl\"\n[[technique]]\nname = \"t\"\n[[technique.pass]]\nname = \"p\"\nvertex = { source = \"vs.wgsl\", entry = \"vs\" }\nfragment = \"fs\"\n";
    let vs = "@group(0) @binding(0) var<uniform> v: vec4<f32>;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return v; }\n";
    let fs = "@group(0) @binding(0) var<uniform> v: vec4<f32>;\n@fragment fn fs() -> @location(0) vec4<f32> { return v; }\n";
    let mut fx = Effects::new();
    let id = fx.add_files("two.effect.toml", toml, &[("fs.wgsl", fs), ("vs.wgsl", vs)]).unwrap();
    assert_eq!(fx.check(&registry, id, None).unwrap().permutations, 1);
    // A file the effect names but the caller did not give: at its place in the TOML.
    let e = fx.add_files("two.effect.toml", toml, &[("fs.wgsl", fs)]).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot load two.effect.toml:6:10: cannot read the file: vs.wgsl: not among the files given"
    );
    // An entry point the other file lacks names that file.
    let e = fx.add_files("two.effect.toml", toml, &[("fs.wgsl", fs), ("vs.wgsl", fs)]).unwrap();
    let err = fx.check(&registry, e, None).unwrap_err();
    assert!(matches!(*err.kind, EffectErrorKind::MissingEntryPoint { .. }), "{err}");
    assert!(err.to_string().starts_with("cannot build vs.wgsl"), "{err}");
    // Two files that put different resources at one point, both used by the pass.
    // Each resource is named by its own file and line:column, not the pass's
    // name or the other file's position; one imported is named by its module.
    let other = "// the vertex stage\n\n@group(0) @binding(0)\n    var<uniform> w: vec4<f32>;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return w; }\n";
    let mut fx = Effects::new();
    let e = fx.add_files("two.effect.toml", toml, &[("fs.wgsl", fs), ("vs.wgsl", other)]).unwrap();
    let err = fx.check(&registry, e, None).unwrap_err();
    assert_eq!(
        common::chain(&err),
        "cannot merge the permutations of fs.wgsl: the permutation with [no flags] (passes t.p) does not fit the others: cannot lay out @group(0) @binding(0): `w` in vs.wgsl:4:5 (uniform block, used by \
         vs) and `v` in fs.wgsl:1:23 (uniform block, used by fs) are both at this binding point; a pipeline \
         binds one resource there, so register each pipeline's entry points apart \
         (ShaderReflection::for_entry_points)"
    );
    let module =
        "#define_import_path lib::view\n\n// shared\n@group(0) @binding(0) var<uniform> u: vec4<f32>;\n";
    let imports = "#import lib::view::u\n@vertex fn vs() -> @builtin(position) vec4<f32> { return u; }\n";
    let mut fx = Effects::new();
    fx.add_module("lib/view.wgsl", module).unwrap();
    let e = fx.add_files("two.effect.toml", toml, &[("fs.wgsl", fs), ("vs.wgsl", imports)]).unwrap();
    let err = fx.check(&registry, e, None).unwrap_err();
    assert_eq!(
        common::chain(&err),
        "cannot merge the permutations of fs.wgsl: the permutation with [no flags] (passes t.p) does not fit the others: cannot lay out @group(0) @binding(0): `u` in lib/view.wgsl:4:23 (uniform block, \
         used by vs) and `v` in fs.wgsl:1:23 (uniform block, used by fs) are both at this binding point; a \
         pipeline binds one resource there, so register each pipeline's entry points apart \
         (ShaderReflection::for_entry_points)"
    );
}

/// Bevy's cluster_raster shape: the vertex stage gets `VERTEX_SHADER` and
/// the fragment stage does not (`VertexState::shader_defs`). Only with the
/// def does the vertex stage's triangle cover the target, and only without
/// it does the fragment stage write a quarter of the tint: the pixel read
/// back proves each stage was composed with its own defs.
#[test]
fn a_stage_gets_defs_of_its_own() {
    let Some(h) = gpu::device() else { return };
    let source = "@group(0) @binding(0) var<uniform> tint: vec4<f32>;
#ifdef VERTEX_SHADER
const SPAN: f32 = 4.0;
#else
const SPAN: f32 = 0.0;
#endif
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    return vec4<f32>(f32(i & 1u) * SPAN - 1.0, f32(i >> 1u) * SPAN - 1.0, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return tint * (0.25 + SPAN * 0.1875); }
";
    let toml = "source = \"s.wgsl\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  \
                vertex = { entry = \"vs\", defs = { VERTEX_SHADER = true } }\n  fragment = \"fs\"\n";
    let mut fx = Effects::new();
    let id = fx.add("s.effect.toml", toml, source).unwrap();
    let report = fx.check(&Registry::new(SlotPlan::default()), id, None).unwrap();
    assert_eq!((report.permutations, report.exhaustive), (1, true));
    let texel = one_pixel(h, &mut fx, id, &[]);
    assert_eq!(texel, [64, 64, 64, 64], "a quarter of the tint: the vertex stage alone had VERTEX_SHADER");
    // A def of one stage is a def: the source may test it; a flag may not be one.
    let bad = toml
        .replace("VERTEX_SHADER = true", "TINTED = true")
        .replace("source = \"s.wgsl\"", "source = \"s.wgsl\"\nflags = [\"TINTED\"]");
    let e = fx.add("bad.effect.toml", &bad, source).unwrap_err();
    assert!(common::chain(&e).contains("is also a flag"), "{}", common::chain(&e));
}

/// The one pixel a pass of `id` draws with `flags`: a triangle from its
/// vertex stage (three vertices), `tint` white, on a cleared 1×1 target.
fn one_pixel(
    h: &freqbuf::Headless,
    fx: &mut Effects,
    id: freqbuf_effects::EffectId,
    flags: &[&str],
) -> [u8; 4] {
    let pass = fx.technique(id, "t").unwrap().next().unwrap();
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let flags = fx.flags(id, flags).unwrap();
    let (shader, pipeline) = fx.render_pipeline(&mut fb, pass, flags, &Targets::color(format)).unwrap();
    let pipeline = pipeline.clone();
    fb.frame().set_by_name("tint", &[1.0f32, 1.0, 1.0, 1.0]).unwrap();
    fb.flush(&h.queue).unwrap();
    let target = gpu::target(h, format, (1, 1));
    let view = target.create_view(&Default::default());
    let mut enc = h.device.create_command_encoder(&Default::default());
    {
        let mut rpass = gpu::color_pass(&mut enc, &view);
        rpass.set_pipeline(&pipeline);
        Binder::new().bind(&mut fb, &mut rpass, &Draw::new(shader)).unwrap();
        rpass.draw(0..3, 0..1);
    }
    gpu::read_texture(h, enc, &target, 4)[0].to_le_bytes()
}

/// Bevy's line gizmos: `PERSPECTIVE` reaches the fragment stage only
/// (`without` on the vertex stage). Under `PERSPECTIVE` this vertex stage
/// draws nothing and the fragment stage writes half the tint: with
/// `without`, the pixel is half the tint; without it, untouched. A
/// `without` naming no flag is refused where it is written.
#[test]
fn a_stage_without_a_flag_is_composed_without_it() {
    let Some(h) = gpu::device() else { return };
    let source = "@group(0) @binding(0) var<uniform> tint: vec4<f32>;
#ifdef PERSPECTIVE
const SPAN: f32 = 0.0;
const SHADE: f32 = 0.5;
#else
const SPAN: f32 = 4.0;
const SHADE: f32 = 0.25;
#endif
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    return vec4<f32>(f32(i & 1u) * SPAN - 1.0, f32(i >> 1u) * SPAN - 1.0, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> { return tint * SHADE; }
";
    let toml = |vertex: &str| {
        format!(
            "source = \"s.wgsl\"\nflags = [\"PERSPECTIVE\"]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  \
             name = \"p\"\n  vertex = {vertex}\n  fragment = \"fs\"\n"
        )
    };
    let mut fx = Effects::new();
    let both = fx.add("both.effect.toml", &toml("\"vs\""), source).unwrap();
    assert_eq!(
        one_pixel(h, &mut fx, both, &["PERSPECTIVE"]),
        [0, 0, 0, 255],
        "nothing drawn: the clear color"
    );
    let lines = fx
        .add("lines.effect.toml", &toml("{ entry = \"vs\", without = [\"PERSPECTIVE\"] }"), source)
        .unwrap();
    assert_eq!(one_pixel(h, &mut fx, lines, &["PERSPECTIVE"]), [128; 4], "half the tint");
    assert_eq!(one_pixel(h, &mut fx, lines, &[]), [64; 4], "a quarter without the flag");
    let report = fx.check(&Registry::new(SlotPlan::default()), lines, None).unwrap();
    assert_eq!((report.permutations, report.exhaustive), (2, true));
    let e = fx
        .add("typo.effect.toml", &toml("{ entry = \"vs\", without = [\"PERSPECTIV\"] }"), source)
        .unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot load typo.effect.toml:7:12: pass `t.p`'s stage is `without` `PERSPECTIV`, which is not one of the effect's flags"
    );
}
