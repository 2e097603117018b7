//! `Binder::draw_indirect` against an independent model, in random orders.
//!
//! Each object is one point at its own pixel, drawn by a draw of one kept
//! draw list with one kept `IndirectDraws`. A random sequence creates and
//! frees objects, sets colors and tints, and moves the manager (`recreate`)
//! between four devices: a second device of the same wgpu Instance, a device
//! of a new Instance, and one without `INDIRECT_FIRST_INSTANCE` (drawn draw by
//! draw). A frame flushes, then records one to three passes, split over one or
//! two encoders, changing geometry (visibility, first vertex, batch) and
//! setting values before each pass; it submits once and reads every pass's
//! target back. The model says, for each pass, every pixel: the geometry that
//! pass was recorded with and the values of the frame's flush, never a later
//! pass's arguments or a later set. It also says where the `set` callback
//! runs (the shader or batch changes) and that a list kept across a free is
//! refused with `StaleList` before anything is drawn.

use std::sync::OnceLock;

use crate::common;

use common::gpu;
use freqbuf::{
    Binder, Draw, DrawArgs, DrawList, Error, Headless, IndirectDraws, Manager, MaterialId, ObjectId, Param,
    ShaderId, SlotPlan,
};
use proptest::prelude::*;

/// `fs` passes the color on, `fs_double` doubles it; the first vertex is added to green.
const SHADER: &str = "struct ObjectData { pos: vec4<f32>, color: vec4<f32> }
@group(3) @binding(0) var<storage, read> objects: array<ObjectData>;
struct Material { tint: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs(@builtin(instance_index) i: u32, @builtin(vertex_index) v: u32) -> Out {
    let c = objects[i].color + material.tint + vec4(0.0, f32(v), 0.0, 0.0);
    return Out(vec4(objects[i].pos.xy, 0.0, 1.0), c);
}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> { return in.c; }
@fragment fn fs_double(in: Out) -> @location(0) vec4<f32> { return in.c * 2.0; }
";

const W: u32 = 8;
const CELLS: usize = (W * W) as usize;
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;
const ENTRIES: [&str; 2] = ["fs", "fs_double"];
const BACKGROUND: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const MATERIALS: usize = 3;

/// Devices 0 and 1: one wgpu Instance; 2: a new Instance; 3: a new Instance
/// without `INDIRECT_FIRST_INSTANCE`.
fn devices() -> Option<&'static [Headless]> {
    static DEVICES: OnceLock<Option<Vec<Headless>>> = OnceLock::new();
    let open = || {
        if !gpu::renders_to(gpu::device()?, FORMAT) {
            return None;
        }
        let first = wgpu::Features::INDIRECT_FIRST_INSTANCE;
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: (wgpu::Backends::VULKAN | wgpu::Backends::GL).with_env(),
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapter = pollster::block_on(instance.request_adapter(&Default::default())).expect("an adapter");
        let same = [0, 1].map(|_| {
            let (device, queue) =
                pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                    required_features: first,
                    ..Default::default()
                }))
                .expect("a device with indirect first instances");
            let downlevel = adapter.get_downlevel_capabilities().flags;
            Headless { device, queue, info: adapter.get_info(), downlevel, adapter: adapter.clone() }
        });
        let others = [first, wgpu::Features::empty()].map(|f| gpu::device_with(f, |_| {}).unwrap());
        Some(same.into_iter().chain(others).collect())
    };
    DEVICES.get_or_init(open).as_deref()
}

fn cell_pos(cell: usize) -> [f32; 4] {
    let (x, y) = ((cell as u32 % W) as f32 + 0.5, (cell as u32 / W) as f32 + 0.5);
    [x / W as f32 * 2.0 - 1.0, 1.0 - y / W as f32 * 2.0, 0.0, 1.0]
}

/// One draw's geometry: visible or not, its first vertex, its batch.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Geo {
    hidden: bool,
    first: u32,
    batch: u32,
}

