//! Flag constraints: exclusive groups and implications decide which
//! combinations exist, for the whole-effect check and for `Effects::flags`.

use crate::common;

use freqbuf::{Registry, SlotPlan};
use freqbuf_effects::{EffectErrorKind, Effects};

/// Like fxaa's `EDGE_THRESH_*`: exactly one of three defines the constant
/// the shader reads, so no flag (undefined) and two flags (defined twice)
/// do not compose.
const EXCLUSIVE: &str = "
#ifdef LOW
const T: f32 = 0.1;
#endif
#ifdef MID
const T: f32 = 0.2;
#endif
#ifdef HIGH
const T: f32 = 0.3;
#endif
#ifdef TANGENTS
fn t() -> f32 { return N * T; }
#endif
#ifdef NORMALS
const N: f32 = 2.0;
#endif
@compute @workgroup_size(1) fn main() { _ = T; }
";

fn effect(constraints: &str) -> String {
    format!(
        "flags = [\"LOW\", \"MID\", \"HIGH\", \"NORMALS\", \"TANGENTS\"]\nsource = \"x.wgsl\"\n{constraints}\n\
         [[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n"
    )
}

fn check(fx: &mut Effects, id: freqbuf_effects::EffectId) -> Result<freqbuf_effects::CheckReport, String> {
    fx.check(&Registry::new(SlotPlan::default()), id, None).map_err(|e| common::chain(&e))
}

#[test]
fn the_check_composes_only_the_combinations_the_constraints_allow() {
    let mut fx = Effects::new();
    let id = fx.add("x.effect.toml", &effect(""), EXCLUSIVE).unwrap();
    assert!(
        check(&mut fx, id).is_err(),
        "without constraints the check meets combinations that cannot compose"
    );

    let rules = "one_of = [[\"LOW\", \"MID\", \"HIGH\"]]\n[implies]\nTANGENTS = [\"NORMALS\"]";
    let id = fx
        .add("y.effect.toml", &effect(rules), EXCLUSIVE)
        .unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    let report = check(&mut fx, id).unwrap();
    // 3 thresholds × (none, NORMALS, NORMALS+TANGENTS).
    assert_eq!((report.permutations, report.exhaustive), (9, true));
    assert_eq!(
        fx.effect(id).constraints().describe(),
        [
            "`one_of = [\"LOW\", \"MID\", \"HIGH\"]` needs exactly one of them on",
            "`implies.TANGENTS = [\"NORMALS\"]`: `TANGENTS` needs them on"
        ]
    );

    // Effects::flags refuses what the check skipped, naming the rule.
    let e = fx.flags(id, &["LOW", "HIGH"]).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use y: effect `y` is never built with [LOW+HIGH]: `one_of = [\"LOW\", \"MID\", \"HIGH\"]` needs exactly one of them on"
    );
    let e = fx.flags(id, &["MID", "TANGENTS"]).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::FlagsNotAllowed { .. }), "{}", common::chain(&e));
    assert!(common::chain(&e).ends_with("`TANGENTS` needs them on"), "{}", common::chain(&e));
    assert!(fx.flags(id, &["MID", "TANGENTS", "NORMALS"]).is_ok());
}

/// A flag only a constraint names still decides: `one_of` over a tested
/// flag and an untested one allows the tested one off.
#[test]
fn an_untested_flag_in_a_group_lets_the_tested_ones_be_off() {
    let source = "#ifdef A\nconst K: f32 = 1.0;\n#else\nconst K: f32 = 2.0;\n#endif\n@compute @workgroup_size(1) fn main() { _ = K; }\n";
    let toml = "flags = [\"A\", \"UNUSED\"]\none_of = [[\"A\", \"UNUSED\"]]\nsource = \"a.wgsl\"\n\
        [[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";
    let mut fx = Effects::new();
    let id = fx.add("a.effect.toml", toml, source).unwrap();
    assert_eq!(check(&mut fx, id).map(|r| r.permutations), Ok(2));
}

