//! Boolean defs mean what they say: `false` is undefined for `#ifdef` and
//! `#ifndef`, and `false` for `#if`, in `[defs]`, in `with_defs` and in the
//! modules a source imports. Values are read back from the GPU.

use crate::common;

use common::gpu;
use freqbuf::{Draw, Manager, SlotPlan};
use freqbuf_effects::{DefValue, EffectId, Effects};

/// The source writes 1 or 2 for each test: [ifdef ON, ifndef ON, if ON ==
/// false, ifdef OFF, ifndef OFF, if OFF == false, module's ifdef OFF, #{ON}].
const WGSL: &str = "#import probe::lib
@group(2) @binding(0) var<storage, read_write> seen: array<f32, 8>;
@compute @workgroup_size(1) fn main() {
#ifdef ON
    seen[0] = 1.0;
#else
    seen[0] = 2.0;
#endif
#ifndef ON
    seen[1] = 1.0;
#else
    seen[1] = 2.0;
#endif
#if ON == false
    seen[2] = 1.0;
#else
    seen[2] = 2.0;
#endif
#ifdef OFF
    seen[3] = 1.0;
#else ifdef ON
    seen[3] = 2.0;
#else
    seen[3] = 3.0;
#endif
#ifndef OFF
    seen[4] = 1.0;
#else
    seen[4] = 2.0;
#endif
#if OFF == false
    seen[5] = 1.0;
#else
    seen[5] = 2.0;
#endif
    seen[6] = probe::lib::off();
    seen[7] = select(2.0, 1.0, #{ON});
}
";

const MODULE: &str = "#define_import_path probe::lib
fn off() -> f32 {
#ifdef OFF
    return 1.0;
#else
    return 2.0;
#endif
}
";

fn toml(defs: &str) -> String {
    format!(
        "name = \"d\"\nsource = \"d.wgsl\"\n[defs]\n{defs}\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n"
    )
}

/// What the effect's compute pass writes.
fn seen(h: &freqbuf::Headless, fx: &mut Effects, fb: &mut Manager, id: EffectId) -> Vec<f32> {
    let pass = fx.only_pass(id, "t").unwrap();
    let (shader, pipeline) = fx.compute_pipeline(fb, pass, fx.flags(id, &[]).unwrap()).unwrap();
    let pipeline = pipeline.clone();
    let m = fb.create_material();
    let out = gpu::storage(h, 8);
    fb.material(m).set_buffer("seen", &out).unwrap();
    fb.flush(&h.queue).unwrap();
    gpu::run(h, fb, [(&pipeline, Draw::new(shader).material(m))]);
    gpu::floats(h, &out)
}

const ON_TRUE: [f32; 8] = [1.0, 2.0, 2.0, 2.0, 1.0, 1.0, 2.0, 1.0];
const ON_FALSE: [f32; 8] = [2.0, 1.0, 1.0, 3.0, 1.0, 1.0, 2.0, 2.0];

#[test]
fn false_boolean_defs_are_undefined_for_ifdef_and_false_for_if() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    fx.add_module("lib.wgsl", MODULE).unwrap();
    let on = fx.add("on.effect.toml", &toml("ON = true\nOFF = false"), WGSL).unwrap();
    let off = fx.add("off.effect.toml", &toml("ON = false\nOFF = false"), WGSL).unwrap();
    assert_eq!(seen(h, &mut fx, &mut fb, on), ON_TRUE, "[defs] ON = true, OFF = false");
    assert_eq!(seen(h, &mut fx, &mut fb, off), ON_FALSE, "[defs] ON = false, OFF = false");
    // with_defs: each way from the other, and the module's OFF turned on.
    let off2 = fx.with_defs(on, &[("ON", DefValue::Bool(false))]).unwrap();
    assert_eq!(seen(h, &mut fx, &mut fb, off2), ON_FALSE, "with_defs(ON = false)");
    let on2 = fx.with_defs(off, &[("ON", DefValue::Bool(true))]).unwrap();
    assert_eq!(seen(h, &mut fx, &mut fb, on2), ON_TRUE, "with_defs(ON = true)");
    let both = fx.with_defs(on, &[("OFF", DefValue::Bool(true))]).unwrap();
    assert_eq!(seen(h, &mut fx, &mut fb, both), [1.0, 2.0, 2.0, 1.0, 2.0, 2.0, 1.0, 1.0], "OFF = true");
}

