//! Compute shaders that report the uniform values they saw, and a reference
//! model in plain Rust to compare the reports with.

use std::collections::HashMap;

use freqbuf::{InstanceId, Manager, Param};

mod rig;
pub use rig::Rig;

/// Words each dispatch writes: a shader tag, then the reported values.
pub const RECORD_WORDS: u32 = 64;

/// How a reported value is typed on both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    F32,
    U32,
    Vec3,
    Vec4,
    Mat4,
}

impl Kind {
    pub fn words(self) -> usize {
        match self {
            Kind::F32 | Kind::U32 => 1,
            Kind::Vec3 => 3,
            Kind::Vec4 => 4,
            Kind::Mat4 => 16,
        }
    }
}

/// A value a shader reports: its name as set from Rust, and its type.
#[derive(Clone, Copy, Debug)]
pub struct Report {
    pub name: &'static str,
    pub kind: Kind,
}

const fn r(name: &'static str, kind: Kind) -> Report {
    Report { name, kind }
}

/// One test shader: WGSL, its tag, and what it reports in order.
pub struct TestShader {
    pub tag: u32,
    pub wgsl: &'static str,
    pub reports: &'static [Report],
}

const COMMON: &str = r#"
struct Out { counter: atomic<u32>, words: array<u32> }
@group(0) @binding(1) var<storage, read_write> out: Out;
var<private> at: u32;
fn put(w: u32) { out.words[at] = w; at += 1u; }
fn putf(x: f32) { put(bitcast<u32>(x)); }
fn put3(v: vec3<f32>) { putf(v.x); putf(v.y); putf(v.z); }
fn put4(v: vec4<f32>) { putf(v.x); putf(v.y); putf(v.z); putf(v.w); }
fn put_m4(m: mat4x4<f32>) { put4(m[0]); put4(m[1]); put4(m[2]); put4(m[3]); }
fn begin(tag: u32) { at = atomicAdd(&out.counter, 1u) * 64u; put(tag); }
"#;

/// Declares the full frame, view, material and object blocks.
pub const FULL: TestShader = TestShader {
    tag: 1,
    wgsl: r#"
struct Frame { time: f32, frame_index: u32 }
struct View { view_proj: mat4x4<f32>, eye: vec4<f32> }
struct Material { color: vec4<f32>, roughness: f32 }
struct Object { world: mat4x4<f32>, id: u32 }
@group(0) @binding(0) var<uniform> frame: Frame;
@group(1) @binding(0) var<uniform> view: View;
@group(2) @binding(0) var<uniform> material: Material;
@group(3) @binding(0) var<uniform> object: Object;
@compute @workgroup_size(1) fn main() {
    begin(1u);
    putf(frame.time); put(frame.frame_index);
    put_m4(view.view_proj); put4(view.eye);
    put4(material.color); putf(material.roughness);
    put_m4(object.world); put(object.id);
}
"#,
    reports: &[
        r("time", Kind::F32),
        r("frame_index", Kind::U32),
        r("view_proj", Kind::Mat4),
        r("eye", Kind::Vec4),
        r("color", Kind::Vec4),
        r("roughness", Kind::F32),
        r("world", Kind::Mat4),
        r("id", Kind::U32),
    ],
};

/// Declares a prefix of the frame block, a subset of the material block, and
/// grows the object block with `tint`. Uses no view.
pub const PREFIX: TestShader = TestShader {
    tag: 2,
    wgsl: r#"
struct FramePrefix { time: f32 }
struct MaterialSubset { _pad0: vec4<f32>, roughness: f32 }
struct ObjectGrown { world: mat4x4<f32>, id: u32, tint: vec4<f32> }
@group(0) @binding(0) var<uniform> frame: FramePrefix;
@group(2) @binding(0) var<uniform> material: MaterialSubset;
@group(3) @binding(0) var<uniform> object: ObjectGrown;
@compute @workgroup_size(1) fn main() {
    begin(2u);
    putf(frame.time);
    putf(material.roughness);
    put(object.id); put4(object.tint);
}
"#,
    reports: &[r("time", Kind::F32), r("roughness", Kind::F32), r("id", Kind::U32), r("tint", Kind::Vec4)],
};

