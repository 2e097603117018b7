//! The command line means what its inputs say: `[defs]` that are `false`
//! are undefined for `#ifdef`, and a `--plan` that maps one group or point
//! twice is refused.

use serde_json::Value;

mod common;
use common::{Dir, run};

/// The material members a `freqbuf effect --json` prints.
fn material_members(file: &str) -> Vec<String> {
    let (code, stdout, stderr) = run(&["effect", "--json", file]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let material = v["slots"].as_array().unwrap().iter().find(|s| s["group"] == 2).unwrap();
    let members = material["members"].as_array().unwrap();
    members.iter().map(|m| m["name"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn effect_false_defs_are_undefined_for_ifdef_and_false_for_if() {
    let dir = Dir::new("defs");
    let wgsl = "struct M {
#ifdef OFF
    defined_off: f32,
#endif
#ifndef OFF
    undefined_off: f32,
#endif
#if OFF == false
    false_off: f32,
#endif
#ifdef ON
    defined_on: f32,
#endif
}
@group(2) @binding(0) var<uniform> m: M;
@compute @workgroup_size(1) fn main() { _ = m; }
";
    std::fs::write(dir.0.join("d.wgsl"), wgsl).unwrap();
    let toml = "name = \"d\"\nsource = \"d.wgsl\"\n[defs]\nOFF = false\nON = true\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";
    let file = dir.0.join("d.effect.toml");
    std::fs::write(&file, toml).unwrap();
    assert_eq!(material_members(file.to_str().unwrap()), ["undefined_off", "false_off", "defined_on"]);
}

#[test]
fn a_plan_that_maps_one_group_or_point_twice_is_refused() {
    let dir = Dir::new("plan-twice");
    let file = dir.0.join("s.wgsl");
    std::fs::write(
        &file,
        "@group(1) @binding(0) var<uniform> a: vec4<f32>;\n@compute @workgroup_size(1) fn main() { _ = a; }\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    for (plan, says) in [
        ("1=view,1=object", "group 1 is mapped twice: to view and to object"),
        ("1=view,1=view", "group 1 is mapped twice: to view and to view"),
        ("0=frame,1.2=view,1.2=material", "binding point 1.2 is mapped twice: to view and to material"),
    ] {
        let (code, _, stderr) = run(&["reflect", "--plan", plan, path]);
        assert_eq!(code, 2, "{plan}: {stderr}");
        assert!(stderr.contains(says), "{plan}: {stderr}");
    }
    // A point inside a group the plan maps is not a contradiction: it overrides the group.
    let (code, _, stderr) = run(&["reflect", "--plan", "1=view,1.0=object", path]);
    assert_eq!(code, 0, "{stderr}");
}

/// `GROUP.BINDING=buffer` makes a point the application's buffer: a
/// storage array of structs there is no array slot. A whole group cannot be
/// one, and a point marked twice is refused.
#[test]
fn a_plan_marks_application_buffers_by_point() {
    let dir = Dir::new("buffer_plan");
    let file = dir.0.join("items.wgsl");
    std::fs::write(
        &file,
        "struct Item { value: vec4<f32> }\n@group(1) @binding(1) var<storage, read> items: array<Item>;\n\
         @group(2) @binding(0) var<storage, read_write> out: array<vec4<f32>, 1>;\n\
         @compute @workgroup_size(1) fn main() { out[0] = items[3].value; }\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let slots = |plan: &str| {
        let (code, stdout, stderr) = run(&["reflect", "--json", "--plan", plan, file]);
        assert_eq!(code, 0, "{stderr}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        v["slots"].as_array().unwrap().len()
    };
    assert_eq!(slots("1=view,2=material"), 1, "an array slot per view");
    assert_eq!(slots("1=view,1.1=buffer,2=material"), 0, "the application's buffer");
    let (code, _, stderr) = run(&["reflect", "--plan", "1=buffer", file]);
    assert_eq!(code, 2);
    assert!(stderr.contains("`1=buffer`: a buffer is one binding point (GROUP.BINDING=buffer)"), "{stderr}");
    let (code, _, stderr) = run(&["reflect", "--plan", "1=view,1.1=buffer,1.1=buffer", file]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--plan: binding point 1.1 is mapped twice: to buffer and to buffer"),
        "{stderr}"
    );
}
