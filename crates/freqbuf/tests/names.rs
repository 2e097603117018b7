//! Names are never ambiguous in silence: a member that two blocks of one
//! frequency declare must be qualified by its block, and both resolve.

use crate::common;

use common::gpu;
use common::scene::{Kind, Report, Rig, TestShader};
use freqbuf::error::ParamErrorKind;
use freqbuf::{Draw, Error, Manager, SlotPlan};

const TWO: TestShader = TestShader {
    tag: 21,
    wgsl: r#"
struct MatA { color: vec4<f32> }
struct MatB { color: vec4<f32>, rough: f32 }
@group(2) @binding(0) var<uniform> mat_a: MatA;
@group(2) @binding(2) var<uniform> mat_b: MatB;
@compute @workgroup_size(1) fn main() { begin(21u); put4(mat_a.color); put4(mat_b.color); putf(mat_b.rough); }
"#,
    reports: &[r("mat_a.color", Kind::Vec4), r("mat_b.color", Kind::Vec4), r("rough", Kind::F32)],
};

const fn r(name: &'static str, kind: Kind) -> Report {
    Report { name, kind }
}

#[test]
fn a_name_in_two_blocks_is_an_error_and_both_qualified_spellings_resolve() {
    let Some(h) = gpu::device() else {
        return;
    };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 1);
    let two = rig.register(&h.device, &mut m, &TWO);
    let e = m.param("color").unwrap_err();
    assert_eq!(
        e.kind,
        ParamErrorKind::Ambiguous {
            blocks: 2,
            spellings: ["mat_a.color", "MatA.color", "mat_b.color", "MatB.color"].map(String::from).to_vec()
        }
    );
    assert_eq!(
        common::chain(&e),
        "cannot use parameter `color`: 2 blocks declare it; write one of `mat_a.color`, `MatA.color`, `mat_b.color`, `MatB.color`"
    );
    let mat = m.create_material();
    let err = m.material(mat).set_by_name("color", &[1.0f32; 4]).unwrap_err();
    assert!(
        matches!(err, Error::Param(ref p) if matches!(p.kind, ParamErrorKind::Ambiguous { .. })),
        "{err}"
    );
    // Variable and type names both qualify; a bare name found once needs neither.
    let (a, b) = (m.param("MatA.color").unwrap(), m.param("mat_b.color").unwrap());
    assert_eq!(m.param("mat_a.color").unwrap(), a);
    assert_eq!(m.param("MatB.color").unwrap(), b);
    assert_ne!(a.slot(), b.slot());
    m.material(mat).set(a, &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    m.material(mat).set(b, &[5.0f32, 6.0, 7.0, 8.0]).unwrap();
    m.material(mat).set_by_name("rough", &0.5f32).unwrap();
    m.material(mat).set_by_name("MatB.rough", &0.25f32).unwrap();
    m.flush(&h.queue).unwrap();
    let rec = &rig.run(h, &mut m, &[Draw::new(two).material(mat)])[0];
    let floats = rec[1..].iter().map(|&w| f32::from_bits(w)).collect::<Vec<_>>();
    assert_eq!(floats, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 0.25]);
}

/// No module of any library or the CLI uses one that uses it back: data
/// flows one way (design.md), module by module, folders' files included. A
/// cycle is printed as the modules on it.
#[test]
fn no_module_uses_one_that_uses_it_back() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let found = ["freqbuf", "freqbuf-effects", "freqbuf-cli"]
        .map(|krate| (krate, crate::common::modules::cycle_edges(&root.join(krate).join("src"))));
    assert!(found.iter().all(|(_, edges)| edges.is_empty()), "{found:#?}");
}

/// The graph sees what the rule is about: a cycle through a `super::` path
/// and a grouped import inside one folder, and no edge from a comment.
#[test]
fn the_module_graph_finds_a_cycle_inside_a_folder() {
    let dir = std::env::temp_dir().join(format!("freqbuf-modules-{}", std::process::id()));
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "mod a;\nmod d;\n");
    write("a/mod.rs", "mod b;\nmod c;\n");
    write("a/b.rs", "use super::c::Thing;\n");
    write("a/c.rs", "use crate::{d::Other, a::{b::Item}};\n");
    write("d.rs", "// crate::a::c is only named in a comment\n");
    let found = crate::common::modules::cycles(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.into_iter().collect::<Vec<_>>(), [vec!["a::b".to_owned(), "a::c".to_owned()]]);
}

/// The effect library's parts that one stage of the work owns are reached
/// only from that stage's folder of `freqbuf-effects/src/effect/`, and from
/// `library.rs`, which joins them (`Effects::forget`): loading never drops
/// the permutations or pipelines it makes stale by hand. The catalog, the
/// composer and the statistics are shared.
#[test]
fn each_part_of_the_effect_library_is_reached_from_its_own_stage() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../freqbuf-effects/src/effect"));
    let owners = [
        ("permutations", "build"),
        ("workers", "build"),
        ("pipelines", "pipeline"),
        ("module_files", "source"),
        ("code_defs", "source"),
        ("wesl", "source"),
    ];
    let mut strays = Vec::new();
    for (module, path) in crate::common::modules::modules(dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        for (field, folder) in owners {
            if module == ["library"] || module.first().is_some_and(|m| m == folder) {
                continue;
            }
            let reached = code.match_indices(&format!("self.{field}")).any(|(i, m)| {
                !code[i + m.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            });
            if reached {
                strays.push(format!("{} reaches `{field}`, which {folder}/ owns", module.join("::")));
            }
        }
    }
    assert!(strays.is_empty(), "{strays:#?}");
}
