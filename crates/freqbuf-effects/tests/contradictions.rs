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
        "cannot load d.effect.toml:8:8: technique `t` is declared twice: first at 3:8, again here"
    );
    let toml = format!("source = \"d.wgsl\"\n{}", technique("t", &(pass("p") + &pass("q") + &pass("p"))));
    let e = fx.add("e.effect.toml", &toml, WGSL).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot load e.effect.toml:11:10: pass `t.p` is declared twice: first at 5:10, again here"
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

/// A temporary directory of files, removed on drop.
struct Dir(std::path::PathBuf);

impl Dir {
    fn with(name: &str, files: &[(&str, &str)]) -> Self {
        let dir = std::env::temp_dir().join(format!("freqbuf-{name}-{}", std::process::id()));
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Self(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const IMPORTER: &str = "#import lib::m\n@compute @workgroup_size(1) fn main() { _ = lib::m::f(); }\n";
const EFFECT: &str = "source = \"e.wgsl\"\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";

/// An error inside a module found in a module directory is the module's,
/// at its own line and column, not the importing effect's file.
#[test]
fn an_error_inside_a_module_names_the_module_file_and_position() {
    let module = "#define_import_path lib::m\n\n#import missing::thing\nfn f() -> f32 { return missing::thing::x(); }\n";
    let dir = Dir::with(
        "module-error",
        &[("lib/m.wgsl", module), ("fx/e.wgsl", IMPORTER), ("fx/e.effect.toml", EFFECT)],
    );
    let mut fx = Effects::new();
    fx.add_module_dir(dir.0.join("lib")).unwrap();
    let e = fx.load(dir.0.join("fx/e.effect.toml")).unwrap_err();
    let module_file = dir.0.join("lib/m.wgsl").display().to_string();
    assert_eq!(e.file, module_file, "{}", common::chain(&e));
    assert_eq!(e.location.map(|l| (l.line, l.column)), Some((4, 24)), "{}", common::chain(&e));
    assert!(common::chain(&e).contains("missing::thing"), "{}", common::chain(&e));
}

/// Modules that import each other are an import cycle, named as one.
#[test]
fn an_import_cycle_is_named_as_a_cycle() {
    let a = "#define_import_path lib::m\n#import lib::b\nfn f() -> f32 { return lib::b::g(); }\nfn h() -> f32 { return 1.0; }\n";
    let b = "#define_import_path lib::b\n#import lib::m\nfn g() -> f32 { return lib::m::h(); }\n";
    let dir = Dir::with(
        "module-cycle",
        &[("lib/m.wgsl", a), ("lib/b.wgsl", b), ("fx/e.wgsl", IMPORTER), ("fx/e.effect.toml", EFFECT)],
    );
    let mut fx = Effects::new();
    fx.add_module_dir(dir.0.join("lib")).unwrap();
    let e = fx.load(dir.0.join("fx/e.effect.toml")).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::ImportCycle { .. }), "{}", common::chain(&e));
    let (m, b) =
        (dir.0.join("lib/m.wgsl").display().to_string(), dir.0.join("lib/b.wgsl").display().to_string());
    assert_eq!(
        common::chain(&e),
        format!("cannot load {b}:2:9: `#import lib::m` closes an import cycle: {m} imports {b} imports {m}")
    );
}

const BASE: &str = "#define_import_path lib::base\nfn one() -> f32 { return 1.0; }\n";
const TOP: &str =
    "#define_import_path lib::m\n#import lib::base\nfn f() -> f32 { return lib::base::one(); }\n";

/// An effect file may list modules in any order: each is added after the
/// listed modules it imports (it failed with "required import not found"
/// when a module came before the one it imports).
#[test]
fn listed_modules_load_in_any_order() {
    let effect = format!("modules = [\"lib/top.wgsl\", \"lib/base.wgsl\"]\n{EFFECT}");
    let dir = Dir::with(
        "module-order",
        &[
            ("fx/lib/top.wgsl", TOP),
            ("fx/lib/base.wgsl", BASE),
            ("fx/e.wgsl", IMPORTER),
            ("fx/e.effect.toml", &effect),
        ],
    );
    let mut fx = Effects::new();
    let id = fx.load(dir.0.join("fx/e.effect.toml")).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    let report = fx.check(&freqbuf::Registry::new(freqbuf::SlotPlan::default()), id, None);
    assert_eq!(report.map(|r| r.permutations).ok(), Some(1));
    assert_eq!(fx.stats().module_files, 2);
}

/// A module directory may hold two files with one import path (Bevy's real
/// module and its dummy): only a permutation that reaches an import of that
/// path is an error, naming both files at the import; an effect file that
/// lists one of them settles which.
#[test]
fn alternates_in_a_module_directory_are_an_error_only_when_imported() {
    let dummy = "#define_import_path lib::base\nfn one() -> f32 { return 2.0; }\n";
    let unrelated = "#define_import_path lib::m\nfn f() -> f32 { return 3.0; }\n";
    let dir = Dir::with(
        "module-alternates",
        &[
            ("lib/base.wgsl", BASE),
            ("lib/dummy/base.wgsl", dummy),
            ("lib/m.wgsl", unrelated),
            ("fx/e.wgsl", IMPORTER),
            ("fx/e.effect.toml", EFFECT),
            (
                "fx/pick.effect.toml",
                &format!("modules = [\"../lib/dummy/base.wgsl\"]\n{}", EFFECT.replace("e.wgsl", "p.wgsl")),
            ),
            (
                "fx/p.wgsl",
                "#import lib::base\n@compute @workgroup_size(1) fn main() { _ = lib::base::one(); }\n",
            ),
        ],
    );
    let registry = freqbuf::Registry::new(freqbuf::SlotPlan::default());
    let mut fx = Effects::new();
    fx.add_module_dir(dir.0.join("lib")).unwrap();
    let e = fx.load(dir.0.join("fx/e.effect.toml")).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    fx.check(&registry, e, None).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    // Imported only under a flag that is off: the permutations without it compose.
    let guarded = "#ifdef MESHLET\n#import lib::base\n#endif\n@compute @workgroup_size(1) fn main() {\n#ifdef MESHLET\n    _ = lib::base::one();\n#endif\n}\n";
    let toml = format!("flags = [\"MESHLET\"]\n{}", EFFECT.replace("e.wgsl", "g.wgsl"));
    let g = fx.add("g.effect.toml", &toml, guarded).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    let off = fx.flags(g, &[]).unwrap();
    fx.check(&registry, g, Some(off)).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    let e = fx.check(&registry, g, None).unwrap_err();
    let (a, b) = (
        dir.0.join("lib/base.wgsl").display().to_string(),
        dir.0.join("lib/dummy/base.wgsl").display().to_string(),
    );
    assert!(matches!(*e.kind, EffectErrorKind::DuplicateImportPath { .. }), "{}", common::chain(&e));
    assert!(
        common::chain(&e)
            .ends_with(&format!("two files declare `#define_import_path lib::base`: {a} and {b}; list the one to use in the effect file's `modules`")),
        "{}",
        common::chain(&e)
    );
    // Listing one of them settles it, for this effect and every later one.
    let mut fx = Effects::new();
    fx.add_module_dir(dir.0.join("lib")).unwrap();
    let p = fx.load(dir.0.join("fx/pick.effect.toml")).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    fx.check(&registry, p, None).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    let g = fx.add("g.effect.toml", &toml, guarded).unwrap();
    fx.check(&registry, g, None).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
}

/// Two listed files with one import path contradict each other: both would be added.
#[test]
fn two_listed_files_with_one_import_path_are_an_error() {
    let dummy = "#define_import_path lib::base\nfn one() -> f32 { return 2.0; }\n";
    let effect = format!("modules = [\"lib/*.wgsl\"]\n{EFFECT}");
    let dir = Dir::with(
        "module-listed-twice",
        &[
            ("fx/lib/a.wgsl", BASE),
            ("fx/lib/b.wgsl", dummy),
            ("fx/e.wgsl", IMPORTER),
            ("fx/e.effect.toml", &effect),
        ],
    );
    let mut fx = Effects::new();
    let e = fx.load(dir.0.join("fx/e.effect.toml")).unwrap_err();
    assert!(matches!(*e.kind, EffectErrorKind::DuplicateImportPath { .. }), "{}", common::chain(&e));
    assert_eq!(e.location.map(|l| (l.line, l.column)), Some((1, 12)));
    assert_eq!(fx.stats().module_files, 0, "a failed load adds no module");
}

/// `only_pass` names the pass of a one-pass technique and refuses others.
#[test]
fn only_pass_takes_the_one_pass_and_refuses_a_technique_of_several() {
    let mut fx = Effects::new();
    let pass = |name: &str| format!("  [[technique.pass]]\n  name = \"{name}\"\n  compute = \"main\"\n");
    let toml = format!(
        "source = \"o.wgsl\"\n[[technique]]\nname = \"one\"\n{}[[technique]]\nname = \"two\"\n{}{}",
        pass("p"),
        pass("a"),
        pass("b")
    );
    let id = fx.add("o.effect.toml", &toml, WGSL).unwrap();
    assert_eq!(fx.pass(fx.only_pass(id, "one").unwrap()).name, "one.p");
    let e = fx.only_pass(id, "two").unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use o: technique `two` of effect `o` has 2 passes; loop over Effects::technique"
    );
}