impl Geo {
    fn args(self) -> DrawArgs {
        DrawArgs { count: u32::from(!self.hidden), first: self.first, base_vertex: 0, batch: self.batch }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Create {
        material: usize,
        shader: usize,
        seed: u32,
    },
    Free(usize),
    Color(usize, u32),
    Tint(usize, u32),
    /// The passes of one submit, then whether the application says it submitted.
    Frame {
        passes: Vec<Pass>,
        submitted: bool,
    },
    Recreate(usize),
}

/// One pass: geometry changes (draw, geometry) and color sets (object,
/// seed) made before it is recorded, and its encoder (0 or 1).
#[derive(Clone, Debug)]
struct Pass {
    changes: Vec<(usize, Geo)>,
    sets: Vec<(usize, u32)>,
    encoder: usize,
}

/// What the model knows of one live object.
#[derive(Clone, Debug)]
struct Object {
    id: ObjectId,
    cell: usize,
    material: usize,
    shader: usize,
    color: [f32; 4],
}

fn color(seed: u32) -> [f32; 4] {
    [(seed % 61) as f32, (seed / 61 % 7) as f32, (seed / 427 % 5) as f32, 1.0]
}

struct World {
    h: &'static Headless,
    device: usize,
    fb: Manager,
    shaders: [ShaderId; 2],
    pipelines: [wgpu::RenderPipeline; 2],
    params: [Param; 3],
    materials: [MaterialId; MATERIALS],
    tints: [[f32; 4]; MATERIALS],
    live: Vec<Object>,
    /// The objects the list draws, in its order, and whether a free made it stale.
    listed: Vec<Object>,
    stale: bool,
    list: DrawList,
    draws: IndirectDraws,
    /// The model of `draws`' geometry.
    geo: Vec<Geo>,
}

impl World {
    fn new(h: &'static Headless) -> Self {
        let mut fb = Manager::with_downlevel(&h.device, SlotPlan::default(), h.downlevel);
        let whole = freqbuf::reflect::ShaderReflection::new(
            "model.wgsl",
            freqbuf::reflect::ShaderSource::Wgsl(SHADER),
        )
        .unwrap();
        let shaders = ENTRIES.map(|fs| fb.register(whole.for_entry_points(&["vs", fs]).unwrap()).unwrap());
        let params = ["pos", "color", "tint"].map(|p| fb.param(p).unwrap());
        let materials = [(); MATERIALS].map(|()| fb.create_material());
        let pipelines = pipelines(h, &fb, shaders);
        let list = fb.draw_list(&[]).unwrap();
        let mut w = Self {
            h,
            device: 0,
            fb,
            shaders,
            pipelines,
            params,
            materials,
            tints: [[0.0; 4]; MATERIALS],
            live: Vec::new(),
            listed: Vec::new(),
            stale: false,
            list,
            draws: IndirectDraws::new(Vec::new()),
            geo: Vec::new(),
        };
        for k in 0..MATERIALS {
            w.tint(k, k as u32 * 100);
        }
        for k in 0..6 {
            w.create(k % MATERIALS, k / 3, k as u32 * 37);
        }
        w
    }

    fn create(&mut self, material: usize, shader: usize, seed: u32) {
        let Some(cell) = (0..CELLS).find(|c| self.live.iter().all(|o| o.cell != *c)) else { return };
        let id = self.fb.create_object();
        self.fb.object(id).set(self.params[0], &cell_pos(cell)).unwrap();
        let o = Object { id, cell, material: material % MATERIALS, shader: shader % 2, color: color(seed) };
        self.fb.object(id).set(self.params[1], &o.color).unwrap();
        self.live.push(o);
    }

    fn set_color(&mut self, which: usize, seed: u32) {
        if self.live.is_empty() {
            return;
        }
        let o = which % self.live.len();
        self.live[o].color = color(seed);
        self.fb.object(self.live[o].id).set(self.params[1], &self.live[o].color).unwrap();
    }

    fn tint(&mut self, k: usize, seed: u32) {
        let k = k % MATERIALS;
        self.tints[k] = [0.0, 0.0, (seed % 9) as f32 * 100.0, (seed % 3) as f32];
        self.fb.material(self.materials[k]).set(self.params[2], &self.tints[k]).unwrap();
    }

