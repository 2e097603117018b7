//! Typed blocks: `#[derive(ShaderStruct)]` lays a struct out by WGSL's
//! rules, `param_struct` checks it against the reflected block (every
//! mismatch listed), `set_struct` writes it, and the shader reads back what
//! was set. `freqbuf declare --rust` generates the structs; the generated
//! file is compiled here and must equal what the registry generates now.

use crate::common;

use common::gpu;
use freqbuf::reflect::{ShaderReflection, ShaderSource};
use freqbuf::{Draw, Manager, ShaderStruct, SlotPlan};

const SHADER: &str = include_str!("shaders/typed.wgsl");
const NAME: &str = "crates/freqbuf/tests/shaders/typed.wgsl";

#[allow(unreachable_pub, reason = "the generated code is written for a renderer's public module")]
mod generated {
    include!("generated/typed_slots.rs");
}

fn shader() -> ShaderReflection {
    ShaderReflection::new(NAME, ShaderSource::Wgsl(SHADER)).unwrap()
}

#[test]
fn the_generated_structs_are_what_the_registry_generates() {
    let mut registry = freqbuf::Registry::new(SlotPlan::default());
    registry.add(shader()).unwrap();
    let expected = include_str!("generated/typed_slots.rs");
    assert_eq!(registry.rust_declarations(), expected, "regenerate with `freqbuf declare --rust {NAME}`");
}

#[test]
fn a_typed_block_is_checked_once_and_read_back_field_by_field() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let id = fb.register(shader()).unwrap();
    let family = fb.registry()[id].family().to_owned();
    // The derive's offsets are WGSL's: the vec3 after an f32 at 32, the mat3 at 48.
    let offsets = generated::Material::MEMBERS.iter().map(|m| (m.name, m.offset)).collect::<Vec<_>>();
    let want = [
        ("color", 0),
        ("roughness", 16),
        ("offset", 32),
        ("layers", 44),
        ("basis", 48),
        ("uv_scale", 96),
        ("bias", 104),
        ("weights", 112),
    ];
    assert_eq!(offsets, want);
    assert_eq!(generated::Material::SIZE, 144);
    let typed = fb.param_struct::<generated::Material>("material").unwrap();
    assert!(fb.param_struct_in::<generated::Material>(&family, "Material").is_ok(), "by its struct name too");
    let value = generated::Material {
        color: [1.0, 2.0, 3.0, 4.0],
        roughness: 0.5,
        offset: [5.0, 6.0, 7.0],
        layers: 9,
        basis: [[10.0, 11.0, 12.0], [13.0, 14.0, 15.0], [16.0, 17.0, 18.0]],
        uv_scale: [19.0, 20.0],
        bias: -3,
        weights: [[0.0; 4], [22.0, 23.0, 24.0, 25.0]],
    };
    let m = fb.create_material_in(&family);
    fb.material(m).set_struct(typed, &value).unwrap();
    let out = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 96,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    fb.material(m).set_buffer("out", &out).unwrap();
    fb.flush(&h.queue).unwrap();
    fb.take_stats();
    gpu::dispatch(h, &mut fb, &[(Draw::new(id).material(m), "main")]);
    let words = gpu::read_words(h, &out);
    let f = |i: usize| f32::from_bits(words[i]);
    assert_eq!((0..4).map(f).collect::<Vec<_>>(), value.color);
    assert_eq!(f(4), value.roughness);
    assert_eq!((5..8).map(f).collect::<Vec<_>>(), value.offset);
    assert_eq!(words[8], value.layers);
    assert_eq!((9..18).map(f).collect::<Vec<_>>(), value.basis.concat());
    assert_eq!([f(18), f(19)], value.uv_scale);
    assert_eq!(words[20] as i32, value.bias);
    assert_eq!(f(21), 25.0, "the array field `weights[1].w`");
    // The same value again makes nothing dirty.
    fb.material(m).set_struct(typed, &value).unwrap();
    fb.flush(&h.queue).unwrap();
    assert_eq!(fb.take_stats().total().bytes_uploaded, 0);
}

/// A struct that disagrees with the block: every mismatch in one error.
#[derive(freqbuf::ShaderStruct)]
struct Wrong {
    color: [f32; 3],
    rough: f32,
    roughness: u32,
}

