//! Compute shaders that report the uniform values they saw, and a reference
//! model in plain Rust to compare the reports with.

use std::collections::HashMap;

use freqbuf::{InstanceId, Manager, Param, ShaderId};

use super::gpu::read_words;

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

/// Compute pipelines of registered test shaders, and the output buffer.
pub struct Rig {
    pub out: wgpu::Buffer,
    pub pipelines: HashMap<ShaderId, (wgpu::ComputePipeline, &'static TestShader)>,
}

impl Rig {
    pub fn new(device: &wgpu::Device, max_draws: u32) -> Self {
        let out = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("reports"),
            size: 16 + (max_draws * RECORD_WORDS * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self { out, pipelines: HashMap::new() }
    }

    /// Registers a test shader and builds its pipeline with the manager's layout.
    pub fn register(&mut self, device: &wgpu::Device, m: &mut Manager, s: &'static TestShader) -> ShaderId {
        // One family: the test shaders share one material type, whose slot they merge.
        let src = source(s);
        let reflection = freqbuf::reflect::ShaderReflection::new(
            format!("test{}.wgsl", s.tag),
            freqbuf::reflect::ShaderSource::Wgsl(&src),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let id = m.register(reflection.with_family("rig")).unwrap_or_else(|e| panic!("{e}"));
        self.adopt(device, m, id, s);
        id
    }

    /// Builds the pipeline of a shader the manager already has (after `Manager::recreate`).
    pub fn adopt(&mut self, device: &wgpu::Device, m: &mut Manager, id: ShaderId, s: &'static TestShader) {
        m.frame().set_buffer("out", &self.out).unwrap();
        let module = m.create_shader_module(id).expect("registered");
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(m.pipeline_layout(id).expect("registered")),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        self.pipelines.insert(id, (pipeline, s));
    }

    /// Runs the draws and returns each one's record; a draw the binder refuses
    /// is not dispatched and gets the binder's error instead.
    pub fn try_run(
        &self,
        h: &freqbuf::Headless,
        m: &mut Manager,
        draws: &[freqbuf::Draw],
    ) -> Vec<Result<Vec<u32>, freqbuf::Error>> {
        self.dispatch(h, draws, |pass| {
            let mut binder = freqbuf::Binder::new();
            draws
                .iter()
                .map(|d| {
                    pass.set_pipeline(&self.pipelines[&d.shader()].0);
                    binder.bind(m, pass, d).map(|_| pass.dispatch_workgroups(1, 1, 1))
                })
                .collect()
        })
    }

    /// Like `run`, but flushes with `Manager::flush_into` into the encoder
    /// the draws go into: one submit for the flush and the draws.
    pub fn run_flushed_into(
        &self,
        h: &freqbuf::Headless,
        m: &mut Manager,
        draws: &[freqbuf::Draw],
    ) -> Vec<Vec<u32>> {
        let (enc, outcomes) = self.record_flushed_into(h, m, draws);
        h.queue.submit([enc.finish()]);
        self.read(h, draws, outcomes)
    }

    /// Records `flush_into` and the draws into one encoder, unsubmitted.
    pub fn record_flushed_into(
        &self,
        h: &freqbuf::Headless,
        m: &mut Manager,
        draws: &[freqbuf::Draw],
    ) -> (wgpu::CommandEncoder, Vec<Result<(), freqbuf::Error>>) {
        let mut enc = h.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.out, 0, None);
        m.flush_into(&h.queue, &mut enc).unwrap_or_else(|e| panic!("{e}"));
        let outcomes = {
            let mut pass = enc.begin_compute_pass(&Default::default());
            let mut binder = freqbuf::Binder::new();
            draws
                .iter()
                .map(|d| {
                    pass.set_pipeline(&self.pipelines[&d.shader()].0);
                    binder.bind(m, &mut pass, d).map(|_| pass.dispatch_workgroups(1, 1, 1))
                })
                .collect()
        };
        (enc, outcomes)
    }

    /// The records of submitted draws, every one bound.
    pub fn read(
        &self,
        h: &freqbuf::Headless,
        draws: &[freqbuf::Draw],
        outcomes: Vec<Result<(), freqbuf::Error>>,
    ) -> Vec<Vec<u32>> {
        self.records(h, draws, outcomes).into_iter().map(|r| r.unwrap_or_else(|e| panic!("{e}"))).collect()
    }

    /// Like `try_run`, binding with shared access after `Manager::prepare`,
    /// the draws split into `threads` runs, each encoded on its own thread
    /// into its own command buffer; the buffers are submitted in order.
    pub fn try_run_prepared(
        &self,
        h: &freqbuf::Headless,
        m: &Manager,
        draws: &[freqbuf::Draw],
        threads: usize,
    ) -> Vec<Result<Vec<u32>, freqbuf::Error>> {
        let mut clear = h.device.create_command_encoder(&Default::default());
        clear.clear_buffer(&self.out, 0, None);
        let per = draws.len().div_ceil(threads.max(1)).max(1);
        let state = m.state();
        let (buffers, outcomes): (Vec<_>, Vec<_>) = std::thread::scope(|s| {
            let runs = draws
                .chunks(per)
                .map(|run| {
                    s.spawn(move || {
                        let mut enc = h.device.create_command_encoder(&Default::default());
                        let mut binder = freqbuf::Binder::new();
                        let outcomes = {
                            let mut pass = enc.begin_compute_pass(&Default::default());
                            run.iter()
                                .map(|d| {
                                    pass.set_pipeline(&self.pipelines[&d.shader()].0);
                                    binder
                                        .bind_prepared(&state, &mut pass, d)
                                        .map(|_| pass.dispatch_workgroups(1, 1, 1))
                                })
                                .collect::<Vec<_>>()
                        };
                        (enc.finish(), outcomes)
                    })
                })
                .collect::<Vec<_>>();
            runs.into_iter().map(|t| t.join().expect("an encoding thread")).unzip()
        });
        h.queue.submit(std::iter::once(clear.finish()).chain(buffers));
        self.records(h, draws, outcomes.into_iter().flatten().collect())
    }

    /// Like `try_run`, binding the draw list `list` made of `draws`: every
    /// draw's record, or the list's one error.
    pub fn try_run_list(
        &self,
        h: &freqbuf::Headless,
        m: &mut Manager,
        list: &mut freqbuf::DrawList,
        draws: &[freqbuf::Draw],
    ) -> Result<Vec<Vec<u32>>, freqbuf::Error> {
        let mut failed = None;
        let seen = self.dispatch(h, draws, |pass| {
            let result = freqbuf::Binder::new().bind_list(m, pass, list, |pass, i, _| {
                pass.set_pipeline(&self.pipelines[&draws[i].shader()].0);
                pass.dispatch_workgroups(1, 1, 1);
            });
            match result {
                Ok(()) => draws.iter().map(|_| Ok(())).collect(),
                Err(e) => {
                    failed = Some(e);
                    Vec::new()
                }
            }
        });
        match failed {
            Some(e) => Err(e),
            None => seen.into_iter().collect(),
        }
    }

    /// Clears the record buffer, encodes one compute pass with `encode`
    /// (one outcome per draw, or none when nothing ran), submits, and
    /// returns the records the shaders wrote, in dispatch order.
    fn dispatch(
        &self,
        h: &freqbuf::Headless,
        draws: &[freqbuf::Draw],
        encode: impl FnOnce(&mut wgpu::ComputePass<'_>) -> Vec<Result<(), freqbuf::Error>>,
    ) -> Vec<Result<Vec<u32>, freqbuf::Error>> {
        let mut enc = h.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.out, 0, None);
        let outcomes = {
            let mut pass = enc.begin_compute_pass(&Default::default());
            encode(&mut pass)
        };
        h.queue.submit([enc.finish()]);
        self.records(h, draws, outcomes)
    }

    /// Reads the record buffer back: each dispatched draw's record, in order.
    fn records(
        &self,
        h: &freqbuf::Headless,
        draws: &[freqbuf::Draw],
        outcomes: Vec<Result<(), freqbuf::Error>>,
    ) -> Vec<Result<Vec<u32>, freqbuf::Error>> {
        let words = read_words(h, &self.out);
        let ran = outcomes.iter().filter(|o| o.is_ok()).count();
        assert_eq!(words[0] as usize, ran, "every bound dispatch ran once");
        let mut slot = 0;
        draws
            .iter()
            .zip(outcomes)
            .map(|(d, o)| {
                o.map(|()| {
                    let n = 1 + self.pipelines[&d.shader()]
                        .1
                        .reports
                        .iter()
                        .map(|r| r.kind.words())
                        .sum::<usize>();
                    let start = 1 + slot * RECORD_WORDS as usize;
                    slot += 1;
                    words[start..start + n].to_vec()
                })
            })
            .collect()
    }

    pub fn run(&self, h: &freqbuf::Headless, m: &mut Manager, draws: &[freqbuf::Draw]) -> Vec<Vec<u32>> {
        self.try_run(h, m, draws).into_iter().map(|r| r.unwrap_or_else(|e| panic!("{e}"))).collect()
    }

    /// A rig on `device` with the pipelines of every shader this one has
    /// (after `Manager::recreate`).
    pub fn moved(&self, device: &wgpu::Device, m: &mut Manager, max_draws: u32) -> Self {
        let mut rig = Rig::new(device, max_draws);
        for (&id, &(_, s)) in &self.pipelines {
            rig.adopt(device, m, id, s);
        }
        rig
    }
}