    fn apply(&mut self, op: Op) -> Result<(), TestCaseError> {
        match op {
            Op::Create { material, shader, seed } => self.create(material, shader, seed),
            Op::Free(i) if !self.live.is_empty() => {
                let o = self.live.swap_remove(i % self.live.len());
                self.fb.free_object(o.id).unwrap();
                self.stale = true;
            }
            Op::Free(_) => {}
            Op::Color(i, seed) => self.set_color(i, seed),
            Op::Tint(k, seed) => self.tint(k, seed),
            Op::Recreate(k) => {
                let k = if k % 4 == self.device { (k + 1) % 4 } else { k % 4 };
                let h = &devices().unwrap()[k];
                self.fb.recreate(&h.device).unwrap();
                (self.h, self.device) = (h, k);
                self.pipelines = pipelines(h, &self.fb, self.shaders);
            }
            Op::Frame { passes, submitted } => self.frame(passes, submitted)?,
        }
        Ok(())
    }

    /// A new list of the live objects; the kept `IndirectDraws` where the
    /// number of draws is the same, else one with the geometry carried over.
    fn relist(&mut self) {
        let draws = self
            .live
            .iter()
            .map(|o| Draw::new(self.shaders[o.shader]).material(self.materials[o.material]).object(o.id))
            .collect::<Vec<_>>();
        self.list = self.fb.draw_list(&draws).unwrap();
        self.listed = self.live.clone();
        self.stale = false;
        if self.geo.len() != self.listed.len() {
            self.geo.resize(self.listed.len(), Geo::default());
            self.draws = IndirectDraws::new(self.geo.iter().map(|g| g.args()).collect());
        }
    }

    fn frame(&mut self, passes: Vec<Pass>, submitted: bool) -> Result<(), TestCaseError> {
        self.fb.flush(&self.h.queue).unwrap();
        // What the draws of this frame read: the objects as flushed.
        let flushed = self.live.clone();
        let tints = self.tints;
        let was_stale = self.stale;
        if !was_stale && self.listed.len() != self.live.len() {
            self.relist();
        }
        let mut encoders = [0, 1].map(|_| self.h.device.create_command_encoder(&Default::default()));
        let size = wgpu::Extent3d { width: W, height: W, depth_or_array_layers: 1 };
        let usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
        let mut expected = Vec::new();
        let mut targets = Vec::new();
        for (n, Pass { changes, sets, encoder }) in passes.into_iter().enumerate() {
            if !self.geo.is_empty() {
                for (i, g) in changes {
                    let i = i % self.geo.len();
                    self.geo[i] = g;
                    self.draws.set(i, g.args());
                }
            }
            for (i, seed) in sets {
                self.set_color(i, seed);
            }
            let target = gpu::texture(self.h, FORMAT, size, usage);
            let view = target.create_view(&Default::default());
            let enc = &mut encoders[encoder % 2];
            let mut pass = gpu::color_pass(enc, &view);
            let mut binder = Binder::new();
            if was_stale && n == 0 {
                let (fb, q) = (&mut self.fb, &self.h.queue);
                let e = binder.draw_indirect(fb, q, &mut pass, &mut self.list, &mut self.draws, |_, _| {
                    panic!("a stale list sets nothing")
                });
                prop_assert!(matches!(e, Err(Error::StaleList)), "a list kept across a free: {:?}", e.err());
                drop(pass);
                self.relist();
                pass = gpu::color_pass(&mut encoders[encoder % 2], &view);
            }
            let order = self.listed.iter().map(|o| o.shader).collect::<Vec<_>>();
            let (pipelines, mut sets) = (&self.pipelines, Vec::new());
            let (fb, q) = (&mut self.fb, &self.h.queue);
            binder
                .draw_indirect(fb, q, &mut pass, &mut self.list, &mut self.draws, |pass, i| {
                    pass.set_pipeline(&pipelines[order[i]]);
                    sets.push(i);
                })
                .unwrap();
            drop(pass);
            let want_sets = (0..order.len())
                .filter(|&i| i == 0 || order[i] != order[i - 1] || self.geo[i].batch != self.geo[i - 1].batch)
                .collect::<Vec<_>>();
            prop_assert_eq!(sets, want_sets, "pass {}: set where the shader or the batch changes", n);
            expected.push(self.model(&flushed, &tints));
            targets.push(target);
        }
        self.h.queue.submit(encoders.map(|e| e.finish()));
        if submitted {
            self.draws.submitted();
        }
        for (n, (target, want)) in targets.iter().zip(expected).enumerate() {
            let enc = self.h.device.create_command_encoder(&Default::default());
            let words = gpu::read_texture(self.h, enc, target, 16);
            let seen =
                words.chunks(4).map(|c| [0, 1, 2, 3].map(|k| f32::from_bits(c[k]))).collect::<Vec<_>>();
            for (cell, (s, w)) in seen.iter().zip(&want).enumerate() {
                prop_assert_eq!(s, w, "device {}, pass {}, pixel {}", self.device, n, cell);
            }
        }
        Ok(())
    }

