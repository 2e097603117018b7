//! Materials and auto constants, read back from the GPU: every semantic
//! equals a value computed here independently, derived values are written
//! when and only when their inputs change, flags change without losing
//! values, and derived materials inherit and override.

use crate::common;

use common::gpu;
use freqbuf::{Draw, Headless, Manager, Registry, SlotPlan};
use freqbuf_effects::{AutoConstants, Camera, Effects, MaterialErrorKind, Materials};

fn path(name: &str) -> String {
    format!("{}/tests/effects/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs a compute pass `pass` of `shader` once and reads `out` back as floats.
fn dispatch(
    h: &Headless,
    fb: &mut Manager,
    pipeline: &wgpu::ComputePipeline,
    draw: Draw,
    out: &wgpu::Buffer,
) -> Vec<f32> {
    fb.flush(&h.queue).unwrap();
    gpu::run(h, fb, [(pipeline, draw)]);
    gpu::floats(h, out)
}

type M4 = [[f64; 4]; 4];

fn mul(a: &M4, b: &M4) -> M4 {
    // Column-major: (a * b)[c][r] = sum_k a[k][r] * b[c][k].
    std::array::from_fn(|c| std::array::from_fn(|r| (0..4).map(|k| a[k][r] * b[c][k]).sum()))
}

/// Gauss-Jordan inverse with partial pivoting, in f64.
fn inverse<const N: usize>(m: [[f64; N]; N]) -> [[f64; N]; N] {
    let mut a = m;
    let mut inv: [[f64; N]; N] =
        std::array::from_fn(|i| std::array::from_fn(|j| f64::from(u8::from(i == j))));
    for col in 0..N {
        let pivot = (col..N).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs())).unwrap();
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let d = a[col][col];
        for j in 0..N {
            a[col][j] /= d;
            inv[col][j] /= d;
        }
        for row in 0..N {
            if row != col {
                let f = a[row][col];
                for j in 0..N {
                    a[row][j] -= f * a[col][j];
                    inv[row][j] -= f * inv[col][j];
                }
            }
        }
    }
    inv
}

fn to32(m: &M4) -> [[f32; 4]; 4] {
    m.map(|c| c.map(|x| x as f32))
}

fn close(got: &[f32], want: impl IntoIterator<Item = f64>, what: &str) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((*g as f64 - w).abs() <= 1e-4 * w.abs().max(1.0), "{what}[{i}]: got {g}, want {w}");
    }
}

#[test]
fn every_auto_constant_equals_an_independent_computation() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let id = fx.load(path("auto.effect.toml")).unwrap();
    let flags = fx.flags(id, &[]).unwrap();
    let pass = fx.technique(id, "copy").unwrap().next().unwrap();
    let (shader, pipeline) = fx.compute_pipeline(&mut fb, pass, flags).unwrap();
    let pipeline = pipeline.clone();
    let mut auto = AutoConstants::new();
    auto.bind_effect(fb.registry(), fx.effect(id)).unwrap();

    // A world with a non-uniform scale and a rotation; a view; an off-center frustum.
    let (s, c) = (0.5f64.sin(), 0.5f64.cos());
    let world: M4 = [
        [2.0 * c, 2.0 * s, 0.0, 0.0],
        [-3.0 * s, 3.0 * c, 0.0, 0.0],
        [0.0, 0.0, 4.0, 0.0],
        [1.0, 2.0, 3.0, 1.0],
    ];
    let view: M4 = [[c, 0.0, -s, 0.0], [0.0, 1.0, 0.0, 0.0], [s, 0.0, c, 0.0], [-5.0, -1.0, -10.0, 1.0]];
    let (l, r, b, t, n, f) = (-1.0, 2.0, -0.5, 1.5, 0.5, 50.0);
    let proj: M4 = [
        [2.0 * n / (r - l), 0.0, 0.0, 0.0],
        [0.0, 2.0 * n / (t - b), 0.0, 0.0],
        [(r + l) / (r - l), (t + b) / (t - b), -f / (f - n), -1.0],
        [0.0, 0.0, -f * n / (f - n), 0.0],
    ];
    let (v, o, m) = (fb.create_view(), fb.create_object(), fb.create_material());
    auto.set_time(12.5, 0.016, 7);
    auto.set_camera(v, Camera { view: to32(&view), proj: to32(&proj), viewport: [1280.0, 720.0] });
    auto.set_world(o, to32(&world));
    auto.update(&mut fb).unwrap();
    let out = gpu::storage(h, 160);
    fb.material(m).set_buffer("out", &out).unwrap();
    let got = dispatch(h, &mut fb, &pipeline, Draw::new(shader).view(v).object(o).material(m), &out);

    let flat = |m: &M4| m.iter().flatten().copied().collect::<Vec<_>>();
    close(&got[0..3], [12.5, 0.016, 7.0], "frame");
    close(&got[4..20], flat(&view), "view");
    close(&got[20..36], flat(&proj), "proj");
    let view_proj = mul(&proj, &view);
    close(&got[36..52], flat(&view_proj), "view_proj");
    close(&got[52..68], flat(&inverse(view)), "inv_view");
    close(&got[68..84], flat(&inverse(proj)), "inv_proj");
    close(&got[84..100], flat(&inverse(view_proj)), "inv_view_proj");
    let eye = inverse(view)[3];
    close(&got[100..103], eye[..3].iter().copied(), "camera_position");
    close(&got[103..105], [1280.0, 720.0], "viewport_size");
    close(&got[108..124], flat(&world), "world");
    close(&got[124..140], flat(&inverse(world)), "inv_world");
    let upper: [[f64; 3]; 3] = std::array::from_fn(|c| std::array::from_fn(|r| world[c][r]));
    let inv = inverse(upper);
    // The transpose of the inverse, column-major: column c, row r is inv[r][c].
    let normal = (0..3).flat_map(|c| (0..3).map(move |r| (c, r))).map(|(c, r)| inv[r][c]);
    close(&got[140..149], normal, "normal_matrix");
}

