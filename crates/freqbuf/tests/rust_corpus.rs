//! `declare --rust` round-trips every layout: for a corpus of blocks with
//! arrays (stride padding), nested structs, every matrix shape, `@size` and
//! `@align`, padding members and keyword names, the generated file compiles
//! (it is included here), equals what the registry generates now, and every
//! field's offset, type and name is the reflected member's
//! (`param_struct` checks all three and lists every mismatch).

use crate::common;
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
    assert_eq!(
        check::<ArrMid>(&r, "arr_mid", WGSL),
        [("before", 0), ("arr", 16), ("after", 48), ("tail", 56)]
    );
    assert_eq!(check::<NestMid>(&r, "nest_mid", WGSL), [("before", 0), ("inner", 16), ("after", 32)]);
    assert_eq!(check::<SizeAttr>(&r, "size_attr", WGSL), [("a", 0), ("b", 16), ("c", 32), ("d", 40)]);
    let mats = check::<Mats>(&r, "mats", WGSL);
    let want =
        [("m32", 0), ("after", 24), ("m23", 32), ("m33", 64), ("m43", 112), ("m42", 176), ("m34", 208)];
    assert_eq!(mats[..7], want);
    assert_eq!(check::<Padded>(&r, "padded", WGSL), [("x", 0), ("y", 16)]);
    assert_eq!(check::<Keywords>(&r, "keywords", WGSL), [("box", 0), ("gen", 4), ("dyn", 8), ("in", 12)]);
    let names = check::<RustKeywords>(&r, "rust_keywords", GLSL).into_iter().map(|m| m.0).collect::<Vec<_>>();
    assert_eq!(names, ["self", "crate", "Self", "super", "yield", "macro", "async", "type"]);
    // `grid`, an array of arrays, has no field; what follows keeps its offset.
    let arrays =
        [("lights", 0), ("weights", 96), ("many", 128), ("frames", 832), ("deep", 960), ("end", 1056)];
    assert_eq!(check::<Arrays>(&r, "arrays", WGSL), arrays);
    assert_eq!(
        check::<Std140>(&r, "std140_", GLSL),
        [("weights", 0), ("offsets", 64), ("taps", 112), ("last", 144)]
    );
}

/// Nested structs and arrays are checked inside, not only where they start:
/// a stride or an inner field that differs is named by its path.
#[test]
fn a_nested_field_or_stride_that_differs_is_named_by_its_path() {
    #[derive(freqbuf::ShaderStruct)]
    #[allow(dead_code)]
    struct Light {
        position: [f32; 3],
        color: [f32; 4], // at 16 in Rust, where WGSL has `range` at 12 and `color` at 16: matches
        #[shader(offset = 32)]
        range: f32, // at 32, where WGSL has it at 12
    }
    #[derive(freqbuf::ShaderStruct)]
    #[allow(dead_code)]
    struct Arrays {
        lights: [Light; 2], // 2 of stride 48 in Rust, 3 of 32 in the block
        #[shader(offset = 96, array, stride = 16)]
        weights: [[f32; 4]; 2], // matches
        #[shader(offset = 128, array)]
        many: [[u32; 4]; 4], // 4 where the block has 40
    }
    let e = common::chain(&registry().struct_param_in::<Arrays>(WGSL, "arrays").unwrap_err());
    assert_eq!(
        e,
        "cannot use parameter `arrays`: the struct `Arrays` does not match the block: \
         `lights` is array<Light, 2> (stride 48) at offset 0 in the struct, \
         array<Light, 3> (stride 32) at offset 0 in the block; \
         `many` is array<vec4<u32>, 4> (stride 16) at offset 128 in the struct, \
         array<vec4<u32>, 40> (stride 16) at offset 128 in the block"
    );
    #[derive(freqbuf::ShaderStruct)]
    #[allow(dead_code)]
    struct Flat {
        position: [f32; 2], // vec2 where the block has vec3
        range: f32,
        color: [f32; 4],
    }
    #[derive(freqbuf::ShaderStruct)]
    #[allow(dead_code)]
    struct Deep {
        #[shader(offset = 16)]
        lights: [Flat; 2],
    }
    #[derive(freqbuf::ShaderStruct)]
    #[allow(dead_code)]
    struct Outer {
        #[shader(offset = 960)]
        deep: Deep,
    }
    let e = common::chain(&registry().struct_param_in::<Outer>(WGSL, "arrays").unwrap_err());
    assert_eq!(
        e,
        "cannot use parameter `arrays`: the struct `Outer` does not match the block: \
         `deep.lights[].position` is vec2<f32> at offset 0 in the struct, vec3<f32> at offset 0 in the block; \
         `deep.lights[].range` is f32 at offset 8 in the struct, f32 at offset 12 in the block"
    );
}
