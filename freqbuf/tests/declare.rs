//! Generated declarations (`Registry::declarations`) reflect back to
//! exactly the merged layouts they were generated from.

mod common;

use freqbuf::{Registry, SlotPlan};

/// Generated declarations reflect back to exactly the merged layouts, for
/// every shader of the corpus in `tests/shaders/` and for them all merged.
#[test]
fn declarations_round_trip_on_the_shader_corpus() {
    let dir = format!("{}/tests/shaders", env!("CARGO_MANIFEST_DIR"));
    let mut files = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect::<Vec<_>>();
    files.sort();
    let mut all = Registry::new(SlotPlan::default());
    let mut checked = 0;
    for file in &files {
        // `.glsl` does not say its stage; tint.glsl is a fragment shader.
        let stage =
            file.extension().is_some_and(|e| e == "glsl").then_some(freqbuf::naga::ShaderStage::Fragment);
        let shader = freqbuf::reflect::ShaderReflection::from_path(file, stage).unwrap();
        let mut one = Registry::new(SlotPlan::default());
        one.add(shader.clone()).unwrap();
        if file.ends_with("frame.vert") {
            // std140 `float weights[N]` has stride 16: WGSL has no spelling for it.
            let e = one.declarations().unwrap_err();
            assert_eq!(
                common::chain(&e),
                "slot @group(1) @binding(2): `weights` is an array of f32 with stride 16, which WGSL cannot declare (its stride would be 4)"
            );
            continue;
        }
        round_trip(&one, &file.display().to_string());
        let _ = all.add(shader);
        checked += 1;
    }
    round_trip(&all, "the merged corpus");
    assert!(checked >= 10, "{checked} files");
}

fn round_trip(registry: &Registry, what: &str) {
    let text = registry.declarations().unwrap();
    let uses = registry
        .slots()
        .map(|(_, s)| {
            let var = text
                .lines()
                .find(|l| {
                    l.contains(&format!("@group({}) @binding({})", s.binding().group, s.binding().binding))
                })
                .unwrap();
            let name = var.split("> ").nth(1).unwrap().split(':').next().unwrap();
            format!("    _ = &{name};\n")
        })
        .collect::<String>();
    let source = format!("{text}@compute @workgroup_size(1) fn main() {{\n{uses}}}\n");
    let back = freqbuf::reflect::ShaderReflection::new(
        "declared.wgsl",
        freqbuf::reflect::ShaderSource::Wgsl(&source),
    )
    .unwrap_or_else(|e| panic!("{what}: {e}\n{source}"));
    let mut again = Registry::new(SlotPlan::default());
    again.add(back).unwrap_or_else(|e| panic!("{what}: {e}"));
    let layouts = |r: &Registry| {
        let mut v = r
            .slots()
            .map(|(_, s)| {
                (
                    s.binding(),
                    s.frequency(),
                    s.size(),
                    s.is_array(),
                    s.members().iter().map(|m| m.member.clone()).collect::<Vec<_>>(),
                )
            })
            .collect::<Vec<_>>();
        v.sort_by_key(|s| s.0);
        v
    };
    assert_eq!(layouts(&again), layouts(registry), "{what}:\n{source}");
    // The composable module names itself for `#import`.
    let module = registry.declarations_module("freqbuf::slots").unwrap();
    assert!(module.starts_with("#define_import_path freqbuf::slots\n"));
}

/// An array slot is declared as the storage array it is, and two slots whose
/// structs share a name but not a layout each get a struct of their own.
#[test]
fn array_slots_and_structs_that_share_a_name_round_trip() {
    let shaders = [
        (
            "a.wgsl",
            "struct Data { color: vec4<f32> }\n@group(1) @binding(0) var<uniform> view_data: Data;\n@fragment fn fs() -> @location(0) vec4<f32> { return view_data.color; }",
        ),
        (
            "b.wgsl",
            "struct Data { scale: f32, offset: vec2<f32> }\n@group(2) @binding(0) var<uniform> material_data: Data;\n@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(material_data.offset, material_data.scale, 1.0); }",
        ),
        (
            "c.wgsl",
            "struct Object { world: mat4x4<f32>, tint: vec4<f32> }\n@group(3) @binding(0) var<storage, read> objects: array<Object>;\n@vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> { return objects[i].world[3] * objects[i].tint; }",
        ),
    ];
    let mut registry = Registry::new(SlotPlan::default());
    for (name, source) in shaders {
        let shader =
            freqbuf::reflect::ShaderReflection::new(name, freqbuf::reflect::ShaderSource::Wgsl(source))
                .unwrap();
        registry.add(shader).unwrap();
    }
    let text = registry.declarations().unwrap();
    assert!(text.contains("var<storage, read> objects: array<Object>;"), "{text}");
    assert!(text.contains("struct Data {") && text.contains("struct Data_2 {"), "{text}");
    round_trip(&registry, "array slot and two `Data` structs");
}