#[test]
fn derived_values_are_written_when_and_only_when_their_inputs_change() {
    let Some(h) = gpu::device() else { return };
    let (mut fb, mut auto) = bound_auto(h);
    let v = fb.create_view();
    let objects = (0..10).map(|_| fb.create_object()).collect::<Vec<_>>();
    let camera = Camera {
        view: [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, -3.0, 1.0]],
        proj: [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]],
        viewport: [64.0, 64.0],
    };
    auto.set_camera(v, camera);
    for (i, &o) in objects.iter().enumerate() {
        let mut w = camera.view;
        w[3][0] = i as f32;
        auto.set_world(o, w);
    }
    auto.set_time(1.0, 0.5, 1);
    auto.update(&mut fb).unwrap();
    fb.flush(&h.queue).unwrap();
    // 3 frame + 8 view + 3 per object.
    assert_eq!(auto.derived(), 3 + 8 + 3 * 10);
    fb.take_stats();

    // Nothing changed (the same camera and world given again): nothing derived or uploaded.
    auto.set_camera(v, camera);
    auto.set_world(objects[0], {
        let mut w = camera.view;
        w[3][0] = 0.0;
        w
    });
    auto.update(&mut fb).unwrap();
    fb.flush(&h.queue).unwrap();
    assert_eq!(auto.derived(), 41);
    assert_eq!(fb.take_stats().total().bytes_uploaded, 0);

    // One object moves: its three values, and only its bytes.
    let mut w = camera.view;
    w[3][1] = 5.0;
    auto.set_world(objects[4], w);
    auto.update(&mut fb).unwrap();
    fb.flush(&h.queue).unwrap();
    assert_eq!(auto.derived(), 44);
    let object_slot = fb.registry().slot_at(freqbuf::BindingPoint::new(3, 0)).unwrap();
    let stats = fb.take_stats();
    assert!(
        stats.slot(object_slot).bytes_uploaded > 0 && stats.slot(object_slot).bytes_uploaded <= 176,
        "{stats:?}"
    );
    assert_eq!(stats.total().bytes_uploaded, stats.slot(object_slot).bytes_uploaded, "no other slot");
}

#[test]
fn materials_keep_values_across_flags_and_derived_ones_inherit_and_override() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let probe = fx.load(path("probe.effect.toml")).unwrap();
    let mut mats = Materials::new();
    let parent = mats.create(&mut fx, &mut fb, probe, &[]).unwrap();
    let pass = fx.technique(probe, "probe").unwrap().next().unwrap();
    let run = |fx: &mut Effects, fb: &mut Manager, mats: &Materials, m| {
        let out = gpu::storage(h, 8);
        let instance = m;
        fb.material(instance).set_buffer("seen", &out).unwrap();
        let (shader, pipeline) = fx.compute_pipeline(fb, pass, mats.flags(m).unwrap()).unwrap();
        let pipeline = pipeline.clone();
        dispatch(h, fb, &pipeline, Draw::new(shader).material(instance), &out)[..5].to_vec()
    };
    // [params] defaults, then a value the current permutation lacks: kept for later.
    assert_eq!(run(&mut fx, &mut fb, &mats, parent), [0.25, 0.5, 0.75, 1.0, -1.0]);
    mats.set(&mut fb, parent, "normal_strength", &9.0f32).unwrap();
    mats.set_flags(&mut fx, &mut fb, parent, &["NORMAL_MAP"]).unwrap();
    assert_eq!(run(&mut fx, &mut fb, &mats, parent), [0.25, 0.5, 0.75, 1.0, 9.0], "nothing lost");

    // A derived material takes the parent's flags and values, and later
    // parent changes, until it overrides them.
    let child = mats.derive(&mut fb, parent).unwrap();
    assert_eq!(run(&mut fx, &mut fb, &mats, child), [0.25, 0.5, 0.75, 1.0, 9.0]);
    mats.set(&mut fb, parent, "base_color", &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    assert_eq!(run(&mut fx, &mut fb, &mats, child)[..4], [1.0, 2.0, 3.0, 4.0], "inherited");
    mats.set(&mut fb, child, "base_color", &[5.0f32, 6.0, 7.0, 8.0]).unwrap();
    mats.set(&mut fb, parent, "base_color", &[0.0f32; 4]).unwrap();
    assert_eq!(run(&mut fx, &mut fb, &mats, child)[..4], [5.0, 6.0, 7.0, 8.0], "overridden");
    assert_eq!(run(&mut fx, &mut fb, &mats, parent)[..4], [0.0; 4]);
    // The child changes flags alone, keeping its values.
    mats.set_flags(&mut fx, &mut fb, child, &[]).unwrap();
    assert_eq!(run(&mut fx, &mut fb, &mats, child), [5.0, 6.0, 7.0, 8.0, -1.0]);
}