/// A name the effect's own source tests is one of its flags or defs: a
/// misspelt flag (`TINTD` for `TINTED`) or one never declared is refused at
/// load, at its place, with the closest names; `#define`d names and defs
/// count, and a library module may test names the effect does not set.
#[test]
fn a_tested_name_that_is_no_flag_or_def_is_refused_at_load() {
    let toml = |flags: &str, defs: &str| {
        format!(
            "source = \"t.wgsl\"\nflags = [{flags}]\n{defs}[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n"
        )
    };
    let wgsl = "@compute @workgroup_size(1) fn main() {\n    var x = 0u;\n#ifdef TINTED\n    x = 1u;\n#endif\n    _ = x;\n}\n";
    let mut fx = Effects::new();
    let e = fx.add("t.effect.toml", &toml("\"TINTD\"", ""), wgsl).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot load t.wgsl:3:8: `TINTED` is tested here, and is neither a flag nor a def of the effect; did you mean `TINTD`?"
    );
    let e = fx.add("t.effect.toml", &toml("", ""), wgsl).unwrap_err();
    assert!(common::chain(&e).ends_with("is neither a flag nor a def of the effect"), "{e}");
    fx.add("t.effect.toml", &toml("\"TINTED\"", ""), wgsl).unwrap();
    fx.add("t.effect.toml", &toml("", "[defs]\nTINTED = true\n"), wgsl).unwrap();
    fx.add("t.effect.toml", &toml("", ""), &format!("#define TINTED\n{wgsl}")).unwrap();
    // `#if` expressions: every name in them, values and `true`/`false` aside.
    let valued = "@compute @workgroup_size(1) fn main() {\n#if LIGHTS == 4 && SHADOWS == true\n    _ = 1u;\n#endif\n}\n";
    let e = fx.add("v.effect.toml", &toml("", "[defs]\nLIGHTS = 4\n"), valued).unwrap_err();
    assert!(common::chain(&e).starts_with("cannot load t.wgsl:2:20: `SHADOWS` is tested here"), "{e}");
    // A library module tests what it likes: only the effect's texts are held to it.
    fx.add_module("lib.wgsl", "#define_import_path lib\n#ifdef ANYTHING\nfn f() {}\n#endif\nfn g() {}\n")
        .unwrap();
    let importing = format!("#import lib\n{}", wgsl.replace("TINTED", "TINT"));
    fx.add("i.effect.toml", &toml("\"TINT\"", ""), &importing).unwrap();
}

