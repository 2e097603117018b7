//! Multi-draw indirect: a draw list issued as runs (`Binder::draw_indirect`).
//! Each object is one point whose color is what its shader read from its
//! array element and its material; the target is read back after each step
//! and compared pixel by pixel with what the scene holds. The same steps run
//! with `INDIRECT_FIRST_INSTANCE` (one call per run), without it (draw by
//! draw) and without storage buffers (batched uniform arrays).

use crate::common;

use common::gpu;
use freqbuf::{
    Binder, Draw, DrawArgs, DrawList, Error, Headless, IndirectDraws, Manager, MaterialId, ObjectId,
    ShaderId, SlotPlan,
};

/// Two shaders of one layout: `fs` passes the color on, `fs_double` doubles it.
const SHADER: &str = "struct ObjectData { pos: vec4<f32>, color: vec4<f32>, _pad: array<vec4<f32>, 3> }
@group(3) @binding(0) var<storage, read> objects: array<ObjectData>;
struct Material { tint: vec4<f32> }
@group(2) @binding(0) var<uniform> material: Material;
struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs(@builtin(instance_index) i: u32) -> Out {
    return Out(vec4(objects[i].pos.xy, 0.0, 1.0), objects[i].color + material.tint);
}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> { return in.c; }
@fragment fn fs_double(in: Out) -> @location(0) vec4<f32> { return in.c * 2.0; }
";

const W: u32 = 64;
const N: u32 = 1000;
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

fn pixel(i: u32) -> [f32; 4] {
    let (x, y) = ((i % W) as f32 + 0.5, (i / W) as f32 + 0.5);
    let h = N.div_ceil(W) as f32;
    [x / W as f32 * 2.0 - 1.0, 1.0 - y / h * 2.0, 0.0, 1.0]
}

struct Scene<'h> {
    h: &'h Headless,
    fb: Manager,
    shaders: [ShaderId; 2],
    pipelines: [wgpu::RenderPipeline; 2],
    materials: Vec<MaterialId>,
    objects: Vec<ObjectId>,
    /// Each object's color, as set.
    colors: Vec<[f32; 4]>,
    target: wgpu::Texture,
}

impl<'h> Scene<'h> {
    fn new(h: &'h Headless) -> Self {
        let mut fb = Manager::with_downlevel(&h.device, SlotPlan::default(), h.downlevel);
        let whole =
            freqbuf::reflect::ShaderReflection::new("mdi.wgsl", freqbuf::reflect::ShaderSource::Wgsl(SHADER))
                .unwrap();
        let shaders =
            ["fs", "fs_double"].map(|fs| fb.register(whole.for_entry_points(&["vs", fs]).unwrap()).unwrap());
        let pipelines = [0, 1].map(|k| {
            let point = wgpu::PrimitiveTopology::PointList;
            gpu::render_pipeline_with(h, &fb, shaders[k], FORMAT, point, ["fs", "fs_double"][k])
        });
        let tint = fb.param("tint").unwrap();
        let materials = (0..5)
            .map(|k| {
                let m = fb.create_material();
                fb.material(m).set(tint, &[0.0f32, 0.0, k as f32 * 100.0, 0.0]).unwrap();
                m
            })
            .collect();
        let (pos, color) = (fb.param("pos").unwrap(), fb.param("color").unwrap());
        let mut objects = Vec::new();
        let mut colors = Vec::new();
        for i in 0..N {
            let o = fb.create_object();
            let c = [i as f32, 1.0, 0.0, 1.0];
            fb.object(o).set(pos, &pixel(i)).unwrap();
            fb.object(o).set(color, &c).unwrap();
            objects.push(o);
            colors.push(c);
        }
        fb.flush(&h.queue).unwrap();
        let size = wgpu::Extent3d { width: W, height: N.div_ceil(W), depth_or_array_layers: 1 };
        let usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
        let target = gpu::texture(h, FORMAT, size, usage);
        Self { h, fb, shaders, pipelines, materials, objects, colors, target }
    }