#[test]
fn material_and_auto_errors_name_what_is_wrong() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let probe = fx.load(path("probe.effect.toml")).unwrap();
    let mut mats = Materials::new();
    let m = mats.create(&mut fx, &mut fb, probe, &[]).unwrap();
    let e = mats.set(&mut fb, m, "base_colr", &[0.0f32; 4]).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot set `base_colr` on the material: no permutation of effect `probe` has it; did you mean `base_color`?"
    );
    let e = mats.set(&mut fb, m, "base_color", &1.0f32).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot set `base_color` on the material: the member is vec4<f32>, the value is f32"
    );
    // What `main` prints after `Error: ` (Debug is the report, not the structure).
    assert_eq!(
        format!("{e:?}"),
        "cannot set `base_color` on the material\n\nCaused by:\n    the member is vec4<f32>, the value is f32"
    );
    // A material of another store, or the manager's own, is refused; the
    // store's own material keeps its value.
    let mut other = Materials::new();
    let foreign = other.create(&mut fx, &mut fb, probe, &[]).unwrap();
    mats.set(&mut fb, m, "base_color", &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let e = mats.set(&mut fb, foreign, "base_color", &[9.0f32; 4]).unwrap_err();
    assert_eq!(common::chain(&e), "cannot use the material: the handle belongs to another store");
    assert!(mats.flags(foreign).is_none());
    let bare = fb.create_material();
    assert!(mats.set(&mut fb, bare, "base_color", &[9.0f32; 4]).is_err());
    assert!(mats.set_flags(&mut fx, &mut fb, foreign, &[]).is_err());
    let color = fb.param("base_color").unwrap();
    let own = fb.material(m).get_bytes(color).unwrap();
    assert_eq!(own, [1.0f32, 2.0, 3.0, 4.0].iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<_>>());

    // The auto effect's storage buffer sits where probe's block is: another manager.
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let id = fx.load(path("auto.effect.toml")).unwrap();
    let mut auto = AutoConstants::new();
    // Before any permutation of the effect is registered, its members cannot resolve.
    let e = auto.bind_effect(fb.registry(), fx.effect(id)).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot bind the [auto] table of effect `auto`: no permutation of it is registered yet; create a material of it or build a pipeline first (Effects::shader), or bind against the registry of Effects::merge"
    );
    fx.shader(&mut fb, fx.flags(id, &[]).unwrap()).unwrap();
    let r = fb.registry();
    let e = auto.bind(r, "world", "world_view_proj").unwrap_err();
    assert!(matches!(*e.kind, MaterialErrorKind::TwoFrequencies { .. }));
    assert_eq!(
        common::chain(&e),
        "cannot use semantic `world_view_proj`: `world_view_proj` depends on both a view and an object, so it belongs to no frequency and would be recomputed per draw; bind `view_proj` (view) and `world` (object) and multiply in the shader"
    );
    let e = auto.bind(r, "view_proj", "world").unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot bind `view_proj` to semantic `world`: `view_proj` is in a view slot, but `world` changes per object"
    );
    let e = auto.bind(r, "inv_world", "normal_matrix").unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot bind `inv_world` to semantic `normal_matrix`: `inv_world` is mat4x4<f32>, but `normal_matrix` is mat3x3<f32>"
    );
    let e = auto.bind(r, "world", "wrold").unwrap_err();
    assert!(
        common::chain(&e)
            .starts_with("cannot use semantic `wrold`: unknown semantic (the semantics are time, delta_time"),
        "{e}"
    );
    let e = auto.bind(r, "nope", "time").unwrap_err();
    assert!(common::chain(&e).contains("unknown name"), "{e}");

    // The tables are checked against every permutation without a device.
    let bad = "source = \"probe.wgsl\"\nflags = [\"NORMAL_MAP\"]\n[params]\nbase_color = [1.0, 2.0]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"cs_main\"\n";
    let wgsl = std::fs::read_to_string(path("probe.wgsl")).unwrap();
    let id = fx.add("bad.effect.toml", bad, &wgsl).unwrap();
    let mut merged = Registry::new(SlotPlan::default());
    let e = fx.merge(&mut merged, id, None).unwrap_err();
    let table = "cannot take the [params] default of `base_color`: the member is vec4<f32>, the value has 2 numbers, not 4 ([1.0, 2.0])";
    assert_eq!(
        common::chain(&e),
        format!(
            "cannot check the tables of bad.effect.toml: an entry of the effect's [params] or [auto] table is refused: {table}"
        )
    );
    // The same rule, on the permutations merged so far.
    let e = freqbuf_effects::validate_tables(&fx, id, &merged, true).unwrap_err();
    assert_eq!(common::chain(&e), table);
}

#[test]
fn derived_materials_inherit_textures_until_they_set_their_own() {
    let Some(h) = gpu::device() else { return };
    let toml = "source = \"tex.wgsl\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";
    let wgsl = "@group(2) @binding(0) var tex: texture_2d<f32>;\n@group(2) @binding(1) var<storage, read_write> seen: array<f32, 4>;\n@compute @workgroup_size(1) fn main() { let c = textureLoad(tex, vec2<i32>(0), 0); seen[0] = c.x; seen[1] = c.y; seen[2] = c.z; seen[3] = c.w; }\n";
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let e = fx.add("tex.effect.toml", toml, wgsl).unwrap();
    let mut mats = Materials::new();
    let parent = mats.create(&mut fx, &mut fb, e, &[]).unwrap();
    let child = mats.derive(&mut fb, parent).unwrap();
    let pass = fx.technique(e, "t").unwrap().next().unwrap();
    let red = gpu::texel(h, [255, 0, 0, 255]);
    let blue = gpu::texel(h, [0, 0, 255, 255]);
    mats.set_texture(&mut fb, parent, "tex", &red).unwrap();
    let e2 = mats.set_texture(&mut fb, parent, "texx", &red).unwrap_err();
    assert!(common::chain(&e2).contains("did you mean `tex`?"), "{e2}");
    let run = |fx: &mut Effects, fb: &mut Manager, mats: &Materials, m| {
        let out = gpu::storage(h, 4);
        let instance = m;
        fb.material(instance).set_buffer("seen", &out).unwrap();
        let (shader, pipeline) = fx.compute_pipeline(fb, pass, mats.flags(m).unwrap()).unwrap();
        let pipeline = pipeline.clone();
        dispatch(h, fb, &pipeline, Draw::new(shader).material(instance), &out)
    };
    assert_eq!(run(&mut fx, &mut fb, &mats, child), [1.0, 0.0, 0.0, 1.0], "inherited");
    mats.set_texture(&mut fb, child, "tex", &blue).unwrap();
    mats.set_texture(&mut fb, parent, "tex", &red).unwrap();
    assert_eq!(run(&mut fx, &mut fb, &mats, child), [0.0, 0.0, 1.0, 1.0], "its own");
    assert_eq!(run(&mut fx, &mut fb, &mats, parent), [1.0, 0.0, 0.0, 1.0]);
}

