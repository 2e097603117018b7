//! The materials model with families: random creations, derivations, sets
//! and flag changes of materials of two effects whose unrelated `Material`
//! structs share @group(2) @binding(0), each in a family of its own. After
//! every frame each material's draw is read back and compared with a model:
//! its own value, else its nearest ancestor's, else zero. Writes across
//! families are refused and change nothing: a member of the other family
//! through the store or the core, and a draw with the other family's
//! shader (`Error::OtherFamily`, naming both families).

use std::collections::BTreeMap;

use crate::common;

use common::gpu;
use freqbuf::{Binder, Draw, Error, Manager, MaterialId, ObjectId, SlotPlan};
use freqbuf_effects::{EffectId, Effects, Materials};
use proptest::prelude::*;

const ENGINE: &str = "struct Object { slot: u32 }\n@group(3) @binding(0) var<uniform> object: Object;\n@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;\n";
const UNLIT: &str = "struct Material { color: vec4<f32> }\n@group(2) @binding(0) var<uniform> material: Material;\n@compute @workgroup_size(1) fn main() { out[object.slot] = material.color; }\n";
const LIT: &str = "struct Material { albedo: vec4<f32>, roughness: f32, metallic: f32 }\n@group(2) @binding(0) var<uniform> material: Material;\n@compute @workgroup_size(1) fn main() {\n#ifdef METAL\n    out[object.slot] = material.albedo * material.metallic;\n#else\n    out[object.slot] = material.albedo + vec4<f32>(material.roughness, material.metallic, 0.0, 0.0);\n#endif\n}\n";
const FAMILIES: [&str; 2] = ["unlit", "lit"];
/// Each family's members, with their sizes in floats.
const MEMBERS: [&[(&str, usize)]; 2] = [&[("color", 4)], &[("albedo", 4), ("roughness", 1), ("metallic", 1)]];
const MAX: usize = 10;

fn toml(source: &str, flags: &str) -> String {
    format!(
        "source = \"{source}\"\nflags = [{flags}]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"probe\"\n  compute = \"main\"\n"
    )
}

#[derive(Clone, Debug)]
enum Op {
    Create(bool, bool),
    Derive(usize),
    Set(usize, usize, u8),
    /// A member of the other family, through the store or the core.
    Foreign(usize, bool),
    Flags(usize, bool),
    /// A frame; a draw of this material with the other family's shader.
    Frame(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (any::<bool>(), any::<bool>()).prop_map(|(f, m)| Op::Create(f, m)),
        2 => any::<usize>().prop_map(Op::Derive),
        4 => (any::<usize>(), any::<usize>(), any::<u8>()).prop_map(|(m, k, v)| Op::Set(m, k, v)),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(m, core)| Op::Foreign(m, core)),
        2 => (any::<usize>(), any::<bool>()).prop_map(|(m, f)| Op::Flags(m, f)),
        2 => any::<usize>().prop_map(Op::Frame),
    ]
}

struct Mat {
    handle: MaterialId,
    family: usize,
    parent: Option<usize>,
    metal: bool,
    own: BTreeMap<&'static str, Vec<f32>>,
    object: ObjectId,
}

fn effective(mats: &[Mat], mut at: usize, name: &str, floats: usize) -> Vec<f32> {
    loop {
        if let Some(v) = mats[at].own.get(name) {
            return v.clone();
        }
        match mats[at].parent {
            Some(p) => at = p,
            None => return vec![0.0; floats],
        }
    }
}