    /// Draw `i`: materials change every 7 draws, shaders every 300.
    fn draw_of(&self, i: usize) -> Draw {
        let shader = self.shaders[i / 300 % 2];
        Draw::new(shader).material(self.materials[i / 7 % 5]).object(self.objects[i])
    }

    fn list(&self) -> DrawList {
        let draws = (0..self.objects.len()).map(|i| self.draw_of(i)).collect::<Vec<_>>();
        self.fb.draw_list(&draws).unwrap()
    }

    /// One point per draw; the geometry batch changes every 128 draws.
    fn args(&self) -> IndirectDraws {
        IndirectDraws::new(
            (0..self.objects.len())
                .map(|i| DrawArgs { batch: i as u32 / 128, ..DrawArgs::vertices(1, 0) })
                .collect(),
        )
    }

    /// Runs as an independent model counts them; `uniform_batch`: elements
    /// per batched uniform array, whose change is a bind.
    fn expected_runs(&self, uniform_batch: Option<usize>) -> usize {
        (0..self.objects.len())
            .filter(|&i| {
                i == 0
                    || i % 7 == 0
                    || i % 300 == 0
                    || i % 128 == 0
                    || uniform_batch.is_some_and(|b| i % b == 0)
            })
            .count()
    }

    /// Draws through `draw_indirect`; returns the pixels and how often `set` was called.
    fn draw(
        &mut self,
        list: &mut DrawList,
        draws: &mut IndirectDraws,
    ) -> Result<(Vec<[f32; 4]>, Vec<usize>), Error> {
        let view = self.target.create_view(&Default::default());
        let mut enc = self.h.device.create_command_encoder(&Default::default());
        let mut sets = Vec::new();
        {
            let mut pass = gpu::color_pass(&mut enc, &view);
            let (pipelines, shaders) = (&self.pipelines, self.shaders);
            let shader_of = |i: usize| shaders.iter().position(|&s| s == self.draw_of(i).shader()).unwrap();
            let order = (0..list.len()).map(shader_of).collect::<Vec<_>>();
            Binder::new().draw_indirect(&mut self.fb, &self.h.queue, &mut pass, list, draws, |pass, i| {
                pass.set_pipeline(&pipelines[order[i]]);
                sets.push(i);
            })?;
        }
        let words = gpu::read_texture(self.h, enc, &self.target, 16);
        let px = words.chunks(4).map(|c| [0, 1, 2, 3].map(|k| f32::from_bits(c[k]))).collect();
        Ok((px, sets))
    }

    /// What pixel `i` must hold when draw `i` is drawn.
    fn expected(&self, i: usize) -> [f32; 4] {
        let c = self.colors[i];
        let tint = (i / 7 % 5) as f32 * 100.0;
        let v = [c[0], c[1], c[2] + tint, c[3]];
        if i / 300 % 2 == 1 { v.map(|x| x * 2.0) } else { v }
    }

    fn check(&self, px: &[[f32; 4]], skipped: Option<usize>) {
        for (i, seen) in px.iter().enumerate().take(self.objects.len()) {
            let want = if Some(i) == skipped { [0.0, 0.0, 0.0, 1.0] } else { self.expected(i) };
            assert_eq!(*seen, want, "draw {i}");
        }
    }
}

