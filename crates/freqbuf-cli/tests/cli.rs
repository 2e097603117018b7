//! The `freqbuf reflect` command line, run as a user would.

use std::process::Command;

use serde_json::Value;

mod common;
use common::run;

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

/// An effect file lists the naga_oil modules its source imports: the CLI
/// checks the scene example's effects, which import `scene::common`, and a
/// module file that does not exist is an error at its line and column.
/// A pass that takes its vertex stage from another file (Bevy's 2D
/// material and mesh file) is checked from the CLI: the text and the JSON
/// say which file each stage is from, and both files' bindings are merged.
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
    // Whole, wgpu's shadow example puts two resources at one binding point:
    // each set of entry points that can share a pipeline is shown on its own.
    let (code, stdout, stderr) = run(&["reflect", SHADOW]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr.trim(),
        format!(
            "note: {SHADOW}: entry points `fs_main` and `fs_main_without_storage` cannot share a pipeline: @group(0) @binding(1) is `s_lights` (storage) in one and `u_lights` (uniform) in the other"
        )
    );
    let headings = stdout.lines().filter(|l| l.starts_with("==")).collect::<Vec<_>>();
    assert_eq!(
        headings,
        ["== entry points vs_bake, vs_main, fs_main ==", "== entry points fs_main_without_storage =="]
    );
    assert!(stdout.contains("slot @group(0) @binding(1) frame (960 bytes)"), "{stdout}");
    let (code, stdout, _) = run(&["reflect", "--json", SHADOW]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["pipelines"][1]["entry_points"], serde_json::json!(["fs_main_without_storage"]));
    // Registering it whole stays an error.
    let (code, _, stderr) = run(&["declare", SHADOW]);
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
    // The example's three pipelines in one registry, as one renderer holds
    // them: the uniform light array is a slot at (0, 1), beside the storage one.
    let pipelines = ["--pipeline", "vs_bake", "--pipeline", "vs_main,fs_main"];
    let without = ["--pipeline", "vs_main,fs_main_without_storage"];
    let (code, stdout, stderr) = run(&[&["reflect", "--json"][..], &pipelines, &without, &[SHADOW]].concat());
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["shaders"].as_array().unwrap().len(), 3);
    let at = |s: &Value| (s["group"].as_u64(), s["binding"].as_u64());
    let slots = v["slots"].as_array().unwrap().iter().map(at).collect::<Vec<_>>();
    assert_eq!(slots, [(Some(0), Some(0)), (Some(0), Some(1)), (Some(1), Some(0))]);
    let (code, _, stderr) = run(&["reflect", "--pipeline", "vs_main,fs_lit", SHADOW]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no entry point `fs_lit`"), "{stderr}");
}

/// `[params]` and `[auto]` are checked against the permutations being
/// checked: one by default (a name only other permutations declare is left
/// to them), every one with --all-permutations.
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

/// An acceleration structure is checked by default, and the shader says the
/// feature it needs, in the table and in the JSON.
#[test]
fn acceleration_structures_are_checked_and_name_the_feature_they_need() {
    let file = "crates/freqbuf/tests/shaders/ray_query.wgsl";
    let (code, stdout, stderr) = run(&["reflect", file]);
    assert_eq!(code, 0, "{stderr}");
    let shader = stdout.split_once("shader ").map(|(_, s)| s).unwrap_or_default();
    assert_eq!(
        shader,
        format!(
            "{file}\n  @group(0) @binding(0)  uniform          frame\n  @group(0) @binding(1)  acceleration_structure tlas\n  @group(0) @binding(2)  storage          seen\n  needs Features::EXPERIMENTAL_RAY_QUERY\n"
        )
    );
    let (code, stdout, stderr) = run(&["reflect", "--json", file]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["shaders"][0]["features"], serde_json::json!(["EXPERIMENTAL_RAY_QUERY"]));
    assert_eq!(v["shaders"][0]["resources"][1]["kind"], "acceleration_structure");
}