/// The limit counts allowed combinations, not flags: 30 flags, two `one_of`
/// groups of 12 and 6 free (Bevy's `downsample` tests 27 flags and allows
/// 504; `prepass` allows 5,408) are 144 × 64 = 9,216 combinations, every one
/// checked (at 2^12, the limit before, they were sampled).
#[test]
fn many_flags_with_few_allowed_combinations_are_checked_exhaustively() {
    let flags = (0..30).map(|i| format!("F{i}")).collect::<Vec<_>>();
    let mut source = String::new();
    for (i, f) in flags.iter().enumerate() {
        source += &match i {
            0..12 => format!("#ifdef {f}\nconst A: f32 = {i}.0;\n#endif\n"),
            12..24 => format!("#ifdef {f}\nconst B: f32 = {i}.0;\n#endif\n"),
            _ => format!("#ifdef {f}\n#endif\n"),
        };
    }
    source += "@compute @workgroup_size(1) fn main() { _ = A + B; }\n";
    let list = |r: std::ops::Range<usize>| {
        flags[r].iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(", ")
    };
    let toml = format!(
        "flags = [{}]\none_of = [[{}], [{}]]\nsource = \"s.wgsl\"\n\
         [[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n",
        list(0..30),
        list(0..12),
        list(12..24)
    );
    let mut fx = Effects::new();
    let id = fx.add("s.effect.toml", &toml, &source).unwrap();
    let report = check(&mut fx, id).unwrap();
    assert_eq!(
        (report.permutations, report.exhaustive, report.allowed),
        (9216, true, Some(9216)),
        "{report:?}"
    );
}

/// Above 16,384 allowed combinations the check samples, and every sample is
/// one the constraints allow.
#[test]
fn sampling_above_the_limit_keeps_to_the_constraints() {
    let flags = (0..16).map(|i| format!("F{i}")).collect::<Vec<_>>();
    let mut source = String::new();
    for f in &flags {
        source += &format!("#ifdef {f}\nconst {f}_ON: f32 = 1.0;\n#endif\n");
    }
    // F0..F2 define K, exactly one of them.
    source += "#ifdef F0\nconst K: f32 = 0.0;\n#endif\n#ifdef F1\nconst K: f32 = 1.0;\n#endif\n#ifdef F2\nconst K: f32 = 2.0;\n#endif\n";
    source += "@compute @workgroup_size(1) fn main() { _ = K; }\n";
    let list = flags.iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(", ");
    let toml = format!(
        "flags = [{list}]\none_of = [[\"F0\", \"F1\", \"F2\"]]\nsource = \"s.wgsl\"\n\
         [[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n"
    );
    let mut fx = Effects::new();
    let id = fx.add("s.effect.toml", &toml, &source).unwrap();
    let report = check(&mut fx, id).unwrap();
    // 3 × 2^13 = 24,576 allowed: sampled, each sample composing, and the whole counted.
    assert_eq!((report.exhaustive, report.allowed), (false, Some(24_576)), "{report:?}");
    assert!(report.permutations > 14 && report.permutations < 200, "{report:?}");
}

#[test]
fn malformed_constraints_are_refused_where_they_are_written() {
    let mut fx = Effects::new();
    let cases = [
        (
            "one_of = [[\"LOW\", \"LOUD\"]]",
            "cannot load x.effect.toml:3:19: `LOUD` is not one of the effect's flags",
        ),
        (
            "at_most_one = [[\"LOW\"]]",
            "cannot load x.effect.toml:3:16: each `at_most_one` group names at least two flags",
        ),
        (
            "one_of = [[\"LOW\", \"MID\", \"LOW\"]]",
            "cannot load x.effect.toml:3:26: `LOW` is in this `one_of` group twice",
        ),
        ("[implies]\nLOW = [\"LOW\"]", "cannot load x.effect.toml:4:1: `LOW` cannot imply itself"),
        (
            "one_of = [[\"LOW\", \"MID\"]]\n[implies]\nLOW = [\"MID\"]\nMID = [\"LOW\"]",
            "cannot load x.effect.toml: no combination of the flags meets every constraint",
        ),
    ];
    for (rules, message) in cases {
        let toml = effect(rules);
        let e = fx.add("x.effect.toml", &toml, EXCLUSIVE).unwrap_err();
        assert_eq!(common::chain(&e), message, "{toml}");
    }
}