    /// Every pixel of a pass recorded now: each listed object's flushed
    /// color and tint, its first vertex in green, doubled by `fs_double`.
    fn model(&self, flushed: &[Object], tints: &[[f32; 4]; MATERIALS]) -> Vec<[f32; 4]> {
        let mut px = vec![BACKGROUND; CELLS];
        for (o, g) in self.listed.iter().zip(&self.geo) {
            if g.hidden {
                continue;
            }
            let c = flushed.iter().find(|f| f.id == o.id).expect("listed objects were flushed").color;
            let t = tints[o.material];
            let v = [c[0] + t[0], c[1] + t[1] + g.first as f32, c[2] + t[2], c[3] + t[3]];
            px[o.cell] = if o.shader == 1 { v.map(|x| x * 2.0) } else { v };
        }
        px
    }
}

fn pipelines(h: &Headless, fb: &Manager, shaders: [ShaderId; 2]) -> [wgpu::RenderPipeline; 2] {
    [0, 1].map(|k| {
        gpu::render_pipeline_with(h, fb, shaders[k], FORMAT, wgpu::PrimitiveTopology::PointList, ENTRIES[k])
    })
}

fn geo() -> impl Strategy<Value = Geo> {
    (prop::bool::weighted(0.2), 0u32..3, 0u32..3).prop_map(|(hidden, first, batch)| Geo {
        hidden,
        first,
        batch,
    })
}

fn op() -> impl Strategy<Value = Op> {
    let pass = (
        prop::collection::vec((any::<usize>(), geo()), 0..4),
        prop::collection::vec((any::<usize>(), any::<u32>()), 0..2),
        0usize..2,
    )
        .prop_map(|(changes, sets, encoder)| Pass { changes, sets, encoder });
    prop_oneof![
        3 => (any::<usize>(), any::<usize>(), any::<u32>())
            .prop_map(|(material, shader, seed)| Op::Create { material, shader, seed }),
        2 => any::<usize>().prop_map(Op::Free),
        3 => (any::<usize>(), any::<u32>()).prop_map(|(i, s)| Op::Color(i, s)),
        1 => (any::<usize>(), any::<u32>()).prop_map(|(i, s)| Op::Tint(i, s)),
        5 => (prop::collection::vec(pass, 1..4), any::<bool>())
            .prop_map(|(passes, submitted)| Op::Frame { passes, submitted }),
        1 => any::<usize>().prop_map(Op::Recreate),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, max_shrink_iters: 128, ..ProptestConfig::default() })]
    #[test]
    fn indirect_draws_in_several_passes_see_what_the_model_says(ops in prop::collection::vec(op(), 1..32)) {
        let Some(devices) = devices() else { return Ok(()) };
        let mut w = World::new(&devices[0]);
        for op in ops {
            w.apply(op)?;
        }
        // Every order ends with a frame, so the last changes are drawn too.
        let last = Pass { changes: Vec::new(), sets: Vec::new(), encoder: 0 };
        w.apply(Op::Frame { passes: vec![last], submitted: false })?;
    }
}