#[test]
fn a_struct_that_does_not_match_lists_every_mismatch() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    fb.register(shader()).unwrap();
    let e = fb.param_struct::<Wrong>("material").unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use parameter `material`: the struct `Wrong` does not match the block: `color` is vec3<f32> at offset 0 in the struct, vec4<f32> at offset 0 in the block; `rough` is not a member (it has color, roughness, offset, layers, basis, uv_scale, bias, weights); `roughness` is u32 at offset 16 in the struct, f32 at offset 16 in the block"
    );
    let e = fb.param_struct::<Wrong>("materials").unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use parameter `materials`: unknown name; did you mean `material`, `Material`?"
    );
}

mod nested {
    use super::*;

    #[derive(Clone, Copy, freqbuf::ShaderStruct)]
    struct Light {
        position: [f32; 3],
        range: f32,
        color: [f32; 4],
    }

    /// Part of WGSL's `Fog`: its `color` is left out, and keeps its value.
    #[derive(freqbuf::ShaderStruct)]
    struct Fog {
        #[shader(offset = 12)]
        density: f32,
    }

    #[derive(freqbuf::ShaderStruct)]
    struct View {
        lights: [Light; 4],
        fog: Fog,
        #[shader(array)]
        cascades: [[f32; 4]; 3],
        #[shader(array)]
        shadows: [[[f32; 3]; 4]; 2],
        count: u32,
    }

    /// The words the shader copies out, from the value set and the fog's
    /// color set by name.
    fn model(v: &View, fog_color: [f32; 3]) -> Vec<u32> {
        let mut words = Vec::new();
        for l in &v.lights {
            words.extend(l.position.iter().chain([&l.range]).chain(&l.color).map(|x| x.to_bits()));
        }
        words.extend(fog_color.iter().chain([&v.fog.density]).map(|x| x.to_bits()));
        words.extend(v.cascades.iter().flatten().map(|x| x.to_bits()));
        words.extend(v.shadows.iter().flatten().flatten().map(|x| x.to_bits()));
        words.push(v.count);
        words
    }

    #[test]
    fn arrays_of_structs_nested_structs_and_arrays_of_matrices_are_one_typed_write() {
        let Some(h) = gpu::device() else { return };
        let mut fb = Manager::new(&h.device, SlotPlan::default());
        let source = include_str!("shaders/typed_nested.wgsl");
        let name = "crates/freqbuf/tests/shaders/typed_nested.wgsl";
        let id = fb.register(ShaderReflection::new(name, ShaderSource::Wgsl(source)).unwrap()).unwrap();
        let typed = fb.param_struct::<View>("view").unwrap();
        let m = fb.create_material_in(name);
        let fog_color = [0.25, 0.5, 0.75];
        let by_name = fb.param_in(name, "fog.color").unwrap();
        fb.material(m).set(by_name, &fog_color).unwrap();
        let n = |i: usize| i as f32;
        let mut value = View {
            lights: std::array::from_fn(|l| Light {
                position: [n(l * 8), n(l * 8 + 1), n(l * 8 + 2)],
                range: n(l * 8 + 3),
                color: [n(l * 8 + 4), n(l * 8 + 5), n(l * 8 + 6), n(l * 8 + 7)],
            }),
            fog: Fog { density: 35.0 },
            cascades: std::array::from_fn(|c| std::array::from_fn(|i| n(36 + c * 4 + i))),
            shadows: std::array::from_fn(|s| {
                std::array::from_fn(|c| std::array::from_fn(|r| n(48 + s * 12 + c * 3 + r)))
            }),
            count: 4,
        };
        let out = h.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 73 * 4,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        fb.material(m).set_buffer("out", &out).unwrap();
        for round in 0..2 {
            fb.material(m).set_struct(typed, &value).unwrap();
            fb.flush(&h.queue).unwrap();
            gpu::dispatch(h, &mut fb, &[(Draw::new(id).material(m), "main")]);
            assert_eq!(gpu::read_words(h, &out), model(&value, fog_color), "round {round}");
            // Change one light's range and one shadow matrix's element.
            value.lights[2].range = -1.0;
            value.shadows[1][3][2] = -2.0;
        }
        fb.take_stats();
        fb.material(m).set_struct(typed, &value).unwrap();
        fb.flush(&h.queue).unwrap();
        assert_eq!(fb.take_stats().total().bytes_uploaded, 0, "the same value again uploads nothing");
    }
}
