//! Contradictions in effect files are refused, naming both sides: two
//! techniques, or two passes of a technique, with one name.

use crate::common;

use freqbuf_effects::{EffectErrorKind, Effects};

const WGSL: &str = "@compute @workgroup_size(1) fn main() {}\n";

#[test]
fn duplicate_technique_and_pass_names_are_refused_naming_both() {
    let mut fx = Effects::new();
    let pass = |name: &str| format!("  [[technique.pass]]\n  name = \"{name}\"\n  compute = \"main\"\n");
    let technique = |name: &str, passes: &str| format!("[[technique]]\nname = \"{name}\"\n{passes}");
    let toml = format!("source = \"d.wgsl\"\n{}{}", technique("t", &pass("p")), technique("t", &pass("q")));
    let e = fx.add("d.effect.toml", &toml, WGSL).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::DuplicateName { what: "technique", .. }), "{e}");
    assert_eq!(
        common::chain(&e),
        "d.effect.toml:8:8: technique `t` is declared twice: first at 3:8, again here"
    );
    let toml = format!("source = \"d.wgsl\"\n{}", technique("t", &(pass("p") + &pass("q") + &pass("p"))));
    let e = fx.add("e.effect.toml", &toml, WGSL).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "e.effect.toml:11:10: pass `t.p` is declared twice: first at 5:10, again here"
    );
    // One pass name in two techniques is two passes, `t.p` and `u.p`.
    let toml = format!("source = \"d.wgsl\"\n{}{}", technique("t", &pass("p")), technique("u", &pass("p")));
    fx.add("f.effect.toml", &toml, WGSL).unwrap();
}

/// A queue item whose material is of another family than its pass's effect
/// is refused when queued, naming both families.
#[test]
fn a_queue_item_with_a_material_of_another_family_is_refused_naming_both() {
    use freqbuf::{Manager, SlotPlan};
    use freqbuf_effects::{Geometry, Materials, QueueItem, RenderQueue};
    let Some(h) = common::gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let wgsl = |member: &str| {
        format!(
            "struct M {{ {member}: vec4<f32> }}\n@group(2) @binding(0) var<uniform> m: M;\n@vertex fn vs() -> @builtin(position) vec4<f32> {{ return m.{member}; }}\n@fragment fn fs() -> @location(0) vec4<f32> {{ return m.{member}; }}\n"
        )
    };
    let toml = |family: &str| {
        format!(
            "source = \"s.wgsl\"\nfamily = \"{family}\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  vertex = \"vs\"\n  fragment = \"fs\"\n"
        )
    };
    let a = fx.add("a.effect.toml", &toml("fa"), &wgsl("a")).unwrap();
    let b = fx.add("b.effect.toml", &toml("fb"), &wgsl("b")).unwrap();
    let mut mats = Materials::new();
    let ma = mats.create(&mut fx, &mut fb, a, &[]).unwrap();
    let pass_b = fx.technique(b, "t").unwrap().next().unwrap();
    let item = QueueItem {
        pass: pass_b,
        material: ma,
        view: None,
        object: None,
        geometry: Geometry::vertices(0..3),
        depth: 0.0,
    };
    let e = RenderQueue::new().insert(&fx, &mats, item).unwrap_err();
    let text = common::chain(&e);
    assert!(text.contains("`fa`") && text.contains("`fb`"), "{text}");
}
