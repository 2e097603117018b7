//! No write is lost behind the store's back: a material that `Materials`
//! owns keeps every value written to it (through the store's `set` and
//! `set_struct`, or the core's `set`/`set_struct` on its id) across flag
//! changes and derived materials. Values are read back from the GPU.

use crate::common;

use common::gpu;
use freqbuf::{Draw, Manager, MaterialId, SlotPlan};
use freqbuf_effects::{Effects, Materials};

const WGSL: &str = "struct M { color: vec4<f32>, shininess: f32, tints: array<vec4<f32>, 2> }
@group(2) @binding(0) var<uniform> m: M;
@group(2) @binding(1) var<storage, read_write> seen: array<f32, 6>;
@compute @workgroup_size(1) fn main() {
    seen[0] = m.color.x; seen[1] = m.color.y; seen[2] = m.color.z; seen[3] = m.color.w; seen[5] = m.tints[1].y;
#ifdef SHINY
    seen[4] = m.shininess * 2.0;
#else
    seen[4] = m.shininess;
#endif
}
";
const TOML: &str = "source = \"s.wgsl\"\nflags = [\"SHINY\"]\n[params]\ncolor = [1.0, 1.0, 1.0, 1.0]\nshininess = 32.0\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";

#[derive(Clone, Copy, Debug, Default, PartialEq, freqbuf::ShaderStruct)]
struct Block {
    color: [f32; 4],
    shininess: f32,
}

/// What material `m` makes its pass write, with its current flags.
fn seen(
    h: &freqbuf::Headless,
    (fx, e): (&mut Effects, freqbuf_effects::EffectId),
    fb: &mut Manager,
    mats: &Materials,
    m: MaterialId,
) -> Vec<f32> {
    let pass = fx.technique(e, "t").unwrap().next().unwrap();
    let (shader, pipeline) = fx.compute_pipeline(fb, pass, mats.flags(m).unwrap()).unwrap();
    let pipeline = pipeline.clone();
    let out = gpu::storage(h, 6);
    fb.material(m).set_buffer("seen", &out).unwrap();
    fb.flush(&h.queue).unwrap();
    gpu::run(h, fb, [(&pipeline, Draw::new(shader).material(m))]);
    gpu::floats(h, &out)
}