/// A value for a member only another permutation has is checked against
/// that permutation's type when it is set, before the permutation is
/// registered; once refused, switching flags finds nothing wrong and the
/// draw sees the member's own value, not zero from a half-done switch.
#[test]
fn values_are_checked_against_permutations_not_yet_registered() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let probe = fx.load(path("probe.effect.toml")).unwrap();
    let mut mats = Materials::new();
    let m = mats.create(&mut fx, &mut fb, probe, &[]).unwrap();
    let e = mats.set(&mut fb, m, "normal_strength", &7u32).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot set `normal_strength` on the material: the member is f32, the value is u32"
    );
    mats.set(&mut fb, m, "normal_strength", &7.0f32).unwrap();
    mats.set_flags(&mut fx, &mut fb, m, &["NORMAL_MAP"]).unwrap();
    assert_eq!(mats.flags(m), Some(fx.flags(probe, &["NORMAL_MAP"]).unwrap()));
    let pass = fx.technique(probe, "probe").unwrap().next().unwrap();
    let out = gpu::storage(h, 8);
    let instance = m;
    fb.material(instance).set_buffer("seen", &out).unwrap();
    let (shader, pipeline) = fx.compute_pipeline(&mut fb, pass, mats.flags(m).unwrap()).unwrap();
    let pipeline = pipeline.clone();
    let seen = dispatch(h, &mut fb, &pipeline, Draw::new(shader).material(instance), &out);
    assert_eq!(seen[4], 7.0);
}

/// `[params]` defaults that do not fit their member's scalar are refused,
/// naming the member, instead of saturating.
#[test]
fn params_defaults_out_of_range_are_refused() {
    let wgsl = "struct Mat { count: u32, offset: i32, scale: f32 }\n@group(2) @binding(0) var<uniform> mat: Mat;\n@compute @workgroup_size(1) fn cs_main() { _ = mat.count; _ = mat.offset; _ = mat.scale; }\n";
    let head = "source = \"range.wgsl\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"cs_main\"\n[params]\n";
    let mut fx = Effects::new();
    let check = |fx: &mut Effects, line: &str| {
        let id = fx.add("range.effect.toml", &format!("{head}{line}\n"), wgsl).unwrap();
        let mut merged = Registry::new(SlotPlan::default());
        let checked = fx.merge(&mut merged, id, None).map(drop).map_err(|e| common::chain(&e));
        let validated =
            freqbuf_effects::validate_tables(fx, id, &merged, true).map_err(|e| common::chain(&e));
        // The whole-effect check refuses what validate_tables refuses, as an entry of the effect file.
        let prefix = "cannot check the tables of range.effect.toml: an entry of the effect's [params] or [auto] table is refused: ";
        assert_eq!(checked, validated.clone().map_err(|e| format!("{prefix}{e}")), "{line}");
        validated
    };
    for ok in
        ["count = 4294967295", "count = 0", "offset = -2147483648", "offset = 2147483647", "scale = 1e30"]
    {
        assert_eq!(check(&mut fx, ok), Ok(()), "{ok}");
    }
    let refused = [
        (
            "count = 4294967296",
            "cannot take the [params] default of `count`: the member is u32, the value has 4294967296, which u32 cannot hold (4294967296)",
        ),
        (
            "count = -1",
            "cannot take the [params] default of `count`: the member is u32, the value has -1, which u32 cannot hold (-1)",
        ),
        (
            "count = 1.5",
            "cannot take the [params] default of `count`: the member is u32, the value has 1.5, which u32 cannot hold (1.5)",
        ),
        (
            "offset = 3e9",
            "cannot take the [params] default of `offset`: the member is i32, the value has 3000000000, which i32 cannot hold (3000000000.0)",
        ),
        (
            "offset = -2147483649",
            "cannot take the [params] default of `offset`: the member is i32, the value has -2147483649, which i32 cannot hold (-2147483649)",
        ),
        (
            "scale = 1e39",
            "cannot take the [params] default of `scale`: the member is f32, the value has 1e39, which f32 cannot hold (1000000000000000000000000000000000000000.0)",
        ),
    ];
    for (line, message) in refused {
        assert_eq!(check(&mut fx, line), Err(message.to_owned()), "{line}");
    }
}