/// Bevy pushes exactly one tonemapping method, and only inside
/// `TONEMAP_IN_SHADER` (`[implies_one_of]`); a pass may exist only with a
/// flag off (`requires = ["!T"]`), its entry point missing under the flag.
#[test]
fn conditional_groups_and_passes_that_need_a_flag_off() {
    let source = "#ifdef T\n#ifdef A\nconst K: f32 = 1.0;\n#endif\n#ifdef B\nconst K: f32 = 2.0;\n#endif\nfn t() -> f32 { return K; }\n#endif\n\
        @compute @workgroup_size(1) fn main() {}\n#ifndef T\n@compute @workgroup_size(1) fn plain() {}\n#endif\n";
    let toml = "flags = [\"T\", \"A\", \"B\"]\nsource = \"t.wgsl\"\n\
        [implies]\nA = [\"T\"]\nB = [\"T\"]\n[implies_one_of]\nT = [\"A\", \"B\"]\n\
        [[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n\
        [[technique.pass]]\n  name = \"untonemapped\"\n  compute = \"plain\"\n  requires = [\"!T\"]\n";
    let mut fx = Effects::new();
    let id = fx.add("t.effect.toml", toml, source).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    // None, T+A, T+B.
    assert_eq!(check(&mut fx, id).map(|r| (r.permutations, r.exhaustive)), Ok((3, true)));
    let e = fx.flags(id, &["T"]).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use t: effect `t` is never built with [T]: `implies_one_of.T = [\"A\", \"B\"]`: `T` needs exactly one of them on"
    );
    let e = fx.flags(id, &["A"]).unwrap_err();
    assert!(common::chain(&e).ends_with("`implies.A = [\"T\"]`: `A` needs them on"), "{}", common::chain(&e));
    // Without the `!T`, the second pass would lack its entry point under T.
    let e = fx
        .add("u.effect.toml", &toml.replace("  requires = [\"!T\"]\n", ""), source)
        .map(|id| check(&mut fx, id));
    assert!(matches!(e, Ok(Err(ref m)) if m.contains("no compute entry point `plain`")), "{e:?}");
}

/// Past 20 constrained flags, satisfiability is decided by search, not by
/// repairing samples: a long implication chain that one combination meets
/// (B01..B19 on, X, Z1, Z2 off) is accepted, and the check's combinations
/// each meet every rule; the same chain made contradictory is refused.
#[test]
fn a_long_chain_that_one_combination_meets_is_satisfiable() {
    let mut flags = vec!["X".to_owned(), "Z1".to_owned(), "Z2".to_owned()];
    flags.extend((1..=19).map(|i| format!("B{i:02}")));
    let list = flags.iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(", ");
    let mut wgsl = String::from("@compute @workgroup_size(1) fn main() {\n    var v = 0u;\n");
    for (i, f) in flags.iter().enumerate() {
        wgsl += &format!("#ifdef {f}\n    v = v + {}u;\n#endif\n", 1u32 << i);
    }
    wgsl += "    _ = v;\n}\n";
    let chain = (2..=19).map(|i| format!("B{i:02} = [\"B{:02}\"]\n", i - 1)).collect::<String>();
    let toml = |more_exclusive: &str| {
        format!(
            "flags = [{list}]\nsource = \"x.wgsl\"\none_of = [[\"X\", \"B19\"]]\nat_most_one = [[\"Z1\", \"Z2\"]{more_exclusive}]\n\
             [implies]\nX = [\"Z1\", \"Z2\"]\n{chain}\
             [[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n"
        )
    };
    let mut fx = Effects::new();
    let id =
        fx.add("chain.effect.toml", &toml(""), &wgsl).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    // X is impossible (it needs both of an at-most-one pair), so B19 is on,
    // and the chain puts B01..B18 on.
    let on = (1..=19).map(|i| format!("B{i:02}")).collect::<Vec<_>>();
    let on = on.iter().map(String::as_str).collect::<Vec<_>>();
    fx.flags(id, &on).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    assert!(fx.flags(id, &["X", "Z1", "Z2"]).is_err());
    let report = check(&mut fx, id).unwrap();
    // Z1, Z2 or neither (X, which needs both, stays off).
    assert_eq!((report.permutations, report.exhaustive), (3, true), "{report:?}");

    // B01 also excludes B19 (and so the whole chain): no combination is left.
    let contradiction = toml(", [\"B01\", \"B19\"]");
    let e = fx.add("contra.effect.toml", &contradiction, &wgsl).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot load contra.effect.toml: no combination of the flags meets every constraint"
    );
}

