//! The `freqbuf reflect` command line, run as a user would.

use std::process::Command;

use serde_json::Value;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_freqbuf"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn json_has_the_documented_shape() {
    let (code, stdout, stderr) = run(&[
        "reflect",
        "--json",
        "crates/freqbuf/tests/shaders/frame.wgsl",
        "crates/freqbuf/tests/shaders/frame.vert",
        "crates/freqbuf/tests/shaders/padding.wgsl",
        "crates/freqbuf/tests/shaders/texture_array.wgsl",
        "crates/freqbuf/tests/shaders/unused.wgsl",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let slots = v["slots"].as_array().unwrap();
    let frame = slots.iter().find(|s| s["group"] == 0 && s["binding"] == 0).unwrap();
    assert_eq!(frame["frequency"], "frame");
    assert_eq!(frame["size"], 80);
    assert_eq!(
        frame["members"][0],
        serde_json::json!({"name":"time","offset":0,"size":4,"type":"f32","count":1,"stride":0})
    );
    let users = frame["shaders"].as_array().unwrap();
    assert_eq!(users.len(), 3, "{users:?}");
    assert!(users.contains(&Value::from("crates/freqbuf/tests/shaders/frame.vert")));

    let cascade = slots.iter().find(|s| s["group"] == 0 && s["binding"] == 3).unwrap();
    let m = &cascade["members"][0];
    assert_eq!(
        (m["type"].as_str(), m["count"].as_u64(), m["stride"].as_u64(), m["size"].as_u64()),
        (Some("vec4<f32>"), Some(4), Some(16), Some(64))
    );

    let shaders = v["shaders"].as_array().unwrap();
    let tex =
        shaders.iter().find(|s| s["name"] == "crates/freqbuf/tests/shaders/texture_array.wgsl").unwrap();
    let gmrts = tex["resources"].as_array().unwrap().iter().find(|r| r["name"] == "GMRTs").unwrap();
    assert_eq!(
        (gmrts["group"].as_u64(), gmrts["binding"].as_u64(), gmrts["kind"].as_str(), gmrts["count"].as_u64()),
        (Some(2), Some(3), Some("texture"), Some(4))
    );
    let unused = shaders.iter().find(|s| s["name"] == "crates/freqbuf/tests/shaders/unused.wgsl").unwrap();
    assert_eq!(unused["unused"], serde_json::json!(["debug_view"]));
    let kinds = unused["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect::<Vec<_>>();
    assert_eq!(kinds, ["uniform", "uniform"]);
    // The unused view block made no slot.
    assert!(!slots.iter().any(|s| s["group"] == 1 && s["binding"] == 0));
}

#[test]
fn table_output_is_readable() {
    let (code, stdout, _) = run(&["reflect", "crates/freqbuf/tests/shaders/frame.wgsl"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("frame") && stdout.contains("view_proj") && stdout.contains("mat4x4<f32>"),
        "{stdout}"
    );
}

#[test]
fn errors_exit_1_and_name_every_file() {
    let (code, stdout, stderr) = run(&[
        "reflect",
        "--json",
        "crates/freqbuf/tests/shaders/frame.wgsl",
        "crates/freqbuf/tests/shaders/bad/syntax.wgsl",
        "crates/freqbuf/tests/shaders/bad/conflict_type.wgsl",
    ]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(stderr.contains("crates/freqbuf/tests/shaders/bad/syntax.wgsl:6:"), "{stderr}");
    assert!(
        stderr.contains("conflict_type.wgsl") && stderr.contains("crates/freqbuf/tests/shaders/frame.wgsl"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().filter(|l| l.starts_with("error")).count(), 2, "{stderr}");
}

#[test]
fn missing_files_and_arguments_do_not_panic() {
    let (code, _, stderr) = run(&["reflect", "nope.wgsl"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("nope.wgsl") && !stderr.contains("panicked"));
    let (code, _, stderr) = run(&["reflect"]);
    assert_ne!(code, 0);
    assert!(!stderr.contains("panicked"));
}

#[test]
fn stage_applies_to_glsl_files_only() {
    let (code, _, stderr) = run(&["reflect", "crates/freqbuf/tests/shaders/tint.glsl"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("tint.glsl") && stderr.contains("stage"), "{stderr}");
    let files = ["crates/freqbuf/tests/shaders/prefix_full.wgsl", "crates/freqbuf/tests/shaders/tint.glsl"];
    let (code, stdout, stderr) = run(&["reflect", "--json", "--stage", "fragment", files[0], files[1]]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    // Each file is a family of its own: a material slot each.
    let materials = v["slots"].as_array().unwrap().iter().filter(|s| s["group"] == 2).collect::<Vec<_>>();
    assert_eq!(materials.len(), 2);
    assert_eq!(materials[0]["family"], files[0]);
    // In one family, their material blocks merge.
    let (code, stdout, stderr) =
        run(&["reflect", "--json", "--stage", "fragment", "--family", "mat", files[0], files[1]]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let material = v["slots"].as_array().unwrap().iter().find(|s| s["group"] == 2).unwrap();
    assert_eq!(material["family"], "mat");
    assert_eq!(material["shaders"].as_array().unwrap().len(), 2);
}

#[test]
fn names_two_blocks_declare_are_warnings_with_their_qualified_spellings() {
    let (code, _, stderr) = run(&["reflect", "crates/freqbuf/tests/shaders/two_materials.wgsl"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr.trim(),
        "warning: `color` is declared by 2 material blocks; set it as `mat_a.color`, `MatA.color`, `mat_b.color`, `MatB.color`"
    );
}

#[test]
fn nested_arrays_have_their_dimensions_in_the_json() {
    let (code, stdout, stderr) = run(&["reflect", "--json", "crates/freqbuf/tests/shaders/nested.wgsl"]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let m = &v["slots"][0]["members"][0];
    assert_eq!(m["type"], "array<vec4<f32>, 3>");
    assert_eq!(m["dims"], serde_json::json!([{"count": 9, "stride": 48}, {"count": 3, "stride": 16}]));
}

#[cfg(unix)]
#[test]
fn only_regular_files_are_read_and_other_files_are_still_reported() {
    let dir = std::env::temp_dir().join(format!("freqbuf-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("x.wgsl");
    let _ = std::fs::remove_file(&fifo);
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let zero = dir.join("zero.spv");
    let _ = std::fs::remove_file(&zero);
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let (code, _, stderr) = run(&[
        "reflect",
        fifo.to_str().unwrap(),
        zero.to_str().unwrap(),
        "crates/freqbuf/tests/shaders/bad/syntax.wgsl",
        "crates/freqbuf/tests/shaders/frame.wgsl",
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("x.wgsl: cannot read the file: not a regular file"), "{stderr}");
    assert!(stderr.contains("zero.spv: cannot read the file: not a regular file"), "{stderr}");
    assert!(stderr.contains("syntax.wgsl:6:"), "{stderr}");
    assert_eq!(stderr.lines().filter(|l| l.starts_with("error")).count(), 3, "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

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

/// `declare` takes `--stage` for `.glsl` files, as `reflect` does, and
/// `reflect --json` says which slots are arrays.
#[test]
fn declare_takes_a_stage_and_json_marks_array_slots() {
    let (code, stdout, stderr) =
        run(&["declare", "--stage", "fragment", "crates/freqbuf/tests/shaders/tint.glsl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("var<uniform>"), "{stdout}");
    let dir = std::env::temp_dir().join(format!("freqbuf-cli-array-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("lights.wgsl");
    std::fs::write(
        &file,
        "struct Light { color: vec4<f32> }\n@group(3) @binding(0) var<storage, read> lights: array<Light>;\n@vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> { return lights[i].color; }\n",
    )
    .unwrap();
    let (code, stdout, stderr) = run(&["reflect", "--json", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["slots"][0]["array"], Value::Bool(true), "{stdout}");
    let (code, stdout, stderr) = run(&["declare", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("var<storage, read> lights: array<Light>;"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn declare_prints_wgsl_that_reflects_back() {
    let (code, stdout, stderr) = run(&[
        "declare",
        "crates/freqbuf/tests/shaders/frame.wgsl",
        "crates/freqbuf/tests/shaders/padding.wgsl",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("@group(0) @binding(0) var<uniform> frame: Frame;"), "{stdout}");
    let used = "@compute @workgroup_size(1) fn main() { _ = frame; _ = object; }";
    freqbuf::reflect::ShaderReflection::new(
        "d.wgsl",
        freqbuf::reflect::ShaderSource::Wgsl(&format!("{stdout}{used}")),
    )
    .unwrap();
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

/// An effect file lists the naga_oil modules its source imports: the CLI
/// checks the scene example's effects, which import `scene::common`, and a
/// module file that does not exist is an error at its line and column.
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

/// A pass that takes its vertex stage from another file (Bevy's 2D
/// material and mesh file) is checked from the CLI: the text and the JSON
/// say which file each stage is from, and both files' bindings are merged.
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

/// `--plan` gives the slot plan, so Bevy's numbering (0 view, 1 mesh,
/// 2 material) can be checked; a malformed entry is refused by name.
#[test]
fn a_slot_plan_can_be_given() {
    let dir = std::env::temp_dir().join(format!("freqbuf-cli-plan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bevy.wgsl");
    std::fs::write(
        &file,
        "struct View { clip_from_world: mat4x4<f32> }\n@group(0) @binding(0) var<uniform> view: View;\nstruct Mesh { world_from_local: mat4x4<f32> }\n@group(1) @binding(0) var<uniform> mesh: Mesh;\nstruct Material { color: vec4<f32> }\n@group(2) @binding(0) var<uniform> material: Material;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return view.clip_from_world * mesh.world_from_local[3] * material.color.x; }\n",
    )
    .unwrap();
    let frequencies = |args: &[&str]| {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, 0, "{stderr}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        v["slots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["frequency"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let path = file.to_str().unwrap();
    assert_eq!(frequencies(&["reflect", "--json", path]), ["frame", "view", "material"]);
    let bevy = frequencies(&["reflect", "--json", "--plan", "0=view,1=object,2=material", path]);
    assert_eq!(bevy, ["view", "object", "material"]);
    let (code, _, stderr) = run(&["reflect", "--plan", "0=mesh", path]);
    assert_eq!(code, 2);
    assert!(stderr.contains("`mesh` is not a frequency"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pipelines_register_a_module_per_entry_point_set_and_json_lists_each_ones_bindings() {
    const SHADOW: &str = "crates/freqbuf/tests/shaders/wgpu/shadow.wgsl";
    // Whole, wgpu's shadow example puts two resources at one binding point.
    let (code, _, stderr) = run(&["reflect", SHADOW]);
    assert_eq!(code, 1);
    assert!(stderr.contains("are both at this binding point"), "{stderr}");
    let (code, stdout, stderr) =
        run(&["reflect", "--json", "--pipeline", "vs_bake", "--pipeline", "vs_main,fs_main", SHADOW]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let shaders = v["shaders"].as_array().unwrap();
    let names = shaders.iter().map(|s| s["name"].as_str().unwrap()).collect::<Vec<_>>();
    assert_eq!(names, [format!("{SHADOW}[vs_bake]"), format!("{SHADOW}[vs_main,fs_main]")]);
    let fs = &shaders[1]["entry_points"][1];
    assert_eq!(fs["name"], "fs_main");
    assert_eq!(fs["stage"], "fragment");
    let bound =
        fs["bindings"].as_array().unwrap().iter().map(|b| b["name"].as_str().unwrap()).collect::<Vec<_>>();
    assert_eq!(bound, ["u_globals", "s_lights", "t_shadow", "sampler_shadow", "u_entity"]);
    // A frame-frequency storage array is a buffer the frame owns, and says it is an array.
    let lights =
        shaders[1]["resources"].as_array().unwrap().iter().find(|r| r["name"] == "s_lights").unwrap();
    assert_eq!((lights["kind"].as_str(), lights["array"].as_bool()), (Some("storage"), Some(true)));
    assert!(!v["slots"].as_array().unwrap().iter().any(|s| s["group"] == 0 && s["binding"] == 1));
    let (code, _, stderr) = run(&["reflect", "--pipeline", "vs_main,fs_lit", SHADOW]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no entry point `fs_lit`"), "{stderr}");
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
    assert!(stdout.contains("8 permutations composed and merged (every combination)"), "{stdout}");
    assert!(stdout.contains("slot @group(0) @binding(0) view"), "{stdout}");
}

/// `[params]` and `[auto]` are checked against the permutations being
/// checked: one by default (a name only other permutations declare is left
/// to them), every one with --all-permutations.
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

/// `declare --rust` prints the Rust structs of the merged slots: the file
/// the core's typed-block test compiles is this output.
#[test]
fn declare_rust_prints_the_structs_the_core_compiles() {
    let shader = "crates/freqbuf/tests/shaders/typed.wgsl";
    let (code, stdout, stderr) = run(&["declare", "--rust", shader]);
    assert_eq!(code, 0, "{stderr}");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let generated =
        std::fs::read_to_string(format!("{root}/crates/freqbuf/tests/generated/typed_slots.rs")).unwrap();
    assert_eq!(stdout, generated);
}