fn steps(h: &Headless, uniform_batch: Option<usize>) {
    let mut s = Scene::new(h);
    let (mut list, mut draws) = (s.list(), s.args());
    s.fb.take_stats();
    let (px, sets) = s.draw(&mut list, &mut draws).unwrap();
    s.check(&px, None);
    assert_eq!(draws.runs(), s.expected_runs(uniform_batch), "a run ends at a bind, a shader or a batch");
    let changes = (0..N as usize).filter(|&i| i == 0 || i % 300 == 0 || i % 128 == 0).collect::<Vec<_>>();
    assert_eq!(sets, changes, "set is called where the shader or the batch changes");
    let first = s.fb.take_stats().total();
    assert_eq!(first.bytes_uploaded, N as u64 * 16, "every draw's arguments once");
    let indirect = h.device.features().contains(wgpu::Features::INDIRECT_FIRST_INSTANCE);
    let calls = if indirect { draws.runs() as u64 } else { N as u64 };
    assert_eq!(first.draw_calls, calls, "one call per run, or per draw without first instances");

    // Nothing changed: no upload, and the same binds as the first frame.
    let (px, _) = s.draw(&mut list, &mut draws).unwrap();
    s.check(&px, None);
    let again = s.fb.take_stats().total();
    assert_eq!((again.bytes_uploaded, again.upload_calls), (0, 0));
    assert_eq!(again.set_bind_group_calls, first.set_bind_group_calls);

    // Values set between a flush and a draw reach it only after the next flush.
    let color = s.fb.param("color").unwrap();
    for i in (0..N as usize).step_by(11) {
        s.colors[i] = [i as f32, 5.0, 0.0, 1.0];
        s.fb.object(s.objects[i]).set(color, &s.colors[i]).unwrap();
    }
    s.fb.flush(&h.queue).unwrap();
    s.fb.take_stats();
    let (px, _) = s.draw(&mut list, &mut draws).unwrap();
    s.check(&px, None);

    // One draw's geometry changes: only its arguments are written.
    draws.set(5, DrawArgs { count: 0, ..draws.args()[5] });
    s.fb.take_stats();
    let (px, _) = s.draw(&mut list, &mut draws).unwrap();
    s.check(&px, Some(5));
    assert_eq!(s.fb.take_stats().total().bytes_uploaded, 16);
    draws.set(5, DrawArgs { count: 1, ..draws.args()[5] });

    // Growth: a new object moves the object buffer and the generation; the
    // runs are planned again from a new list.
    let o = s.fb.create_object();
    s.fb.object(o).set(color, &[9.0f32, 9.0, 9.0, 1.0]).unwrap();
    let generation = s.fb.generation();
    for _ in 0..2000 {
        s.fb.create_object();
    }
    s.fb.flush(&h.queue).unwrap();
    assert_ne!(s.fb.generation(), generation);
    let (px, _) = s.draw(&mut list, &mut draws).unwrap();
    s.check(&px, None);

    // A freed instance makes the list stale; a new list draws again.
    s.fb.free_object(o).unwrap();
    assert!(matches!(s.draw(&mut list, &mut draws), Err(Error::StaleList)));
    let mut list = s.list();
    let (px, _) = s.draw(&mut list, &mut draws).unwrap();
    s.check(&px, None);
    // Geometry for another number of draws is refused before anything is bound.
    let mut short = IndirectDraws::new(vec![DrawArgs::vertices(1, 0); 3]);
    let e = s.draw(&mut list, &mut short).unwrap_err();
    assert_eq!(e.to_string(), "indirect draws: 1000 draws in the list, geometry for 3");
}

#[test]
fn runs_draw_what_each_object_holds_with_indirect_first_instance() {
    let Some(h) = gpu::device_with(wgpu::Features::INDIRECT_FIRST_INSTANCE, |_| {}) else { return };
    steps(&h, None);
}

#[test]
fn without_indirect_first_instance_runs_are_drawn_draw_by_draw() {
    let Some(h) = gpu::device_with(wgpu::Features::empty(), |_| {}) else { return };
    assert!(!h.device.features().contains(wgpu::Features::INDIRECT_FIRST_INSTANCE));
    steps(&h, None);
}

#[test]
fn without_storage_buffers_runs_end_at_each_uniform_batch() {
    let Some(h) = gpu::device_with(wgpu::Features::INDIRECT_FIRST_INSTANCE, |l| {
        l.max_storage_buffers_per_shader_stage = 0
    }) else {
        return;
    };
    // 80-byte elements: 816 per 64 KiB uniform batch.
    steps(&h, Some(816));
}
