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
