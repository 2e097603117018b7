//! The command line on a WESL library of three packages (tests/wesl):
//! `engine` (view and mesh), `tonemap` (imported only under TONEMAP) and
//! `materials` (the effect's own, with the material block at
//! `constants::MATERIAL_GROUP` and a vertex stage in a file of its own).
//! GLOSSY and METALLIC put different members at one offset: the whole
//! check must refuse them, naming both flag sets.

use serde_json::{Value, json};

mod common;
use common::run;

const DIR: &str = "crates/freqbuf-cli/tests/wesl";
const EFFECT: &str = "crates/freqbuf-cli/tests/wesl/lit.effect.toml";
const LIT: &str = "crates/freqbuf-cli/tests/wesl/materials/lit.wesl";
const BEVY_PLAN: &str = "0=view,1=object,2=material";

fn members(slot: &Value) -> Vec<&str> {
    slot["members"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect()
}

#[test]
fn the_whole_check_refuses_two_permutations_that_disagree_and_names_both() {
    let (code, stdout, stderr) = run(&["effect", "--all-permutations", "--plan", BEVY_PLAN, EFFECT]);
    assert_eq!(code, 1, "{stdout}");
    let common = format!("{DIR}/materials/common.wesl:16:60");
    let expected = format!(
        "error: cannot merge the permutations of {LIT}: the permutation with [METALLIC] (passes main.color) does not fit the others: cannot lay out @group(2) @binding(0): in family `lit`, whose \
         shaders share one layout here: members overlap: `gloss` in lit[GLOSSY] {common} is f32 at offset 16 \
         (size 4); but `metal` in lit[METALLIC] {common} is f32 at offset 16 (size 4)\n"
    );
    assert_eq!(stderr, expected);
}

/// One permutation: the view and mesh from `engine` (in the split vertex
/// stage), the material at the group the constants package gives, the
/// tonemap package read only because TONEMAP is on; every name as written.
#[test]
fn one_permutation_merges_three_packages_and_the_split_vertex_stage() {
    let (code, stdout, stderr) =
        run(&["effect", "--json", "--plan", BEVY_PLAN, "--flags", "TONEMAP,FILMIC,GLOSSY", EFFECT]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["flags"], serde_json::json!(["TONEMAP", "FILMIC", "GLOSSY", "METALLIC"]));
    assert_eq!(v["techniques"][0]["passes"][0]["files"]["vertex"], "materials/vertex.wesl");
    let slots = v["slots"].as_array().unwrap();
    let at = |g: u64| slots.iter().find(|s| s["group"] == g).unwrap();
    assert_eq!(
        (at(0)["frequency"].as_str(), members(at(0))),
        (Some("view"), vec!["clip_from_world", "exposure"])
    );
    assert_eq!(
        (at(1)["frequency"].as_str(), members(at(1))),
        (Some("object"), vec!["world_from_local", "tint"])
    );
    assert_eq!((at(2)["frequency"].as_str(), members(at(2))), (Some("material"), vec!["color", "gloss"]));
    // Each file's permutation composes on its own: the text names the stage's file.
    let (code, stdout, stderr) = run(&["effect", "--plan", BEVY_PLAN, "--flags", "METALLIC", EFFECT]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("pass main.color: vertex materials/vertex.wesl:vertex fragment fragment"),
        "{stdout}"
    );
    assert!(stdout.contains("used by lit[…] pass main.color (its one permutation)"), "{stdout}");
}

/// `reflect` and `declare` read `.wesl` files with `--package` (or the glob
/// form), `--def` (a constant, and an `@if` name) and `--flags`.
#[test]
fn reflect_and_declare_take_wesl_with_packages_defs_and_flags() {
    let glob = format!("{DIR}/*");
    let args =
        ["reflect", "--json", "--packages", &glob, "--def", "MATERIAL_GROUP=3", "--flags", "METALLIC", LIT];
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let slot = &v["slots"][0];
    assert_eq!(
        (slot["group"].as_u64(), members(slot)),
        (Some(3), vec!["color", "metal"]),
        "MATERIAL_GROUP=3"
    );
    assert_eq!(v["shaders"][0]["name"].as_str(), Some(format!("{LIT}[METALLIC]").as_str()));
    assert_eq!(v["shaders"][0]["resources"][0]["name"], "material", "not the mangled name");

    let engine = format!("engine={DIR}/engine");
    let vertex = format!("{DIR}/materials/vertex.wesl");
    let args =
        ["declare", "--package", &engine, "--def", "MATERIAL_GROUP=2", "--flags", "GLOSSY", LIT, &vertex];
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    for line in [
        "@group(0) @binding(0) var<uniform> view: View;",
        "@group(1) @binding(0) var<uniform> mesh: Mesh;",
        "@group(2) @binding(0) var<uniform> material: Material;",
        "    @size(4) gloss: f32,",
    ] {
        assert!(stdout.contains(line), "{line} in\n{stdout}");
    }
}

/// Errors name the `.wesl` file and position, the permutation and who refused.
#[test]
fn wesl_errors_exit_1_at_their_file_and_position() {
    // No `--def`: the constants package lacks the group, where common.wesl reads it.
    let (code, _, stderr) = run(&["reflect", LIT]);
    assert_eq!(code, 1);
    let expected = format!(
        "error: cannot compose {DIR}/materials/common.wesl:16:8: with [no flags], the WESL compiler refused it: module `constants` \
         has no declaration `MATERIAL_GROUP`\n"
    );
    assert_eq!(stderr, expected);
    // TONEMAP imports a package that was not given: refused at the import.
    let (code, _, stderr) = run(&["reflect", "--def", "MATERIAL_GROUP=2", "--flags", "TONEMAP", LIT]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with(&format!("error: cannot compose {LIT}:5:8: with [TONEMAP], the WESL compiler refused it: module not found: `tonemap::aces` (no package `tonemap` is given")), "{stderr}");
    // A package name that is not one, and a folder that does not exist.
    let (code, _, stderr) = run(&["reflect", "--package", "super=.", LIT]);
    assert_eq!(code, 1);
    assert!(stderr.contains("`super` cannot name a WESL package"), "{stderr}");
    let (code, _, stderr) = run(&["reflect", "--packages", "no/such/*/src", LIT]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no/such/*/src: no folder matches"), "{stderr}");
    let (code, _, stderr) = run(&["reflect", "--def", "MATERIAL_GROUP", LIT]);
    assert_eq!(code, 2, "clap refuses a def without a value: {stderr}");
}

/// @if names are flags like #ifdef ones: the effect's constraints decide
/// which combinations exist, `--flags` outside them is refused naming the
/// rule, and they hide no conflict between combinations that do exist.
#[test]
fn constraints_apply_to_wesl_flags() {
    let exclusive = format!("{DIR}/exclusive.effect.toml");
    for (flags, rule) in [
        ("FILMIC", "`implies.FILMIC = [\"TONEMAP\"]`: `FILMIC` needs them on"),
        ("GLOSSY,METALLIC", "`at_most_one = [\"GLOSSY\", \"METALLIC\"]` allows at most one of them on"),
    ] {
        let (code, _, stderr) = run(&["effect", "--plan", BEVY_PLAN, "--flags", flags, &exclusive]);
        assert_eq!(code, 1);
        assert!(stderr.contains(rule), "{stderr}");
    }
    let (code, _, stderr) =
        run(&["effect", "--plan", BEVY_PLAN, "--flags", "TONEMAP,FILMIC,GLOSSY", &exclusive]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = run(&["effect", "--all-permutations", "--plan", BEVY_PLAN, &exclusive]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("`gloss` in exclusive[GLOSSY]") && stderr.contains("`metal` in exclusive[METALLIC]"),
        "{stderr}"
    );
}

/// Bevy 0.20.1's own files (`corpus/bevy-0.20.1`), with the defs its Rust code sets.
const BEVY_20: &str = "corpus/bevy-0.20.1/*";
const PBR_DEFS: &str = "MATERIAL_BIND_GROUP=3,MAX_DIRECTIONAL_LIGHTS=10,MAX_CASCADES_PER_LIGHT=4,MAX_RECT_LIGHTS=8,AVAILABLE_STORAGE_BUFFER_BINDINGS=8";
const PBR_PLAN: &str = "0=view,1=view,2=object,3=material";
const SPRITE_DEFS: &str = "MATERIAL_BIND_GROUP=2,AVAILABLE_STORAGE_BUFFER_BINDINGS=8";

/// Bevy's four bindless material shaders load with `BINDLESS` on: each
/// material slot is a slab found through the mesh's member (masked for the
/// 3D ones, whose high half is the lightmap slot) and the material data
/// through the index table's `material`; the binding arrays are tables.
#[test]
fn bevys_bindless_shaders_load_with_slabs_and_tables() {
    let cases = [
        (
            "bevy_pbr/render/pbr.wesl",
            PBR_PLAN,
            PBR_DEFS,
            "VERTEX_UVS,VERTEX_UVS_A,VERTEX_NORMALS,VERTEX_TANGENTS,VERTEX_OUTPUT_INSTANCE_INDEX,PBR_SPECULAR_TEXTURES_SUPPORTED",
            3,
            Some(0xffff),
        ),
        ("bevy_pbr/render/pbr.wesl", PBR_PLAN, PBR_DEFS, "VERTEX_OUTPUT_INSTANCE_INDEX", 3, Some(0xffff)),
        (
            "bevy_pbr/render/pbr_prepass.wesl",
            PBR_PLAN,
            PBR_DEFS,
            "VERTEX_UVS,VERTEX_UVS_A,VERTEX_NORMALS,VERTEX_POSITIONS,VERTEX_OUTPUT_INSTANCE_INDEX,PREPASS_FRAGMENT,NORMAL_PREPASS,NORMAL_PREPASS_OR_DEFERRED_PREPASS,MAY_DISCARD",
            3,
            Some(0xffff),
        ),
        (
            "bevy_sprite_render/mesh2d/color_material.wesl",
            BEVY_PLAN,
            SPRITE_DEFS,
            "VERTEX_UVS,VERTEX_OUTPUT_INSTANCE_INDEX",
            2,
            None,
        ),
        (
            "bevy_sprite_render/sprite_mesh/sprite_material.wesl",
            BEVY_PLAN,
            SPRITE_DEFS,
            "VERTEX_UVS,VERTEX_POSITIONS,VERTEX_OUTPUT_INSTANCE_INDEX",
            2,
            None,
        ),
    ];
    for (file, plan, defs, flags, group, mask) in cases {
        let file = format!("corpus/bevy-0.20.1/{file}");
        let flags = format!("BINDLESS,{flags}");
        let args = [
            "reflect",
            "--json",
            "--plan",
            plan,
            "--packages",
            BEVY_20,
            "--def",
            defs,
            "--flags",
            &flags,
            &file,
        ];
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 0, "{file} [{flags}]: {stderr}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        let slots = v["slots"].as_array().unwrap();
        let slab = |binding: u64| {
            let s = slots.iter().find(|s| s["group"] == group && s["binding"] == binding).unwrap();
            (s["slab"]["from_group"].as_u64(), s["slab"]["member"].as_str(), s["slab"]["mask"].as_u64())
        };
        let (from, member, got) = slab(0);
        assert_eq!(from, Some(group as u64 - 1), "{file}: the index table, through the mesh");
        assert!(member.unwrap().starts_with("material"), "{file}: {member:?}");
        assert_eq!(got, Some(mask.unwrap_or(u32::MAX) as u64), "{file}");
        assert_eq!(
            slab(10),
            (Some(group as u64), Some("material"), Some(u32::MAX as u64)),
            "{file}: the data"
        );
    }
    // The table marks and the slab line, as the text prints them.
    let file = "corpus/bevy-0.20.1/bevy_sprite_render/mesh2d/color_material.wesl";
    let args = [
        "reflect",
        "--plan",
        BEVY_PLAN,
        "--packages",
        BEVY_20,
        "--def",
        SPRITE_DEFS,
        "--flags",
        "BINDLESS,VERTEX_UVS,VERTEX_OUTPUT_INSTANCE_INDEX",
        file,
    ];
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    for line in [
        "  slab: each instance's element, found through `material_bind_group_slot` of the array at @group(1) @binding(0)",
        "  slab: each instance's element, found through `material` of the array at @group(2) @binding(0)",
        "  @group(2) @binding(1)  sampler          bindless_samplers_filtering[]  (table a slab indexes)",
        "  @group(2) @binding(5)  texture          bindless_textures_2d[]  (table a slab indexes)",
    ] {
        assert!(stdout.lines().any(|l| l == line), "{line}\n{stdout}");
    }
}

/// Bevy's two 2D bindless materials, every combination of every flag their
/// files test: `BINDLESS` is the device's, so each setting is its own
/// layout set (in one layout set, the uniform block and the slab at
/// @group(2) @binding(0) would conflict).
#[test]
fn bevys_2d_bindless_materials_compose_in_every_combination() {
    for (file, count) in [("color_material", 512), ("sprite_material", 256)] {
        let path = format!("corpus/effects/bevy-0.20.1/bevy_sprite_render/{file}.effect.toml");
        let (code, stdout, stderr) = run(&["effect", "--all-permutations", "--plan", BEVY_PLAN, &path]);
        assert_eq!(code, 0, "{file}: {stderr}");
        let line = format!("{count} permutations composed and merged (every combination)");
        assert!(stdout.lines().any(|l| l == line), "{file}: {stdout}");
    }
}

/// `--each` checks a folder's effects one by one: a line per effect, the
/// refused ones with why, a summary, exit 1 when any is refused; `--json`
/// has the same in fields.
#[test]
fn each_effect_of_a_folder_gets_a_line_and_the_run_a_summary() {
    let (code, stdout, stderr) = run(&["effect", "--each", "--plan", BEVY_PLAN, DIR]);
    assert_eq!(code, 0, "{stderr}");
    let lines = stdout.lines().collect::<Vec<_>>();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0].starts_with(&format!(
        "loads    {DIR}/exclusive.effect.toml  1 permutation (not every combination), "
    )));
    assert!(lines[1].starts_with(&format!(
        "loads    {DIR}/lit.effect.toml        1 permutation (not every combination), "
    )));
    assert!(lines[2].starts_with("2 effects: 2 load, 0 refused; 2 permutations checked in "), "{stdout}");
    // Every permutation: both refused (GLOSSY and METALLIC overlap), each naming the combination.
    let (code, stdout, _) = run(&["effect", "--each", "--all-permutations", "--plan", BEVY_PLAN, DIR]);
    assert_eq!(code, 1);
    let lit = stdout.lines().nth(1).unwrap();
    assert!(
        lit.starts_with(&format!(
            "refused  {DIR}/lit.effect.toml        cannot merge the permutations of {DIR}/materials/lit.wesl: the permutation with [METALLIC] (passes main.color) does not fit the others: "
        )),
        "{lit}"
    );
    assert!(stdout.ends_with(&format!(
        "2 effects: 0 load, 2 refused; 0 permutations checked in {}",
        stdout.rsplit(" in ").next().unwrap()
    )));
    let (code, stdout, _) =
        run(&["effect", "--each", "--json", "--plan", BEVY_PLAN, &format!("{DIR}/lit.effect.toml")]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let e = &v["effects"][0];
    assert_eq!(
        (&e["file"], &e["loads"], &e["permutations"], &e["exhaustive"], &e["error"]),
        (&json!(format!("{DIR}/lit.effect.toml")), &json!(true), &json!(1), &json!(false), &json!(null))
    );
    assert_eq!((&v["loaded"], &v["refused"]), (&json!(1), &json!(0)));
}