/// What material `i`'s draw writes.
fn expected(mats: &[Mat], i: usize) -> Vec<f32> {
    if mats[i].family == 0 {
        return effective(mats, i, "color", 4);
    }
    let albedo = effective(mats, i, "albedo", 4);
    let (r, m) = (effective(mats, i, "roughness", 1)[0], effective(mats, i, "metallic", 1)[0]);
    match mats[i].metal {
        true => albedo.iter().map(|a| a * m).collect(),
        false => vec![albedo[0] + r, albedo[1] + m, albedo[2], albedo[3]],
    }
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let Some(h) = gpu::device() else { return Ok(()) };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let effects: [EffectId; 2] =
        [("unlit", UNLIT, ""), ("lit", LIT, "\"METAL\"")].map(|(name, wgsl, flags)| {
            let source = format!("{name}.wgsl");
            fx.add(&format!("{name}.effect.toml"), &toml(&source, flags), &format!("{ENGINE}{wgsl}")).unwrap()
        });
    let out = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: MAX as u64 * 16,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    // Both families exist from the start, so that either's members resolve.
    for &effect in &effects {
        let pass = fx.technique(effect, "t").unwrap().next().unwrap();
        let flags = fx.flags(effect, &[]).unwrap();
        fx.compute_pipeline(&mut fb, pass, flags).unwrap();
    }
    fb.frame().set_buffer("out", &out).unwrap();
    let mut store = Materials::new();
    let mut mats: Vec<Mat> = Vec::new();
    let flags_of = |metal: bool| if metal { &["METAL"][..] } else { &[][..] };
    let new_object = |fb: &mut Manager, i: usize| {
        let o = fb.create_object();
        fb.object(o).set_by_name("slot", &(i as u32)).unwrap();
        o
    };
    for op in ops {
        let pick = |i: usize| (!mats.is_empty()).then(|| i % mats.len());
        match op {
            Op::Create(lit, metal) if mats.len() < MAX => {
                let family = usize::from(lit);
                let metal = metal && lit;
                let handle = store.create(&mut fx, &mut fb, effects[family], flags_of(metal)).unwrap();
                let object = new_object(&mut fb, mats.len());
                mats.push(Mat { handle, family, parent: None, metal, own: BTreeMap::new(), object });
            }
            Op::Derive(p) if mats.len() < MAX => {
                let Some(p) = pick(p) else { continue };
                let handle = store.derive(&mut fb, mats[p].handle).unwrap();
                let object = new_object(&mut fb, mats.len());
                let (family, metal) = (mats[p].family, mats[p].metal);
                mats.push(Mat { handle, family, parent: Some(p), metal, own: BTreeMap::new(), object });
            }
            Op::Set(m, k, v) => {
                let Some(m) = pick(m) else { continue };
                let members = MEMBERS[mats[m].family];
                let (name, floats) = members[k % members.len()];
                let value = (0..floats).map(|i| f32::from(v) + i as f32 * 0.5).collect::<Vec<_>>();
                match floats {
                    4 => store.set(&mut fb, mats[m].handle, name, &<[f32; 4]>::try_from(&value[..]).unwrap()),
                    _ => store.set(&mut fb, mats[m].handle, name, &value[0]),
                }
                .unwrap();
                mats[m].own.insert(name, value);
            }
            Op::Foreign(m, core) => {
                let Some(m) = pick(m) else { continue };
                let other = 1 - mats[m].family;
                let (name, _) = MEMBERS[other][0];
                let refused = if core {
                    let p = fb.param_in(FAMILIES[other], name).unwrap();
                    fb.material(mats[m].handle).set(p, &[9.0f32; 4]).is_err()
                } else {
                    store.set(&mut fb, mats[m].handle, name, &[9.0f32; 4]).is_err()
                };
                prop_assert!(
                    refused,
                    "`{}` of family {} set on a material of family {}",
                    name,
                    other,
                    mats[m].family
                );
            }
            Op::Flags(m, metal) => {
                let Some(m) = pick(m) else { continue };
                let metal = metal && mats[m].family == 1;
                store.set_flags(&mut fx, &mut fb, mats[m].handle, flags_of(metal)).unwrap();
                mats[m].metal = metal;
            }
            Op::Frame(wrong) => frame(h, &mut fx, &mut fb, &store, &effects, &mats, &out, wrong)?,
            _ => {}
        }
    }
    frame(h, &mut fx, &mut fb, &store, &effects, &mats, &out, 0)
}

/// Draws every material with its family's pipeline and compares what each
/// wrote with the model; a draw of material `wrong` with the other family's
/// shader is refused before it binds.
#[allow(clippy::too_many_arguments)]
fn frame(
    h: &freqbuf::Headless,
    fx: &mut Effects,
    fb: &mut Manager,
    store: &Materials,
    effects: &[EffectId; 2],
    mats: &[Mat],
    out: &wgpu::Buffer,
    wrong: usize,
) -> Result<(), TestCaseError> {
    if mats.is_empty() {
        return Ok(());
    }
    // Every pipeline first: a permutation registered later would need another flush.
    let mut pipelines = Vec::new();
    for mat in mats {
        let pass = fx.technique(effects[mat.family], "t").unwrap().next().unwrap();
        let flags = store.flags(mat.handle).unwrap();
        let (shader, pipeline) = fx.compute_pipeline(fb, pass, flags).unwrap();
        pipelines.push((shader, pipeline.clone()));
    }
    let (wrong, other) = (wrong % mats.len(), 1 - mats[wrong % mats.len()].family);
    let pass = fx.technique(effects[other], "t").unwrap().next().unwrap();
    let flags = fx.flags(effects[other], &[]).unwrap();
    let other_shader = fx.compute_pipeline(fb, pass, flags).unwrap().0;
    fb.flush(&h.queue).unwrap();
    let mut enc = h.device.create_command_encoder(&Default::default());
    {
        let mut cpass = enc.begin_compute_pass(&Default::default());
        let mut binder = Binder::new();
        for (i, (mat, (shader, pipeline))) in mats.iter().zip(&pipelines).enumerate() {
            cpass.set_pipeline(pipeline);
            binder.bind(fb, &mut cpass, &Draw::new(*shader).material(mat.handle).object(mat.object)).unwrap();
            cpass.dispatch_workgroups(1, 1, 1);
            if i == wrong {
                let draw = Draw::new(other_shader).material(mat.handle).object(mat.object);
                let e = binder.bind(fb, &mut cpass, &draw).unwrap_err();
                let named = matches!(&e, Error::OtherFamily { shader_family, instance_family, .. }
                    if shader_family == FAMILIES[other] && instance_family == FAMILIES[mat.family]);
                prop_assert!(named, "material {} drawn with the other family's shader: {}", i, e);
            }
        }
    }
    h.queue.submit([enc.finish()]);
    let words = gpu::read_words(h, out);
    for i in 0..mats.len() {
        let got = words[i * 4..i * 4 + 4].iter().map(|&w| f32::from_bits(w)).collect::<Vec<_>>();
        prop_assert_eq!(got, expected(mats, i), "material {} (family {})", i, mats[i].family);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, max_shrink_iters: 256, ..ProptestConfig::default() })]
    #[test]
    fn materials_of_two_families_read_what_the_model_says(ops in prop::collection::vec(op(), 1..40)) {
        run(ops)?;
    }
}