/// Without rules, EXCLUSIVE fails where no threshold or two are on and where
/// TANGENTS lacks NORMALS. The suggestions (greedy, most excluded first)
/// exclude every failure a pair rule can and no combination that composes;
/// no threshold on needs a group rule (`one_of`), so it stays unexplained.
#[test]
fn suggested_rules_exclude_the_failures_and_keep_what_composes() {
    let mut fx = Effects::new();
    let id = fx.add("x.effect.toml", &effect(""), EXCLUSIVE).unwrap();
    let s = fx.suggest_rules(id).unwrap();
    assert_eq!((s.checked, s.exhaustive), (32, true));
    let rules = s.rules.iter().map(|r| (r.rule.as_str(), r.excludes.len())).collect::<Vec<_>>();
    assert_eq!(
        rules,
        [
            ("at_most_one = [[\"LOW\", \"MID\"]]", 8),
            ("implies.TANGENTS = [\"NORMALS\"]", 6),
            ("at_most_one = [[\"LOW\", \"HIGH\"]]", 3),
            ("at_most_one = [[\"MID\", \"HIGH\"]]", 3),
        ]
    );
    // 9 of 32 compose. No threshold on (and TANGENTS with NORMALS, or
    // neither): only `one_of` would exclude them.
    assert_eq!(s.failures.len(), 32 - 9);
    assert_eq!(s.unexplained.len(), 3, "{:?}", s.unexplained);
    assert!(s.unexplained.iter().all(|f| !f.iter().any(|n| ["LOW", "MID", "HIGH"].contains(&n.as_str()))));
    // With the rules written, nothing fails.
    let rules = "one_of = [[\"LOW\", \"MID\", \"HIGH\"]]\n[implies]\nTANGENTS = [\"NORMALS\"]";
    let id = fx.add("y.effect.toml", &effect(rules), EXCLUSIVE).unwrap();
    let s = fx.suggest_rules(id).unwrap();
    assert_eq!((s.checked, s.failures.len(), s.rules.len()), (9, 0, 0));
}

/// When no combination composes, no rule is suggested: every rule would
/// "keep every combination that composes" and none would help.
#[test]
fn nothing_is_suggested_when_no_combination_composes() {
    let source = "#ifdef A\nconst K: f32 = 1.0;\n#endif\n@compute @workgroup_size(1) fn main() { _ = K + undefined; }\n";
    let toml = "flags = [\"A\", \"B\"]\nsource = \"a.wgsl\"\n\
        [[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";
    let mut fx = Effects::new();
    let id = fx.add("a.effect.toml", toml, source).unwrap();
    let s = fx.suggest_rules(id).unwrap();
    assert_eq!((s.checked, s.failures.len(), s.rules.len(), s.unexplained.len()), (2, 2, 0, 2));
}