/// An array of structs in a view block at a high binding number.
pub const LIGHTS: TestShader = TestShader {
    tag: 3,
    wgsl: r#"
struct Light { position: vec3<f32>, intensity: f32 }
struct Lights { lights: array<Light, 4> }
struct ObjectId { _pad0: mat4x4<f32>, id: u32 }
@group(1) @binding(5) var<uniform> lighting: Lights;
@group(3) @binding(0) var<uniform> object: ObjectId;
@compute @workgroup_size(1) fn main() {
    begin(3u);
    for (var i = 0u; i < 4u; i++) { put3(lighting.lights[i].position); putf(lighting.lights[i].intensity); }
    put(object.id);
}
"#,
    reports: &[
        r("lights[0].position", Kind::Vec3),
        r("lights[0].intensity", Kind::F32),
        r("lights[1].position", Kind::Vec3),
        r("lights[1].intensity", Kind::F32),
        r("lights[2].position", Kind::Vec3),
        r("lights[2].intensity", Kind::F32),
        r("lights[3].position", Kind::Vec3),
        r("lights[3].intensity", Kind::F32),
        r("id", Kind::U32),
    ],
};

/// The object block grown past 256 bytes: at WebGPU's default alignment its
/// stride steps from 256 to 512, so every object moves in the slot buffer.
pub const BIG: TestShader = TestShader {
    tag: 4,
    wgsl: r#"
struct ObjectBig { world: mat4x4<f32>, id: u32, tint: vec4<f32>, _pad0: array<vec4<f32>, 12>, extra: vec4<f32> }
@group(3) @binding(0) var<uniform> object: ObjectBig;
@compute @workgroup_size(1) fn main() {
    begin(4u);
    put(object.id); put4(object.tint); put4(object.extra);
}
"#,
    reports: &[r("id", Kind::U32), r("tint", Kind::Vec4), r("extra", Kind::Vec4)],
};

pub const SHADERS: [&TestShader; 4] = [&FULL, &PREFIX, &LIGHTS, &BIG];

/// The WGSL of a test shader, with the shared output helpers.
pub fn source(s: &TestShader) -> String {
    format!("{COMMON}\n{}", s.wgsl)
}

/// Words that make a finite float (no NaN, whose bits a GPU may change).
pub fn word(kind: Kind, seed: u32, i: usize) -> u32 {
    let n = seed.wrapping_mul(2654435761).wrapping_add(i as u32 * 40503) % 4096;
    match kind {
        Kind::U32 => n,
        _ => (n as f32 * 0.25 - 256.0).to_bits(),
    }
}

/// Sets a value through the typed API, from words.
pub fn set(m: &mut Manager, id: InstanceId, p: Param, kind: Kind, w: &[u32]) -> Result<(), freqbuf::Error> {
    let f = |i: usize| f32::from_bits(w[i]);
    let mut inst = m.instance(id);
    match kind {
        Kind::F32 => inst.set(p, &f(0)),
        Kind::U32 => inst.set(p, &w[0]),
        Kind::Vec3 => inst.set(p, &[f(0), f(1), f(2)]),
        Kind::Vec4 => inst.set(p, &[f(0), f(1), f(2), f(3)]),
        Kind::Mat4 => {
            let c = |k: usize| [f(4 * k), f(4 * k + 1), f(4 * k + 2), f(4 * k + 3)];
            inst.set(p, &[c(0), c(1), c(2), c(3)])
        }
    }
}

/// [`set`] for many instances through one `Manager::batch` and one
/// `set_all` call, in order (a later item for the same instance wins).
pub fn set_batch(
    m: &mut Manager,
    p: Param,
    kind: Kind,
    items: &[(InstanceId, Vec<u32>)],
) -> Result<(), freqbuf::Error> {
    let ids = items.iter().map(|(id, _)| *id).collect::<Vec<_>>();
    let words = items.iter().map(|(_, w)| w.clone()).collect::<Vec<_>>();
    batch_of(m, p, kind, Keys::Ids(&ids), &words)
}

/// [`set_batch`] by position in `list` (`Batch::set_all_in`).
pub fn set_batch_in(
    m: &mut Manager,
    p: Param,
    kind: Kind,
    list: &freqbuf::InstanceList,
    items: &[(usize, Vec<u32>)],
) -> Result<(), freqbuf::Error> {
    let positions = items.iter().map(|(k, _)| *k).collect::<Vec<_>>();
    let words = items.iter().map(|(_, w)| w.clone()).collect::<Vec<_>>();
    batch_of(m, p, kind, Keys::Listed(list, &positions), &words)
}