/// A source's own `#define NAME false` leaves it undefined for `#ifdef` too.
#[test]
fn a_define_false_in_the_source_is_undefined_for_ifdef() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let wgsl = "#define LOCAL false
#define OTHER
@group(2) @binding(0) var<storage, read_write> seen: array<f32, 8>;
@compute @workgroup_size(1) fn main() {
#ifdef LOCAL
    seen[0] = 1.0;
#else
    seen[0] = 2.0;
#endif
#ifdef OTHER
    seen[1] = 1.0;
#endif
}
";
    let id = fx.add("l.effect.toml", &toml(""), wgsl).unwrap();
    assert_eq!(seen(h, &mut fx, &mut fb, id)[..2], [2.0, 1.0]);
}

/// A string def is pasted over `##NAME##` in the source before anything
/// reads it (Bevy 0.19's `##TEXTURE_FORMAT##`): here it names the function
/// the shader calls, read back. One no source contains, a placeholder no
/// def fills, one that is not a token, and one in a stage's own defs are
/// refused at their place.
#[test]
fn string_defs_are_pasted_over_their_placeholders() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let wgsl = "fn pick_a() -> f32 { return 1.0; }
fn pick_b() -> f32 { return 2.0; }
@group(2) @binding(0) var<storage, read_write> seen: array<f32, 8>;
@compute @workgroup_size(1) fn main() {
    seen[0] = ##PICK##();
    seen[1] = ##PICK##() + 1.0;
}
";
    let id = fx.add("s.effect.toml", &toml("PICK = \"pick_b\""), wgsl).unwrap();
    assert_eq!(seen(h, &mut fx, &mut fb, id)[..2], [2.0, 3.0]);
    let id = fx.add("a.effect.toml", &toml("PICK = \"pick_a\""), wgsl).unwrap();
    assert_eq!(seen(h, &mut fx, &mut fb, id)[..2], [1.0, 2.0]);
    let e = fx.with_defs(id, &[("PICK", DefValue::UInt(1))]).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot take d: def `PICK` is a string, pasted over `##PICK##` at load; with_defs cannot change it"
    );

    let e = fx.add("u.effect.toml", &toml("PICK = \"pick_a\"\nFORMAT = \"rgba8unorm\""), wgsl).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot take u.effect.toml:5:10: def `FORMAT` is a string to paste over `##FORMAT##`, which no source of the effect contains"
    );
    let e = fx.add("t.effect.toml", &toml("PICK = \"pick_a()\""), wgsl).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot take t.effect.toml:4:8: def `PICK` is \"pick_a()\"; a string def is pasted over `##PICK##` as one WGSL token (letters, digits, `_`)"
    );
    let e = fx.add("n.effect.toml", &toml(""), wgsl).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot take d.wgsl:5:15: def `PICK` is pasted over `##PICK##` here, and no string in the effect's [defs] sets it"
    );
    let stage = toml("PICK = \"pick_a\"")
        .replace("compute = \"main\"", "compute = { entry = \"main\", defs = { K = \"x\" } }");
    let e = fx.add("g.effect.toml", &stage, wgsl).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot take g.effect.toml:9:13: def `K` is a string; a stage's defs are booleans and integers (paste in the effect's [defs])"
    );
}

/// A string shorter than its placeholder is padded to the placeholder's
/// width, so that an error after it on the same line points at the file's
/// column (Bevy 0.19's `##TEXTURE_FORMAT##` and a format name). A
/// placeholder that the rest of a name follows is not padded.
#[test]
fn columns_after_a_pasted_string_are_the_files() {
    let mut fx = Effects::new();
    let line = "@compute @workgroup_size(1) fn main() { seen[0] = ##PICK##() + undefined_name; }";
    let wgsl = format!(
        "fn pick_a() -> f32 {{ return 1.0; }}\n@group(2) @binding(0) var<storage, read_write> seen: array<f32, 8>;\n{line}\n"
    );
    let id = fx.add("c.effect.toml", &toml("PICK = \"pick_a\""), &wgsl).unwrap();
    let e = fx.check(&freqbuf::Registry::new(SlotPlan::default()), id, None).unwrap_err();
    let column = line.find("undefined_name").unwrap() + 1;
    assert_eq!(
        common::chain(&e),
        format!(
            "cannot compose d.wgsl:3:{column}: with [no flags], naga's WGSL parser refused it: no definition in scope for identifier: `undefined_name`"
        )
    );
    // Glued to the rest of a name, the string is not padded: `##WHICH##_a` is `pick_a`.
    let wgsl = wgsl.replace("##PICK##", "##WHICH##_a");
    let id = fx.add("g.effect.toml", &toml("WHICH = \"pick\""), &wgsl).unwrap();
    let e = fx.check(&freqbuf::Registry::new(SlotPlan::default()), id, None).unwrap_err();
    assert!(common::chain(&e).contains("`undefined_name`"), "{}", common::chain(&e));
}