/// An update that fails for one input (a view freed without `forget`)
/// writes every other input and keeps the failed one pending.
#[test]
fn a_failed_auto_update_keeps_pending_work() {
    let Some(h) = gpu::device() else { return };
    let (mut fb, mut auto) = bound_auto(h);
    let (freed, kept) = (fb.create_view(), fb.create_view());
    let camera = Camera { view: IDENTITY, proj: IDENTITY, viewport: [8.0, 8.0] };
    auto.set_camera(freed, camera);
    auto.set_camera(kept, camera);
    fb.free_view(freed).unwrap();
    let e = auto.update(&mut fb).unwrap_err();
    assert!(matches!(e, freqbuf::Error::StaleHandle(freqbuf::Frequency::View)), "{e}");
    // The three frame values and the kept view's eight: nothing else was dropped.
    assert_eq!(auto.derived(), 3 + 8);
    // The freed view is still pending: the next update fails again until it is forgotten.
    assert!(auto.update(&mut fb).is_err());
    assert_eq!(auto.derived(), 11);
    auto.forget(Some(freed), None);
    auto.update(&mut fb).unwrap();
    assert_eq!(auto.derived(), 11);
}

/// Cameras and world transforms are taken as arrays, glam's or mint's
/// types, and each gives the same derived values (read from the shadow).
#[test]
fn auto_inputs_take_arrays_glam_and_mint() {
    let Some(h) = gpu::device() else { return };
    let (mut fb, mut auto) = bound_auto(h);
    let world = glam::Mat4::from_scale_rotation_translation(
        glam::Vec3::new(2.0, 3.0, 4.0),
        glam::Quat::from_rotation_z(0.5),
        glam::Vec3::new(1.0, -2.0, 0.5),
    );
    let view = glam::Mat4::from_rotation_translation(
        glam::Quat::from_rotation_y(0.3),
        glam::Vec3::new(0.0, -2.0, -5.0),
    );
    let proj = glam::Mat4::from_cols_array(&[
        1.2, 0.0, 0.0, 0.0, 0.0, 1.8, 0.0, 0.0, 0.0, 0.0, -1.0, -1.0, 0.0, 0.0, -0.2, 0.0,
    ]);
    let (objects, views) = ([0; 3].map(|_| fb.create_object()), [0; 3].map(|_| fb.create_view()));
    auto.set_world(objects[0], world.to_cols_array_2d());
    auto.set_world(objects[1], world);
    auto.set_world(objects[2], mint::ColumnMatrix4::from(world.to_cols_array_2d()));
    auto.set_camera(
        views[0],
        Camera { view: view.to_cols_array_2d(), proj: proj.to_cols_array_2d(), viewport: [640.0, 480.0] },
    );
    auto.set_camera(views[1], Camera::new(view, proj, glam::Vec2::new(640.0, 480.0)));
    let (v, p) = (
        mint::ColumnMatrix4::from(view.to_cols_array_2d()),
        mint::ColumnMatrix4::from(proj.to_cols_array_2d()),
    );
    auto.set_camera(views[2], Camera::new(v, p, mint::Vector2 { x: 640.0, y: 480.0 }));
    auto.update(&mut fb).unwrap();
    let (inv_world, inv_view_proj, viewport) = (
        fb.param("inv_world").unwrap(),
        fb.param("inv_view_proj").unwrap(),
        fb.param("viewport_size").unwrap(),
    );
    let per_object = objects.map(|o| fb.object(o).get_bytes(inv_world).unwrap());
    assert!(per_object.iter().all(|b| *b == per_object[0]) && per_object[0].iter().any(|&b| b != 0));
    let per_view = views
        .map(|v| (fb.view(v).get_bytes(inv_view_proj).unwrap(), fb.view(v).get_bytes(viewport).unwrap()));
    assert!(per_view.iter().all(|b| *b == per_view[0]));
    assert_eq!(per_view[0].1, [640.0f32, 480.0].iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<_>>());
}

/// A manager with the auto effect's permutation registered, and its
/// `[auto]` table bound.
fn bound_auto(h: &freqbuf::Headless) -> (Manager, AutoConstants) {
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let id = fx.load(path("auto.effect.toml")).unwrap();
    fx.shader(&mut fb, fx.flags(id, &[]).unwrap()).unwrap();
    let mut auto = AutoConstants::new();
    auto.bind_effect(fb.registry(), fx.effect(id)).unwrap();
    (fb, auto)
}

const IDENTITY: [[f32; 4]; 4] =
    [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];

