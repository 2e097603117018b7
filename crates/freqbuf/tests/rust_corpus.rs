//! `declare --rust` round-trips every layout: for a corpus of blocks with
//! arrays (stride padding), nested structs, every matrix shape, `@size` and
//! `@align`, padding members and keyword names, the generated file compiles
//! (it is included here), equals what the registry generates now, and every
//! field's offset, type and name is the reflected member's
//! (`param_struct` checks all three and lists every mismatch).

use freqbuf::reflect::{ShaderReflection, ShaderSource};
use freqbuf::{Registry, ShaderStruct, SlotPlan};

#[allow(unreachable_pub, dead_code, reason = "the generated code is written for a renderer's public module")]
mod generated {
    include!("generated/rust_corpus.rs");
}

const WGSL: &str = "crates/freqbuf/tests/rust_corpus/blocks.wgsl";
const GLSL: &str = "crates/freqbuf/tests/rust_corpus/keywords.comp";

fn registry() -> Registry {
    let mut r = Registry::new(SlotPlan::default());
    let wgsl = include_str!("rust_corpus/blocks.wgsl");
    r.add(ShaderReflection::new(WGSL, ShaderSource::Wgsl(wgsl)).unwrap()).unwrap();
    let glsl = include_str!("rust_corpus/keywords.comp");
    let stage = freqbuf::naga::ShaderStage::Compute;
    r.add(ShaderReflection::new(GLSL, ShaderSource::Glsl { source: glsl, stage }).unwrap()).unwrap();
    r
}

#[test]
fn the_generated_corpus_is_what_the_registry_generates() {
    let expected = include_str!("generated/rust_corpus.rs");
    assert_eq!(
        registry().rust_declarations(),
        expected,
        "regenerate with `freqbuf declare --rust {WGSL} {GLSL}`"
    );
}

/// Every field where reflection puts its member, in every struct.
#[test]
fn every_generated_field_is_at_its_reflected_offset() {
    use generated::*;
    let r = registry();
    fn check<T: ShaderStruct>(r: &Registry, block: &str, family: &str) -> Vec<(&'static str, u32)> {
        if let Err(e) = r.struct_param_in::<T>(family, block) {
            panic!("{block}: {e}");
        }
        T::MEMBERS.iter().map(|m| (m.name, m.offset)).collect()
    }
    assert_eq!(check::<ArrMid>(&r, "arr_mid", WGSL), [("before", 0), ("after", 48), ("tail", 56)]);
    assert_eq!(check::<NestMid>(&r, "nest_mid", WGSL), [("before", 0), ("after", 32)]);
    assert_eq!(check::<SizeAttr>(&r, "size_attr", WGSL), [("a", 0), ("b", 16), ("c", 32), ("d", 40)]);
    let mats = check::<Mats>(&r, "mats", WGSL);
    let want =
        [("m32", 0), ("after", 24), ("m23", 32), ("m33", 64), ("m43", 112), ("m42", 176), ("m34", 208)];
    assert_eq!(mats[..7], want);
    assert_eq!(check::<Padded>(&r, "padded", WGSL), [("x", 0), ("y", 16)]);
    assert_eq!(check::<Keywords>(&r, "keywords", WGSL), [("box", 0), ("gen", 4), ("dyn", 8), ("in", 12)]);
    let names = check::<RustKeywords>(&r, "rust_keywords", GLSL).into_iter().map(|m| m.0).collect::<Vec<_>>();
    assert_eq!(names, ["self", "crate", "Self", "super", "yield", "macro", "async", "type"]);
}
