//! `freqbuf effect`: effect files checked as a renderer loads them, run as a user would.

use serde_json::Value;

mod common;
use common::{Dir, run};

#[test]
fn effect_prints_techniques_passes_and_slots_and_counts_permutations() {
    let (code, stdout, stderr) =
        run(&["effect", "examples/effects/lit.effect.toml", "--all-permutations", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["effect"], "lit");
    assert_eq!(v["flags"], serde_json::json!(["NORMAL_MAP", "ALPHA_TEST", "SKINNED", "FOG"]));
    // FOG is never tested by the source: 2^3 combinations.
    assert_eq!(v["permutations"], 8);
    let depth = &v["techniques"][0]["passes"][0];
    assert_eq!(
        *depth,
        serde_json::json!({"name": "depth", "vertex": "vs_main", "fragment": null, "compute": null,
            "files": {"vertex": null, "fragment": null, "compute": null},
            "blend": "opaque", "cull": "none", "depth": {"compare": "less", "write": true}, "color_write": false})
    );
    let material = v["slots"].as_array().unwrap().iter().find(|s| s["group"] == 2).unwrap();
    let names = material["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect::<Vec<_>>();
    assert_eq!(names, ["base_color", "alpha_cutoff", "normal_strength"]);
    let (code, stdout, _) =
        run(&["effect", "examples/effects/lit.effect.toml", "--flags", "NORMAL_MAP", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(serde_json::from_str::<Value>(&stdout).unwrap()["permutations"], 1);
}

#[test]
fn effect_conflicts_and_unknown_flags_exit_1() {
    let (code, _, stderr) =
        run(&["effect", "crates/freqbuf-effects/tests/effects/conflict.effect.toml", "--all-permutations"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("[ALPHA_TEST]")
            && stderr.contains("forward.depth")
            && stderr.contains("`normal_strength`")
            && stderr.contains("`alpha_cutoff`"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["effect", "examples/effects/lit.effect.toml", "--flags", "BOGUS"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no flag `BOGUS`") && stderr.contains("`NORMAL_MAP`"), "{stderr}");
}

#[test]
fn effect_checks_params_and_auto_against_every_permutation() {
    let (code, _, stderr) =
        run(&["effect", "crates/freqbuf-effects/tests/effects/two_frequencies.effect.toml"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("world_view_proj") && stderr.contains("view_proj") && stderr.contains("no frequency"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["effect", "crates/freqbuf-effects/tests/effects/probe.effect.toml"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn effect_files_bring_their_modules() {
    let (code, stdout, stderr) = run(&["effect", "examples/scene/solid.effect.toml", "--all-permutations"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("solid"), "{stdout}");
    let dir = std::env::temp_dir().join(format!("freqbuf-cli-modules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("lost.effect.toml");
    std::fs::write(&file, "source = \"lost.wgsl\"\nmodules = [\"nowhere.wgsl\"]\n").unwrap();
    std::fs::write(dir.join("lost.wgsl"), "@compute @workgroup_size(1) fn main() {}\n").unwrap();
    let (code, _, stderr) = run(&["effect", file.to_str().unwrap()]);
    assert_eq!(code, 1);
    let at = format!("{}:2:12: cannot read the file: ", file.display());
    assert!(stderr.contains(&at) && stderr.contains("nowhere.wgsl"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_pass_with_stages_from_two_files_is_checked() {
    let file = "crates/freqbuf-effects/tests/effects/bevy/color_material.effect.toml";
    let plan = "0=view,1=object,2=material";
    let (code, stdout, stderr) = run(&["effect", "--all-permutations", "--plan", plan, file]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("2 permutations composed and merged (every combination)"), "{stdout}");
    assert!(stdout.contains("pass t.main: vertex mesh/mesh2d.wgsl:vertex fragment fragment"), "{stdout}");
    let (code, stdout, stderr) = run(&["effect", "--json", "--plan", plan, file]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let pass = &v["techniques"][0]["passes"][0];
    assert_eq!(pass["files"]["vertex"], "mesh/mesh2d.wgsl");
    assert_eq!(pass["files"]["fragment"], Value::Null);
    let slots =
        v["slots"].as_array().unwrap().iter().map(|s| s["frequency"].as_str().unwrap()).collect::<Vec<_>>();
    assert_eq!(
        slots,
        ["view", "object", "material"],
        "the mesh array from the vertex file, the material from the fragment's"
    );
}

#[test]
fn effect_checks_several_files_together_and_exits_1_on_a_conflict_between_them() {
    let scene = [
        "examples/scene/solid.effect.toml",
        "examples/scene/stripes.effect.toml",
        "examples/scene/glass.effect.toml",
    ];
    let (code, stdout, stderr) = run(&[&["effect"][..], &scene].concat());
    assert_eq!(code, 0, "{stderr}");
    // Three effects, three material families at one binding point.
    assert_eq!(stdout.matches("slot @group(2) @binding(0) material of family").count(), 3, "{stdout}");
    let (code, stdout, _) = run(&[&["effect", "--json"][..], &scene].concat());
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    // Two effects that name one family, with unrelated material structs.
    let dir = std::env::temp_dir().join(format!("freqbuf-cli-family-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, material) in [("a", "struct M { color: vec4<f32> }"), ("b", "struct M { rough: f32 }")] {
        let toml = format!(
            "source = \"{name}.wgsl\"\nfamily = \"pbr\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n"
        );
        let wgsl = format!(
            "{material}\n@group(2) @binding(0) var<uniform> m: M;\n@group(2) @binding(1) var<storage, read_write> out: array<M, 1>;\n@compute @workgroup_size(1) fn main() {{ out[0] = m; }}\n"
        );
        std::fs::write(dir.join(format!("{name}.effect.toml")), toml).unwrap();
        std::fs::write(dir.join(format!("{name}.wgsl")), wgsl).unwrap();
    }
    let files = ["a", "b"].map(|n| dir.join(format!("{n}.effect.toml")).display().to_string());
    let (code, _, stderr) = run(&["effect", &files[0], &files[1]]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("its family `pbr` is shared with `a`") && stderr.contains("members overlap"),
        "{stderr}"
    );
    // Alone, each is fine; and --flags picks a permutation of one effect only.
    assert_eq!(run(&["effect", &files[1]]).0, 0);
    let (code, _, stderr) = run(&["effect", "--flags", "X", &files[0], &files[1]]);
    assert_eq!(code, 1);
    assert!(stderr.contains("give one effect file"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn module_dirs_supply_imports_by_path_and_the_bevy_plan_checks() {
    let dir = "crates/freqbuf-effects/tests/effects/bevy";
    let tinted = format!("{dir}/tinted.effect.toml");
    let (code, _, stderr) = run(&["effect", "--all-permutations", &tinted]);
    assert_eq!(code, 1);
    assert!(stderr.contains("bevy_sprite::mesh2d_view_bindings"), "{stderr}");
    let lib = format!("{dir}/lib");
    let sprite = format!("{dir}/sprite.effect.toml");
    let args = [
        "effect",
        "--all-permutations",
        "--plan",
        "0=view,1=material",
        "--module-dir",
        &lib,
        &tinted,
        &sprite,
    ];
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("5 permutations composed and merged (every combination)"), "{stdout}");
    // The library's folder holds two files with one import path that nothing imports.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    assert!(root.join(&lib).join("meshlet/dummy_visibility_buffer_resolve.wgsl").exists());
    assert!(stdout.contains("slot @group(0) @binding(0) view"), "{stdout}");
}

#[test]
fn tables_are_checked_against_the_permutations_checked() {
    let dir = std::env::temp_dir().join(format!("freqbuf-cli-tables-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wgsl = "struct M {\n    color: vec4<f32>,\n#ifdef N\n    strength: f32,\n#endif\n}\n@group(2) @binding(0) var<uniform> m: M;\n@group(2) @binding(1) var<storage, read_write> out: array<vec4<f32>, 1>;\n@compute @workgroup_size(1) fn main() { out[0] = m.color; }\n";
    std::fs::write(dir.join("t.wgsl"), wgsl).unwrap();
    let toml = |params: &str| {
        format!(
            "source = \"t.wgsl\"\nflags = [\"N\"]\n[params]\n{params}\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n"
        )
    };
    let file = dir.join("t.effect.toml");
    let file = file.to_str().unwrap();
    std::fs::write(file, toml("strength = 2.0")).unwrap();
    assert_eq!(run(&["effect", file]).0, 0, "only N's permutation declares `strength`");
    assert_eq!(run(&["effect", "--all-permutations", file]).0, 0);
    std::fs::write(file, toml("strength = 2.0\nstrenght = 1.0")).unwrap();
    assert_eq!(run(&["effect", file]).0, 0, "the base permutation cannot tell a typo from N's member");
    let (code, _, stderr) = run(&["effect", "--all-permutations", file]);
    assert_eq!(code, 1);
    assert!(stderr.contains("strenght"), "{stderr}");
    let (code, _, stderr) = run(&["effect", "--flags", "N", file]);
    assert_eq!(code, 0, "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A def a renderer sets in code (Bevy's `MATERIAL_BIND_GROUP`) is given on
/// the command line; without it the effect does not compose.
#[test]
fn defs_set_in_code_are_given_with_def() {
    let dir = Dir::new("def");
    let wgsl = "struct M { tint: vec4<f32> }\n@group(#{MATERIAL_BIND_GROUP}) @binding(0) var<uniform> m: M;\n@group(#{MATERIAL_BIND_GROUP}) @binding(1) var<storage, read_write> out: array<vec4<f32>, 1>;\n@compute @workgroup_size(1) fn main() { out[0] = m.tint; }\n";
    std::fs::write(dir.0.join("d.wgsl"), wgsl).unwrap();
    let toml = "source = \"d.wgsl\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";
    std::fs::write(dir.0.join("d.effect.toml"), toml).unwrap();
    let file = dir.0.join("d.effect.toml").display().to_string();
    assert_eq!(run(&["effect", &file]).0, 1);
    let (code, stdout, stderr) = run(&["effect", "--def", "MATERIAL_BIND_GROUP=2", &file]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("slot @group(2) @binding(0) material"), "{stdout}");
    let (code, _, stderr) = run(&["effect", "--def", "MATERIAL_BIND_GROUP=two", &file]);
    assert_eq!(code, 2);
    assert!(stderr.contains("`two` is not true, false or an integer"), "{stderr}");
}

/// A `--def` name that is not an identifier, or one given twice, is the
/// command line's mistake, said as such, not blamed on the shader.
#[test]
fn bad_def_names_are_the_command_lines_not_the_shaders() {
    let dir = Dir::new("def_names");
    std::fs::write(dir.0.join("g.wesl"), "@compute @workgroup_size(1) fn main() {}\n").unwrap();
    let toml = "source = \"g.wesl\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";
    std::fs::write(dir.0.join("g.effect.toml"), toml).unwrap();
    let wesl = dir.0.join("g.wesl").display().to_string();
    let effect = dir.0.join("g.effect.toml").display().to_string();
    let cases = [
        ("=1", "def `` is not an identifier"),
        ("A B=1", "def `A B` is not an identifier"),
        ("const=1", "def `const` is a WGSL keyword or reserved word"),
        ("fn=1", "def `fn` is a WGSL keyword or reserved word"),
        ("1X=1", "def `1X` is not an identifier"),
        ("G=1,G=2", "def `G` is given twice"),
    ];
    for (def, said) in cases {
        for args in [["reflect", "--def", def, &wesl], ["effect", "--def", def, &effect]] {
            let (code, _, stderr) = run(&args);
            assert_eq!(code, 1, "{args:?}: {stderr}");
            assert!(stderr.contains(said), "{args:?}: {stderr}");
            assert!(stderr.contains("defs set in code"), "{args:?}: {stderr}");
            assert!(!stderr.contains("WESL compiler"), "{args:?} blamed the shader: {stderr}");
        }
    }
}

/// Who uses a slot is a phrase per effect; `--verbose` names every
/// permutation, and the JSON always does.
#[test]
fn slot_users_are_summarised_unless_verbose() {
    let lit = "examples/effects/lit.effect.toml";
    let (code, stdout, stderr) = run(&["effect", "--all-permutations", lit]);
    assert_eq!(code, 0, "{stderr}");
    let material = stdout.lines().find(|l| l.starts_with("slot @group(2)")).unwrap();
    assert!(material.ends_with("used by lit (all 8 permutations)"), "{material}");
    let (_, verbose, _) = run(&["effect", "--all-permutations", "--verbose", lit]);
    let material = verbose.lines().find(|l| l.starts_with("slot @group(2)")).unwrap();
    assert!(material.contains("lit[NORMAL_MAP+ALPHA_TEST]"), "{material}");
}

/// 12 flags, 4,096 permutations: the text stays well under a screen per slot.
#[test]
fn a_4096_permutation_effect_prints_a_short_report() {
    let dir = Dir::new("scale");
    let flags = (0..12).map(|i| format!("F{i}")).collect::<Vec<_>>();
    let mut wgsl = String::from(
        "struct M { base: vec4<f32> }\n@group(2) @binding(0) var<uniform> m: M;\n@group(2) @binding(1) var<storage, read_write> out: array<vec4<f32>, 1>;\n@compute @workgroup_size(1) fn main() {\n    var v = m.base;\n",
    );
    for (i, f) in flags.iter().enumerate() {
        wgsl += &format!("#ifdef {f}\n    v = v + vec4<f32>({i}.0);\n#endif\n");
    }
    wgsl += "    out[0] = v;\n}\n";
    std::fs::write(dir.0.join("s.wgsl"), wgsl).unwrap();
    let list = flags.iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(", ");
    let toml = format!(
        "source = \"s.wgsl\"\nflags = [{list}]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n"
    );
    std::fs::write(dir.0.join("s.effect.toml"), toml).unwrap();
    let file = dir.0.join("s.effect.toml").display().to_string();
    let (code, stdout, stderr) = run(&["effect", "--all-permutations", &file]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("4096 permutations"), "{stdout}");
    let slot = stdout.lines().find(|l| l.starts_with("slot @group(2) @binding(0)")).unwrap();
    assert!(slot.ends_with("used by s (all 4096 permutations)"), "{slot}");
    assert!(stdout.lines().count() < 80, "{} lines", stdout.lines().count());
}

/// `--flags` outside the effect's constraints is refused naming the rule.
#[test]
fn flags_outside_the_constraints_are_refused() {
    let dir = Dir::new("constraints");
    let wgsl = "#ifdef A\nconst K: f32 = 1.0;\n#endif\n#ifdef B\nconst K: f32 = 2.0;\n#endif\n@compute @workgroup_size(1) fn main() { _ = K; }\n";
    std::fs::write(dir.0.join("c.wgsl"), wgsl).unwrap();
    let toml = "source = \"c.wgsl\"\nflags = [\"A\", \"B\"]\none_of = [[\"A\", \"B\"]]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";
    std::fs::write(dir.0.join("c.effect.toml"), toml).unwrap();
    let file = dir.0.join("c.effect.toml").display().to_string();
    let (code, stdout, stderr) = run(&["effect", "--all-permutations", &file]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("2 permutations composed and merged (every combination)"), "{stdout}");
    let (code, _, stderr) = run(&["effect", "--flags", "A,B", &file]);
    assert_eq!(code, 1);
    assert!(stderr.contains("effect `c` is never built with [A+B]: `one_of = [\"A\", \"B\"]`"), "{stderr}");
}

/// `--suggest-rules` composes each allowed combination alone and prints the
/// pair rules that exclude the failures; a failed whole check prints them
/// as hints.
#[test]
fn failing_combinations_get_the_rules_that_would_exclude_them() {
    let dir = Dir::new("suggest");
    let wgsl = "#ifdef LOW\nconst T: f32 = 0.1;\n#endif\n#ifdef HIGH\nconst T: f32 = 0.3;\n#endif\n\
        #ifndef LOW\n#ifndef HIGH\nconst T: f32 = 0.2;\n#endif\n#endif\n\
        #ifdef TANGENTS\nfn t() -> f32 { return N * T; }\n#endif\n#ifdef NORMALS\nconst N: f32 = 2.0;\n#endif\n\
        @compute @workgroup_size(1) fn main() { _ = T; }\n";
    std::fs::write(dir.0.join("x.wgsl"), wgsl).unwrap();
    let toml = "source = \"x.wgsl\"\nflags = [\"LOW\", \"HIGH\", \"NORMALS\", \"TANGENTS\"]\n\
        [[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";
    let file = dir.0.join("x.effect.toml");
    std::fs::write(&file, toml).unwrap();
    let file = file.to_str().unwrap();
    let (code, stdout, stderr) = run(&["effect", "--suggest-rules", file]);
    assert_eq!(code, 0, "{stderr}");
    let x = dir.0.join("x.wgsl");
    let x = x.to_str().unwrap();
    assert_eq!(
        stdout,
        format!(
            "{file}: 16 combinations composed (every combination), 7 fail\n  \
             at_most_one = [[\"LOW\", \"HIGH\"]]  # excludes 4: [LOW+HIGH] cannot compose {x}:5:7: with [LOW+HIGH], naga's WGSL parser refused it: redefinition of `T`\n  \
             implies.TANGENTS = [\"NORMALS\"]  # excludes 3: [TANGENTS] cannot compose {x}:13:24: with [TANGENTS], naga's WGSL parser refused it: no definition in scope for identifier: `N`\n"
        )
    );
    // The failed check names the rule for its combination, and where the others are.
    let (code, _, stderr) = run(&["effect", "--all-permutations", file]);
    assert_eq!(code, 1);
    assert!(
        stderr.ends_with(&format!(
            "error: cannot compose {x}:5:7: with [LOW+HIGH], naga's WGSL parser refused it: redefinition of `T`; \
             `at_most_one = [[\"LOW\", \"HIGH\"]]` would exclude it and keep every combination that composes\n\
             hint: `freqbuf effect --suggest-rules {file}` lists a rule for every failing combination\n"
        )),
        "{stderr}"
    );
}

/// A failed whole check that no pair rule explains points at
/// `--suggest-rules` and composes nothing again to say so: within
/// `SUGGEST_WITHIN` the check has looked for a rule already, above it the
/// count comes from the rules, not from composing.
#[test]
fn a_failed_check_without_a_pair_rule_points_at_suggest_rules() {
    let dir = Dir::new("no-pair-rule");
    // Fails only with all three of A, B and C: no rule over two flags excludes it.
    let wgsl = "#ifdef A\n#ifdef B\n#ifdef C\nconst T: f32 = missing;\n#endif\n#endif\n#endif\n\
        @compute @workgroup_size(1) fn main() {}\n";
    std::fs::write(dir.0.join("p.wgsl"), wgsl).unwrap();
    let toml = |flags: &str| {
        format!(
            "source = \"p.wgsl\"\nflags = [{flags}]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n"
        )
    };
    let file = dir.0.join("p.effect.toml");
    std::fs::write(&file, toml("\"A\", \"B\", \"C\"")).unwrap();
    let file = file.to_str().unwrap();
    let p = dir.0.join("p.wgsl");
    let p = p.to_str().unwrap();
    let (code, _, stderr) = run(&["effect", "--all-permutations", file]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        format!(
            "error: cannot compose {p}:4:16: with [A+B+C], naga's WGSL parser refused it: no definition in scope for identifier: `missing`\n\
             hint: no rule over two flags excludes it and keeps every combination that composes; \
             `freqbuf effect --suggest-rules {file}` lists every failing combination\n"
        )
    );
    // Eleven flags, each tested: 2,048 combinations, over SUGGEST_WITHIN.
    let more = (0..8).map(|i| format!("#ifdef F{i}\nconst F{i}: f32 = 1.0;\n#endif\n")).collect::<String>();
    std::fs::write(dir.0.join("p.wgsl"), format!("{more}{wgsl}")).unwrap();
    let flags = (0..8).map(|i| format!("\"F{i}\", ")).collect::<String>();
    std::fs::write(file, toml(&format!("{flags}\"A\", \"B\", \"C\""))).unwrap();
    let (code, _, stderr) = run(&["effect", "--all-permutations", file]);
    assert_eq!(code, 1);
    assert!(
        stderr.ends_with(&format!(
            "hint: `freqbuf effect --suggest-rules {file}` composes each of the 2048 combinations the rules allow \
             and lists a rule for every failing one\n"
        )),
        "{stderr}"
    );
}