/// After `Manager::recreate`, the effect library builds its modules and
/// pipelines again on the new device (it held the lost device's), and the
/// materials' and auto constants' values, kept in the manager's shadows,
/// reach the new device's draws.
#[test]
fn effects_materials_and_auto_constants_follow_the_manager_to_a_new_device() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let probe = fx.load(path("probe.effect.toml")).unwrap();
    let mut mats = Materials::new();
    let m = mats.create(&mut fx, &mut fb, probe, &["NORMAL_MAP"]).unwrap();
    mats.set(&mut fb, m, "base_color", &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    mats.set(&mut fb, m, "normal_strength", &5.0f32).unwrap();
    let pass = fx.technique(probe, "probe").unwrap().next().unwrap();
    let (instance, flags) = (m, mats.flags(m).unwrap());
    let run = |h: &Headless, fx: &mut Effects, fb: &mut Manager| {
        let out = gpu::storage(h, 8);
        fb.material(instance).set_buffer("seen", &out).unwrap();
        let (shader, pipeline) = fx.compute_pipeline(fb, pass, flags).unwrap();
        let pipeline = pipeline.clone();
        dispatch(h, fb, &pipeline, Draw::new(shader).material(instance), &out)[..5].to_vec()
    };
    assert_eq!(run(h, &mut fx, &mut fb), [1.0, 2.0, 3.0, 4.0, 5.0]);
    let built = fx.stats().pipelines;

    let fresh = gpu::device_with_limits(|_| {}).unwrap();
    fb.recreate(&fresh.device).unwrap();
    assert_eq!(run(&fresh, &mut fx, &mut fb), [1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(fx.stats().pipelines, built + 1, "built again on the new device");
    // Values set after the move reach it too.
    mats.set(&mut fb, m, "normal_strength", &6.0f32).unwrap();
    assert_eq!(run(&fresh, &mut fx, &mut fb)[4], 6.0);
}

mod random {
    //! Random sequences of material creations, derivations, sets and flag
    //! changes, with flushes that may have a fault injected (and are then
    //! retried), checked after every frame against a reference model of
    //! what each material's permutation must read: its own value, else its
    //! nearest ancestor's, else the `[params]` default or zero.
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[derive(Clone, Debug)]
    enum Op {
        Create(bool),
        Derive(usize),
        SetColor(usize, u8),
        SetStrength(usize, u8),
        SetFlags(usize, bool),
        Frame(Option<u8>),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            2 => any::<bool>().prop_map(Op::Create),
            2 => any::<usize>().prop_map(Op::Derive),
            3 => (any::<usize>(), any::<u8>()).prop_map(|(m, v)| Op::SetColor(m, v)),
            3 => (any::<usize>(), any::<u8>()).prop_map(|(m, v)| Op::SetStrength(m, v)),
            3 => (any::<usize>(), any::<bool>()).prop_map(|(m, f)| Op::SetFlags(m, f)),
            2 => prop::option::weighted(0.3, 0..3u8).prop_map(Op::Frame),
        ]
    }

    struct Mat {
        handle: freqbuf::MaterialId,
        parent: Option<usize>,
        normal_map: bool,
        own: BTreeMap<&'static str, Vec<f32>>,
        out: wgpu::Buffer,
    }

    fn effective(mats: &[Mat], mut at: usize, name: &str) -> Option<Vec<f32>> {
        loop {
            if let Some(v) = mats[at].own.get(name) {
                return Some(v.clone());
            }
            at = mats[at].parent?;
        }
    }

    fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
        let Some(h) = gpu::device() else { return Ok(()) };
        let mut fb = Manager::new(&h.device, SlotPlan::default());
        let mut fx = Effects::new();
        let probe = fx.load(path("probe.effect.toml")).unwrap();
        let pass = fx.technique(probe, "probe").unwrap().next().unwrap();
        let mut store = Materials::new();
        let mut mats: Vec<Mat> = Vec::new();
        let flags_of = |n: bool| if n { &["NORMAL_MAP"][..] } else { &[][..] };
        for op in ops {
            let pick = |i: usize| (!mats.is_empty()).then(|| i % mats.len());
            match op {
                Op::Create(n) if mats.len() < 8 => {
                    let handle = store.create(&mut fx, &mut fb, probe, flags_of(n)).unwrap();
                    let mut own = BTreeMap::new();
                    own.insert("base_color", vec![0.25, 0.5, 0.75, 1.0]);
                    let out = gpu::storage(h, 8);
                    fb.material(handle).set_buffer("seen", &out).unwrap();
                    mats.push(Mat { handle, parent: None, normal_map: n, own, out });
                }
                Op::Derive(p) if mats.len() < 8 => {
                    let Some(p) = pick(p) else { continue };
                    let handle = store.derive(&mut fb, mats[p].handle).unwrap();
                    let out = gpu::storage(h, 8);
                    fb.material(handle).set_buffer("seen", &out).unwrap();
                    let normal_map = mats[p].normal_map;
                    mats.push(Mat { handle, parent: Some(p), normal_map, own: BTreeMap::new(), out });
                }
                Op::SetColor(m, v) => {
                    let Some(m) = pick(m) else { continue };
                    let c = [f32::from(v), 1.0, 2.0, f32::from(v) + 0.5];
                    store.set(&mut fb, mats[m].handle, "base_color", &c).unwrap();
                    mats[m].own.insert("base_color", c.to_vec());
                }
                Op::SetStrength(m, v) => {
                    let Some(m) = pick(m) else { continue };
                    store.set(&mut fb, mats[m].handle, "normal_strength", &f32::from(v)).unwrap();
                    mats[m].own.insert("normal_strength", vec![f32::from(v)]);
                }
                Op::SetFlags(m, n) => {
                    let Some(m) = pick(m) else { continue };
                    store.set_flags(&mut fx, &mut fb, mats[m].handle, flags_of(n)).unwrap();
                    mats[m].normal_map = n;
                }
                Op::Frame(fault) => {
                    if let Some(n) = fault {
                        freqbuf::fault::fail_nth(freqbuf::fault::FaultSite::Any, n.into());
                    }
                    let failed = fb.flush(&h.queue).is_err();
                    let fired = fault.is_some() && !freqbuf::fault::disarm();
                    prop_assert_eq!(failed, fired, "a flush fails exactly when a fault fires");
                    if failed {
                        fb.flush(&h.queue).unwrap();
                    }
                    let mut draws = Vec::new();
                    for mat in &mats {
                        let flags = store.flags(mat.handle).unwrap();
                        let (shader, pipeline) = fx.compute_pipeline(&mut fb, pass, flags).unwrap();
                        draws.push((pipeline.clone(), Draw::new(shader).material(mat.handle)));
                    }
                    gpu::run(h, &mut fb, draws.iter().map(|(p, d)| (p, *d)));
                    for (i, mat) in mats.iter().enumerate() {
                        let seen: Vec<f32> =
                            gpu::read_words(h, &mat.out).into_iter().map(f32::from_bits).collect();
                        let mut want = effective(&mats, i, "base_color").unwrap();
                        want.push(match mat.normal_map {
                            true => effective(&mats, i, "normal_strength").map_or(0.0, |v| v[0]),
                            false => -1.0,
                        });
                        prop_assert_eq!(&seen[..5], &want[..], "material {}", i);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, max_shrink_iters: 256, ..ProptestConfig::default() })]
        #[test]
        fn materials_read_what_the_model_says(ops in prop::collection::vec(op(), 1..40)) {
            run(ops)?;
        }
    }
}

mod auto_random {
    //! Random sequences of view and object creations and frees (with or
    //! without `forget`), camera, world and time inputs, and frames. A frame
    //! updates the auto constants; an update that fails (a view or object
    //! freed without `forget`) is answered by forgetting it and updating
    //! again, which must then write every pending input. The values read back
    //! must be each input's last value, or zero for an instance never given one.
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[derive(Clone, Debug)]
    enum Op {
        View,
        Object,
        FreeView(usize, bool),
        FreeObject(usize, bool),
        Camera(usize, u8),
        World(usize, u8),
        Time(u8),
        Frame(Option<u8>),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            2 => Just(Op::View),
            2 => Just(Op::Object),
            1 => (any::<usize>(), any::<bool>()).prop_map(|(i, f)| Op::FreeView(i, f)),
            1 => (any::<usize>(), any::<bool>()).prop_map(|(i, f)| Op::FreeObject(i, f)),
            3 => (any::<usize>(), any::<u8>()).prop_map(|(i, s)| Op::Camera(i, s)),
            3 => (any::<usize>(), any::<u8>()).prop_map(|(i, s)| Op::World(i, s)),
            1 => any::<u8>().prop_map(Op::Time),
            2 => prop::option::weighted(0.3, 0..3u8).prop_map(Op::Frame),
        ]
    }

    fn translate(x: f32) -> [[f32; 4]; 4] {
        [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [x, 1.0, 2.0, 1.0]]
    }

    fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
        let Some(h) = gpu::device() else { return Ok(()) };
        let mut fb = Manager::new(&h.device, SlotPlan::default());
        let mut fx = Effects::new();
        let id = fx.load(path("auto.effect.toml")).unwrap();
        let pass = fx.technique(id, "copy").unwrap().next().unwrap();
        let (shader, pipeline) = fx.compute_pipeline(&mut fb, pass, fx.flags(id, &[]).unwrap()).unwrap();
        let pipeline = pipeline.clone();
        let mut auto = AutoConstants::new();
        auto.bind_effect(fb.registry(), fx.effect(id)).unwrap();
        let (mut views, mut objects) = (Vec::new(), Vec::new());
        let (mut cameras, mut worlds) = (HashMap::new(), HashMap::new());
        let (mut unforgotten_views, mut unforgotten_objects) = (Vec::new(), Vec::new());
        let mut time = 0.0f32;
        // One material per draw, each holding the buffer its draw writes.
        let mut outs: Vec<(freqbuf::MaterialId, wgpu::Buffer)> = Vec::new();
        for op in ops {
            match op {
                Op::View if views.len() < 6 => views.push(fb.create_view()),
                Op::Object if objects.len() < 6 => objects.push(fb.create_object()),
                Op::FreeView(i, forget) if !views.is_empty() => {
                    let v = views.swap_remove(i % views.len());
                    fb.free_view(v).unwrap();
                    cameras.remove(&v);
                    if forget { auto.forget(Some(v), None) } else { unforgotten_views.push(v) }
                }
                Op::FreeObject(i, forget) if !objects.is_empty() => {
                    let o = objects.swap_remove(i % objects.len());
                    fb.free_object(o).unwrap();
                    worlds.remove(&o);
                    if forget { auto.forget(None, Some(o)) } else { unforgotten_objects.push(o) }
                }
                Op::Camera(i, s) if !views.is_empty() => {
                    let v = views[i % views.len()];
                    let camera = Camera {
                        view: translate(f32::from(s)),
                        proj: translate(0.0),
                        viewport: [f32::from(s), 2.0],
                    };
                    auto.set_camera(v, camera);
                    cameras.insert(v, f32::from(s));
                }
                Op::World(i, s) if !objects.is_empty() => {
                    let o = objects[i % objects.len()];
                    auto.set_world(o, translate(f32::from(s)));
                    worlds.insert(o, f32::from(s));
                }
                Op::Time(t) => {
                    time = f32::from(t);
                    auto.set_time(time, 0.5, 1);
                }
                Op::Frame(fault) => {
                    if let Err(e) = auto.update(&mut fb) {
                        prop_assert!(
                            !unforgotten_views.is_empty() || !unforgotten_objects.is_empty(),
                            "{}",
                            e
                        );
                        unforgotten_views.drain(..).for_each(|v| auto.forget(Some(v), None));
                        unforgotten_objects.drain(..).for_each(|o| auto.forget(None, Some(o)));
                        auto.update(&mut fb).unwrap();
                    }
                    let pairs = views.len().min(objects.len());
                    while outs.len() < pairs {
                        let (m, out) = (fb.create_material(), gpu::storage(h, 160));
                        fb.material(m).set_buffer("out", &out).unwrap();
                        outs.push((m, out));
                    }
                    if let Some(n) = fault {
                        freqbuf::fault::fail_nth(freqbuf::fault::FaultSite::Any, n.into());
                    }
                    let failed = fb.flush(&h.queue).is_err();
                    let fired = fault.is_some() && !freqbuf::fault::disarm();
                    prop_assert_eq!(failed, fired);
                    if failed {
                        fb.flush(&h.queue).unwrap();
                    }
                    let draws = (0..pairs).map(|k| {
                        (&pipeline, Draw::new(shader).view(views[k]).object(objects[k]).material(outs[k].0))
                    });
                    gpu::run(h, &mut fb, draws);
                    for k in 0..pairs {
                        let got: Vec<f32> =
                            gpu::read_words(h, &outs[k].1).into_iter().map(f32::from_bits).collect();
                        prop_assert_eq!(got[0], time, "time");
                        let x = cameras.get(&views[k]).copied();
                        let view = x.map_or([[0.0; 4]; 4], translate);
                        prop_assert_eq!(&got[4..20], view.as_flattened(), "view {}", k);
                        prop_assert_eq!(got[103], x.unwrap_or(0.0), "viewport {}", k);
                        let world = worlds.get(&objects[k]).map_or([[0.0; 4]; 4], |&x| translate(x));
                        prop_assert_eq!(&got[108..124], world.as_flattened(), "world {}", k);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, max_shrink_iters: 256, ..ProptestConfig::default() })]
        #[test]
        fn auto_constants_read_the_last_inputs(ops in prop::collection::vec(op(), 1..50)) {
            run(ops)?;
        }
    }
}