/// WESL's `@if` names are held to the same rule: `@if(GLOWW)` with the flag
/// `GLOW` is refused at its place.
#[cfg(feature = "wesl")]
#[test]
fn a_misspelt_wesl_if_is_refused_at_load() {
    let toml = "source = \"g.wesl\"\nflags = [\"GLOW\"]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"p\"\n  compute = \"main\"\n";
    let wesl =
        "@compute @workgroup_size(1) fn main() {\n    var x = 0u;\n    @if(GLOWW) x = 1u;\n    _ = x;\n}\n";
    let e = Effects::new().add("g.effect.toml", toml, wesl).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot load g.wesl:3:9: `GLOWW` is tested here, and is neither a flag nor a def of the effect; did you mean `GLOW`?"
    );
    Effects::new().add("g.effect.toml", toml, &wesl.replace("GLOWW", "GLOW")).unwrap();
}

/// A `modules` glob over a folder that also holds entry shaders (Bevy's
/// crates) skips them: they name no `#define_import_path`. Named without a
/// glob, such a file is still refused.
#[test]
fn a_modules_glob_skips_entry_shaders_beside_the_modules() {
    let entry = "@compute @workgroup_size(1) fn other() {}\n";
    let dir = Dir::with(
        "module-glob-entry",
        &[
            ("fx/lib/base.wgsl", BASE),
            ("fx/lib/top.wgsl", TOP),
            ("fx/lib/entry.wgsl", entry),
            ("fx/e.wgsl", IMPORTER),
            ("fx/e.effect.toml", &format!("modules = [\"lib/*.wgsl\"]\n{EFFECT}")),
            ("fx/named.effect.toml", &format!("modules = [\"lib/base.wgsl\", \"lib/entry.wgsl\"]\n{EFFECT}")),
        ],
    );
    let mut fx = Effects::new();
    let id = fx.load(dir.0.join("fx/e.effect.toml")).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    fx.check(&freqbuf::Registry::new(freqbuf::SlotPlan::default()), id, None).unwrap();
    assert_eq!(fx.stats().module_files, 2, "base and top, not the entry shader");
    let e = Effects::new().load(dir.0.join("fx/named.effect.toml")).unwrap_err();
    assert!(common::chain(&e).contains("no #define_import_path"), "{}", common::chain(&e));
}
