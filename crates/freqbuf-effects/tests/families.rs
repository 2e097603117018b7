//! Material families: three effects with unrelated `Material` structs at
//! @group(2) @binding(0), as a renderer with unlit, textured and lit
//! materials has them. Each is a family of its own, with its own slot; many
//! materials of each, drawn interleaved, each read back.

use crate::common;

use common::gpu;
use freqbuf::{Binder, Draw, Manager, SlotPlan};
use freqbuf_effects::{Effects, Materials};

/// The engine's own blocks, shared by every family: an object says where to write.
const ENGINE: &str = "struct Object { slot: u32 }\n@group(3) @binding(0) var<uniform> object: Object;\n@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;\n";

const UNLIT: &str = "struct Material { color: vec4<f32> }\n@group(2) @binding(0) var<uniform> material: Material;\n@compute @workgroup_size(1) fn main() { out[object.slot] = material.color; }\n";
/// Other members at the same offsets as unlit's and lit's.
const TEXTURED: &str = "struct Material { tint: vec4<f32>, scale: vec2<f32> }\n@group(2) @binding(0) var<uniform> material: Material;\n@compute @workgroup_size(1) fn main() { out[object.slot] = material.tint * material.scale.x + vec4<f32>(material.scale.y); }\n";
const LIT: &str = "struct Material { albedo: vec4<f32>, roughness: f32, metallic: f32 }\n@group(2) @binding(0) var<uniform> material: Material;\n@compute @workgroup_size(1) fn main() {\n#ifdef METAL\n    out[object.slot] = material.albedo * material.metallic;\n#else\n    out[object.slot] = material.albedo + vec4<f32>(material.roughness, material.metallic, 0.0, 0.0);\n#endif\n}\n";

fn toml(source: &str, flags: &str) -> String {
    format!(
        "source = \"{source}\"\nflags = [{flags}]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"probe\"\n  compute = \"main\"\n"
    )
}

#[test]
fn three_effects_with_unrelated_material_structs_each_read_their_own_values() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let effects = [("unlit", UNLIT, ""), ("textured", TEXTURED, ""), ("lit", LIT, "\"METAL\"")].map(
        |(name, wgsl, flags)| {
            let source = format!("{name}.wgsl");
            fx.add(&format!("{name}.effect.toml"), &toml(&source, flags), &format!("{ENGINE}{wgsl}")).unwrap()
        },
    );
    let mut mats = Materials::new();
    // Five materials of each kind; lit's alternate its flag.
    let mut materials = Vec::new();
    for k in 0..5u8 {
        let v = f32::from(k);
        for (e, &effect) in effects.iter().enumerate() {
            let flags: &[&str] = if e == 2 && k % 2 == 1 { &["METAL"] } else { &[] };
            let m = mats.create(&mut fx, &mut fb, effect, flags).unwrap();
            let expect = match e {
                0 => {
                    mats.set(&mut fb, m, "color", &[v, v + 0.5, 1.0, 2.0]).unwrap();
                    [v, v + 0.5, 1.0, 2.0]
                }
                1 => {
                    mats.set(&mut fb, m, "tint", &[1.0f32, 2.0, 3.0, v]).unwrap();
                    mats.set(&mut fb, m, "scale", &[2.0f32, v]).unwrap();
                    [2.0 + v, 4.0 + v, 6.0 + v, 3.0 * v]
                }
                _ => {
                    mats.set(&mut fb, m, "albedo", &[v, 1.0, 2.0, 3.0]).unwrap();
                    mats.set(&mut fb, m, "roughness", &0.25f32).unwrap();
                    mats.set(&mut fb, m, "metallic", &2.0f32).unwrap();
                    if flags.is_empty() { [v + 0.25, 3.0, 2.0, 3.0] } else { [2.0 * v, 2.0, 4.0, 6.0] }
                }
            };
            materials.push((effect, m, expect));
        }
    }
    // Three families, three material slots at one binding point.
    let registry = fb.registry();
    let families = registry.slots().filter_map(|(_, s)| s.family()).collect::<Vec<_>>();
    assert_eq!(families, ["unlit", "textured", "lit"]);
    // A name two families declare needs its family; a member of another family is refused.
    let e = fb.param("color").map(drop);
    assert!(e.is_ok(), "only unlit declares `color`");
    let tint = fb.param_in("textured", "tint").unwrap();
    let e = fb.material(materials[0].1).set(tint, &[0.0f32; 4]).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use parameter `tint`: it is a member of family `textured`, but the instance belongs to family `unlit`"
    );
    let e = mats.set(&mut fb, materials[0].1, "tint", &[0.0f32; 4]).unwrap_err();
    assert!(common::chain(&e).contains("no permutation of effect `unlit` has it"), "{}", common::chain(&e));

    let n = materials.len() as u64;
    let out = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: n * 16,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    fb.frame().set_buffer("out", &out).unwrap();
    let slot = fb.param("slot").unwrap();
    let objects = (0..n as u32)
        .map(|i| {
            let o = fb.create_object();
            fb.object(o).set(slot, &i).unwrap();
            o
        })
        .collect::<Vec<_>>();
    fb.flush(&h.queue).unwrap();
    // Interleaved: unlit, textured, lit, unlit, ... each draw another family's slot.
    let mut draws = Vec::new();
    for (i, &(effect, m, _)) in materials.iter().enumerate() {
        let pass = fx.technique(effect, "t").unwrap().next().unwrap();
        let flags = mats.flags(m).unwrap();
        let (shader, pipeline) = fx.compute_pipeline(&mut fb, pass, flags).unwrap();
        draws.push((pipeline.clone(), Draw::new(shader).material(m).object(objects[i])));
    }
    gpu::run(h, &mut fb, draws.iter().map(|(p, d)| (p, *d)));
    let words = gpu::read_words(h, &out);
    for (i, (_, _, expect)) in materials.iter().enumerate() {
        let got = words[i * 4..i * 4 + 4].iter().map(|&w| f32::from_bits(w)).collect::<Vec<_>>();
        assert_eq!(got, expect, "draw {i} (effect {})", i % 3);
    }
}