/// `[params]` and `[auto]` typos are refused before anything is drawn: an
/// unknown semantic at load, at its place in the file, and a member no
/// permutation declares by the whole-effect check. A member that only some
/// permutations declare is no typo, and a check of one flag set, which sees
/// only its own permutation, refuses nothing it cannot see.
#[test]
fn params_and_auto_typos_are_refused_by_load_and_the_whole_effect_check() {
    let wgsl = std::fs::read_to_string(path("probe.wgsl")).unwrap();
    let head = "source = \"probe.wgsl\"\nflags = [\"NORMAL_MAP\"]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"cs_main\"\n";
    let mut fx = Effects::new();
    let e =
        fx.add("typo.effect.toml", &format!("{head}[auto]\nbase_color = \"wrold\"\n"), &wgsl).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot check the tables of typo.effect.toml:9:14: an entry of the effect's [params] or [auto] table is refused: cannot use semantic `wrold`: unknown semantic (the semantics are time, delta_time, frame_index, viewport_size, view, proj, view_proj, inv_view, inv_proj, inv_view_proj, camera_position, world, inv_world, normal_matrix); did you mean `world`?"
    );
    let check = |fx: &mut Effects, tables: &str, only: Option<&[&str]>| {
        let id = fx.add("tables.effect.toml", &format!("{head}{tables}"), &wgsl).unwrap();
        let only = only.map(|on| fx.flags(id, on).unwrap());
        fx.check(&Registry::new(SlotPlan::default()), id, only).map(drop).map_err(|e| common::chain(&e))
    };
    assert_eq!(
        check(&mut fx, "[params]\nbase_colour = [1.0, 2.0, 3.0, 4.0]\n", None),
        Err("cannot check the tables of tables.effect.toml: an entry of the effect's [params] or [auto] table is refused: cannot take the [params] default of `base_colour`: cannot use parameter `base_colour`: unknown name; did you mean `base_color`?".into())
    );
    assert_eq!(
        check(&mut fx, "[auto]\nbase_colr = \"time\"\n", None),
        Err("cannot check the tables of tables.effect.toml: an entry of the effect's [params] or [auto] table is refused: cannot take the [auto] entry `base_colr` = `time`: cannot use parameter `base_colr`: unknown name; did you mean `base_color`?".into())
    );
    // Declared only with NORMAL_MAP: the whole check finds it there.
    assert_eq!(check(&mut fx, "[params]\nnormal_strength = 0.5\n", None), Ok(()));
    // Checked alone, the permutation without NORMAL_MAP cannot tell a typo from the other's member.
    assert_eq!(check(&mut fx, "[params]\nnormal_strenght = 0.5\n", Some(&[])), Ok(()));
    // With device flags each setting merges alone: a member only the other setting
    // declares is no typo, and the typo is the one named.
    let split = "struct Material { base_color: vec4<f32>,\n#ifdef EXTRA\n a_extra: f32,\n#endif\n}\n@group(2) @binding(0) var<uniform> material: Material;\n@compute @workgroup_size(1) fn cs_main() {\n _ = material.base_color;\n#ifdef EXTRA\n _ = material.a_extra;\n#endif\n}\n";
    let file = "source = \"split.wgsl\"\nflags = [\"EXTRA\"]\n[device_flags]\nEXTRA = \"binding_arrays\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"cs_main\"\n[params]\na_extra = 1.0\n";
    for (extra, refused) in [("", None), ("base_colr = [1.0, 2.0, 3.0, 4.0]\n", Some("base_colr"))] {
        let id = fx.add("split.effect.toml", &format!("{file}{extra}"), split).unwrap();
        let checked = fx.check(&Registry::new(SlotPlan::default()), id, None).map_err(|e| common::chain(&e));
        match refused {
            None => assert!(checked.is_ok(), "{checked:?}"),
            Some(name) => {
                assert!(
                    checked.is_err_and(|e| e.contains(&format!("the [params] default of `{name}`"))),
                    "{extra}"
                )
            }
        }
    }
    // A default that does not fit is refused in the permutations that have the member.
    assert!(check(&mut fx, "[params]\nnormal_strength = [1.0, 2.0]\n", None).is_err_and(|e| e.ends_with(
        "cannot take the [params] default of `normal_strength`: the member is f32, the value has 2 numbers, not 1 ([1.0, 2.0])"
    )));
}