/// Where a batch's items land: by handle, or by position in a list.
#[derive(Clone, Copy)]
enum Keys<'a> {
    Ids(&'a [InstanceId]),
    Listed(&'a freqbuf::InstanceList, &'a [usize]),
}

/// One `set_all` or `set_all_in` of `words` (a value each) at `keys`.
fn batch_of(
    m: &mut Manager,
    p: Param,
    kind: Kind,
    keys: Keys<'_>,
    words: &[Vec<u32>],
) -> Result<(), freqbuf::Error> {
    fn all<T: freqbuf::Uniform>(
        m: &mut Manager,
        p: Param,
        (keys, words): (Keys<'_>, &[Vec<u32>]),
        value: impl Fn(&[u32]) -> T,
    ) -> Result<(), freqbuf::Error> {
        let values = words.iter().map(|w| value(w)).collect::<Vec<_>>();
        let mut batch = m.batch::<T>(p)?;
        match keys {
            Keys::Ids(ids) => batch.set_all(ids.iter().copied().zip(&values)),
            Keys::Listed(list, positions) => batch.set_all_in(list, positions.iter().copied().zip(&values)),
        }
    }
    let items = (keys, words);
    let f = |w: &[u32], i: usize| f32::from_bits(w[i]);
    match kind {
        Kind::F32 => all(m, p, items, |w| f(w, 0)),
        Kind::U32 => all(m, p, items, |w| w[0]),
        Kind::Vec3 => all(m, p, items, |w| [f(w, 0), f(w, 1), f(w, 2)]),
        Kind::Vec4 => all(m, p, items, |w| [f(w, 0), f(w, 1), f(w, 2), f(w, 3)]),
        Kind::Mat4 => all(m, p, items, |w| -> [[f32; 4]; 4] {
            std::array::from_fn(|c| std::array::from_fn(|r| f(w, 4 * c + r)))
        }),
    }
}

/// What the reference model says each instance holds, by param name.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub values: HashMap<(InstanceId, &'static str), Vec<u32>>,
}

impl Model {
    pub fn get(&self, id: InstanceId, name: &'static str, kind: Kind) -> Vec<u32> {
        self.values.get(&(id, name)).cloned().unwrap_or_else(|| vec![0; kind.words()])
    }

    /// Forgets a freed instance: a reused index must read as zero.
    pub fn forget(&mut self, id: InstanceId) {
        self.values.retain(|(i, _), _| *i != id);
    }

    /// The record a dispatch of `s` must write.
    pub fn expect(&self, m: &Manager, s: &TestShader, draw: &freqbuf::Draw) -> Vec<u32> {
        let mut rec = vec![s.tag];
        for rep in s.reports {
            let p = m.param(rep.name).expect("reported names resolve");
            let id =
                draw.instance(p.frequency()).expect("the draw names an instance of each frequency it reads");
            rec.extend(self.get(id, rep.name, rep.kind));
        }
        rec
    }
}

/// Two object blocks of 224 bytes each (stride 256), read at both ends: a
/// fully written object dirties 224 bytes in each, 32 bytes apart from the
/// next, so its ranges stay apart and go through staging (`faults.rs`,
/// `scale.rs`).
pub const TWO_BLOCKS: TestShader = TestShader {
    tag: 31,
    wgsl: r#"
struct A { a: array<vec4<u32>, 14> }
struct B { b: array<vec4<u32>, 14> }
@group(3) @binding(0) var<uniform> block_a: A;
@group(3) @binding(1) var<uniform> block_b: B;
@compute @workgroup_size(1) fn main() {
    begin(31u);
    put(block_a.a[0].x); put(block_a.a[13].w); put(block_b.b[0].x); put(block_b.b[13].w);
}
"#,
    reports: &[
        Report { name: "a", kind: Kind::U32 },
        Report { name: "a", kind: Kind::U32 },
        Report { name: "b", kind: Kind::U32 },
        Report { name: "b", kind: Kind::U32 },
    ],
};