#[test]
fn permutations_of_one_family_switch_without_uploads_or_binds() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let lit = fx.add("lit.effect.toml", &toml("lit.wgsl", "\"METAL\""), &format!("{ENGINE}{LIT}")).unwrap();
    let mut mats = Materials::new();
    let m = mats.create(&mut fx, &mut fb, lit, &[]).unwrap();
    let pass = fx.technique(lit, "t").unwrap().next().unwrap();
    let shaders = [&[][..], &["METAL"]].map(|f| {
        let flags = fx.flags(lit, f).unwrap();
        fx.compute_pipeline(&mut fb, pass, flags).unwrap().0
    });
    let out = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    fb.frame().set_buffer("out", &out).unwrap();
    let o = fb.create_object();
    fb.flush(&h.queue).unwrap();
    fb.take_stats();
    let mut enc = h.device.create_command_encoder(&Default::default());
    let mut cpass = enc.begin_compute_pass(&Default::default());
    let mut binder = Binder::new();
    for shader in shaders.iter().cycle().take(6) {
        binder.bind(&mut fb, &mut cpass, &Draw::new(*shader).material(m).object(o)).unwrap();
    }
    drop(cpass);
    fb.flush(&h.queue).unwrap();
    let s = fb.take_stats().total();
    // Groups 0 to 3 once, for the first draw; then nothing, and nothing uploaded.
    assert_eq!((s.set_bind_group_calls, s.bytes_uploaded), (4, 0), "{s:?}");
}

#[test]
fn effects_that_name_one_family_merge_and_a_conflict_inside_it_names_both() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let family = |source: &str| toml(source, "").replace("flags = []\n", "flags = []\nfamily = \"pbr\"\n");
    let a = fx.add("a.effect.toml", &family("a.wgsl"), &format!("{ENGINE}{UNLIT}")).unwrap();
    // LIT tests METAL, which this effect leaves off.
    let b_toml = family("b.wgsl") + "[defs]\nMETAL = false\n";
    let b = fx.add("b.effect.toml", &b_toml, &format!("{ENGINE}{LIT}")).unwrap();
    assert_eq!((fx.effect(a).family(), fx.effect(b).family()), ("pbr", "pbr"));
    let mut mats = Materials::new();
    mats.create(&mut fx, &mut fb, a, &[]).unwrap();
    let e = mats.create(&mut fx, &mut fb, b, &[]).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot merge the permutations of b.wgsl: the permutation with [no flags] (passes t.probe) does not fit the others; its family `pbr` is shared with `a`: give unrelated material types families of their own: cannot lay out @group(2) @binding(0): in family `pbr`, whose shaders share one layout here: members overlap: `color` in a[no flags] is vec4<f32> at offset 0 (size 16); but `albedo` in b[no flags] is vec4<f32> at offset 0 (size 16)"
    );
    // Its own family (set before its first permutation) resolves it.
    fx.set_family(b, "lit").unwrap();
    mats.create(&mut fx, &mut fb, b, &[]).unwrap();
    let e = fx.set_family(b, "pbr").unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use b.wgsl: its permutations are registered in family `lit`; set its family before the first"
    );
}