#[test]
fn writes_past_the_store_survive_flag_changes_and_derived_materials() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let e = fx.add("s.effect.toml", TOML, WGSL).unwrap();
    let mut mats = Materials::new();
    let family = fx.effect(e).family().to_owned();

    // The core's set_struct on the store's material (the README's way), then flags.
    let a = mats.create(&mut fx, &mut fb, e, &[]).unwrap();
    let typed = fb.param_struct_in::<Block>(&family, "M").unwrap();
    let color = fb.param_in(&family, "color").unwrap();
    fb.material(a).set_struct(typed, &Block { color: [0.1, 0.2, 0.3, 1.0], shininess: 8.0 }).unwrap();
    mats.set_flags(&mut fx, &mut fb, a, &["SHINY"]).unwrap();
    assert_eq!(seen(h, (&mut fx, e), &mut fb, &mats, a), [0.1, 0.2, 0.3, 1.0, 16.0, 0.0]);
    mats.set_flags(&mut fx, &mut fb, a, &[]).unwrap();
    assert_eq!(seen(h, (&mut fx, e), &mut fb, &mats, a), [0.1, 0.2, 0.3, 1.0, 8.0, 0.0]);

    // The core's set of one member; a derived material takes it from its parent.
    fb.material(a).set(color, &[0.5f32, 0.5, 0.5, 1.0]).unwrap();
    let child = mats.derive(&mut fb, a).unwrap();
    assert_eq!(seen(h, (&mut fx, e), &mut fb, &mats, child), [0.5, 0.5, 0.5, 1.0, 8.0, 0.0]);
    // A core write on the child is its own: a value set on the parent does not replace it.
    fb.material(child).set(color, &[0.0f32, 1.0, 0.0, 1.0]).unwrap();
    mats.set(&mut fb, a, "color", &[0.25f32, 0.25, 0.25, 1.0]).unwrap();
    mats.set_flags(&mut fx, &mut fb, child, &["SHINY"]).unwrap();
    assert_eq!(seen(h, (&mut fx, e), &mut fb, &mats, child), [0.0, 1.0, 0.0, 1.0, 16.0, 0.0]);
    assert_eq!(seen(h, (&mut fx, e), &mut fb, &mats, a), [0.25, 0.25, 0.25, 1.0, 8.0, 0.0]);

    // The store's set_struct: kept across flags, passed on to derived materials.
    let b = mats.create(&mut fx, &mut fb, e, &[]).unwrap();
    mats.set_struct(&mut fb, b, &Block { color: [0.75, 0.5, 0.25, 1.0], shininess: 4.0 }).unwrap();
    mats.set_flags(&mut fx, &mut fb, b, &["SHINY"]).unwrap();
    assert_eq!(seen(h, (&mut fx, e), &mut fb, &mats, b), [0.75, 0.5, 0.25, 1.0, 8.0, 0.0]);
    let d = mats.derive(&mut fb, b).unwrap();
    assert_eq!(seen(h, (&mut fx, e), &mut fb, &mats, d), [0.75, 0.5, 0.25, 1.0, 8.0, 0.0]);

    // An array field through the store: kept across flags and passed on.
    #[derive(freqbuf::ShaderStruct)]
    struct Tinted {
        color: [f32; 4],
        shininess: f32,
        #[shader(array)]
        tints: [[f32; 4]; 2],
    }
    let value = Tinted { color: [0.5; 4], shininess: 2.0, tints: [[0.0; 4], [0.0, 7.0, 0.0, 0.0]] };
    mats.set_struct(&mut fb, b, &value).unwrap();
    mats.set_flags(&mut fx, &mut fb, b, &[]).unwrap();
    assert_eq!(seen(h, (&mut fx, e), &mut fb, &mats, b), [0.5, 0.5, 0.5, 0.5, 2.0, 7.0]);
    // `d` keeps the SHINY it was derived with.
    assert_eq!(seen(h, (&mut fx, e), &mut fb, &mats, d), [0.5, 0.5, 0.5, 0.5, 4.0, 7.0], "derived");
}

/// A refused `set_struct` changes nothing: no field before the bad one
/// lands, and nothing oversized stays in the store to break later calls.
#[test]
fn a_refused_set_struct_changes_nothing() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let e = fx.add("s.effect.toml", TOML, WGSL).unwrap();
    let mut mats = Materials::new();
    let m = mats.create(&mut fx, &mut fb, e, &[]).unwrap();
    mats.set(&mut fb, m, "color", &[3.5f32, 2.5, 3.5, 4.5]).unwrap();
    let before = seen(h, (&mut fx, e), &mut fb, &mats, m);
    assert_eq!(before, [3.5, 2.5, 3.5, 4.5, 32.0, 0.0]);

    // `tints` has 5 elements where the block has 2; `color` comes first.
    #[derive(freqbuf::ShaderStruct)]
    struct TooLong {
        color: [f32; 4],
        shininess: f32,
        #[shader(array)]
        tints: [[f32; 4]; 5],
    }
    let bad = TooLong { color: [100.5; 4], shininess: 1.0, tints: [[9.0; 4]; 5] };
    let err = mats.set_struct(&mut fb, m, &bad).unwrap_err();
    let text = freqbuf::Report(&err).to_string();
    assert!(
        text.contains("parameter `tints`") && text.contains("the member takes 32 bytes, the value has 80"),
        "{text}"
    );
    assert_eq!(seen(h, (&mut fx, e), &mut fb, &mats, m), before, "a refused set_struct wrote a field");
    // Later calls work: nothing oversized was kept.
    mats.set_flags(&mut fx, &mut fb, m, &["SHINY"]).unwrap();
    let child = mats.derive(&mut fb, m).unwrap();
    assert_eq!(seen(h, (&mut fx, e), &mut fb, &mats, child), [3.5, 2.5, 3.5, 4.5, 64.0, 0.0]);
}
