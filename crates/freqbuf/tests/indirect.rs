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

/// [`gpu::device_with`], where the device renders to [`FORMAT`].
fn device_with(
    features: wgpu::Features,
    adjust: impl FnOnce(&mut wgpu::Limits),
) -> Option<freqbuf::Headless> {
    gpu::device_with(features, adjust).filter(|h| gpu::renders_to(h, FORMAT))
}

fn pixel(i: u32) -> [f32; 4] {
    let (x, y) = ((i % W) as f32 + 0.5, (i / W) as f32 + 0.5);
    let h = N.div_ceil(W) as f32;
    [x / W as f32 * 2.0 - 1.0, 1.0 - y / h * 2.0, 0.0, 1.0]
}

fn pixels(words: &[u32]) -> Vec<[f32; 4]> {
    words.chunks(4).map(|c| [0, 1, 2, 3].map(|k| f32::from_bits(c[k]))).collect()
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

    fn list(&mut self) -> DrawList {
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
        let sets = self.encode(&mut enc, &view, list, draws)?;
        let words = gpu::read_texture(self.h, enc, &self.target, 16);
        Ok((pixels(&words), sets))
    }

    /// Records one pass of `draw_indirect` into `view`; returns where `set` was called.
    fn encode(
        &mut self,
        enc: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        list: &mut DrawList,
        draws: &mut IndirectDraws,
    ) -> Result<Vec<usize>, Error> {
        let mut sets = Vec::new();
        let mut pass = gpu::color_pass(enc, view);
        let (pipelines, shaders) = (&self.pipelines, self.shaders);
        let shader_of = |i: usize| shaders.iter().position(|&s| s == self.draw_of(i).shader()).unwrap();
        let order = (0..list.len()).map(shader_of).collect::<Vec<_>>();
        Binder::new().draw_indirect(&mut self.fb, &self.h.queue, &mut pass, list, draws, |pass, i| {
            pass.set_pipeline(&pipelines[order[i]]);
            sets.push(i);
        })?;
        Ok(sets)
    }

    /// Moves the manager to `h`'s device (recreate), with pipelines and a target there.
    fn move_to(&mut self, h: &'h Headless) {
        self.fb.recreate(&h.device).unwrap();
        self.h = h;
        self.pipelines = [0, 1].map(|k| {
            let point = wgpu::PrimitiveTopology::PointList;
            gpu::render_pipeline_with(h, &self.fb, self.shaders[k], FORMAT, point, ["fs", "fs_double"][k])
        });
        self.target = gpu::texture(h, FORMAT, self.target.size(), self.target.usage());
        self.fb.flush(&h.queue).unwrap();
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
    // A run's draws share one point and are consecutive objects: one
    // instanced command each, drawn by one call (or, without first
    // instances, one `draw` of that many instances).
    let runs = draws.runs() as u64;
    assert_eq!(first.bytes_uploaded, runs * 16, "every command's arguments once, one command per run");
    assert_eq!(first.draw_calls, runs, "one call per run");

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

    // One draw's geometry changes: its run's command splits in three (draws
    // 0 to 4, 5, then 6), so every command after it moves and the buffer is
    // written whole, once the application says the encoders that drew it
    // are submitted. Back again, the commands merge again.
    draws.submitted();
    draws.set(5, DrawArgs { count: 0, ..draws.args()[5] });
    s.fb.take_stats();
    let (px, _) = s.draw(&mut list, &mut draws).unwrap();
    s.check(&px, Some(5));
    assert_eq!(s.fb.take_stats().total().bytes_uploaded, (runs + 2) * 16);
    draws.submitted();
    draws.set(5, DrawArgs { count: 1, ..draws.args()[5] });
    let (px, _) = s.draw(&mut list, &mut draws).unwrap();
    s.check(&px, None);
    assert_eq!(s.fb.take_stats().total().bytes_uploaded, runs * 16);

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
    assert_eq!(e.to_string(), "cannot write the indirect draws: 1000 draws in the list, geometry for 3");
}

#[test]
fn runs_draw_what_each_object_holds_with_indirect_first_instance() {
    let Some(h) = device_with(wgpu::Features::INDIRECT_FIRST_INSTANCE, |_| {}) else { return };
    steps(&h, None);
}

#[test]
fn without_indirect_first_instance_runs_are_drawn_command_by_command() {
    let Some(h) = device_with(wgpu::Features::empty(), |_| {}) else { return };
    assert!(!h.device.features().contains(wgpu::Features::INDIRECT_FIRST_INSTANCE));
    steps(&h, None);
}

#[test]
fn without_storage_buffers_runs_end_at_each_uniform_batch() {
    let Some(h) =
        device_with(wgpu::Features::INDIRECT_FIRST_INSTANCE, |l| l.max_storage_buffers_per_shader_stage = 0)
    else {
        return;
    };
    // 80-byte elements: 816 per 64 KiB uniform batch.
    steps(&h, Some(816));
}

/// One `IndirectDraws` drawn in two passes of one encoder, its geometry
/// changed between them, before one submit: each pass draws its own
/// arguments (without `submitted`, the change goes to a new buffer), as the
/// command-by-command path does; and a change after a submit without
/// `submitted` writes every argument again.
fn two_passes_before_a_submit(h: &Headless) {
    let mut s = Scene::new(h);
    let (mut list, mut draws) = (s.list(), s.args());
    let second = gpu::texture(h, FORMAT, s.target.size(), s.target.usage());
    let mut enc = h.device.create_command_encoder(&Default::default());
    let view = s.target.create_view(&Default::default());
    s.encode(&mut enc, &view, &mut list, &mut draws).unwrap();
    draws.set(5, DrawArgs { count: 0, ..draws.args()[5] });
    let view = second.create_view(&Default::default());
    s.encode(&mut enc, &view, &mut list, &mut draws).unwrap();
    let first = pixels(&gpu::read_texture(h, enc, &s.target, 16));
    s.check(&first, None);
    let enc = h.device.create_command_encoder(&Default::default());
    s.check(&pixels(&gpu::read_texture(h, enc, &second, 16)), Some(5));
    // Submitted, but not said: a change writes every argument, to a new buffer.
    draws.set(5, DrawArgs { count: 1, ..draws.args()[5] });
    s.fb.take_stats();
    let (px, _) = s.draw(&mut list, &mut draws).unwrap();
    s.check(&px, None);
    // The commands merge back, one per run: every command moves either way.
    let written = draws.runs() as u64 * 16;
    assert_eq!(s.fb.take_stats().total().bytes_uploaded, written);
}

#[test]
fn one_indirect_draws_in_two_passes_before_a_submit_draws_each_its_own_arguments() {
    let Some(h) = device_with(wgpu::Features::INDIRECT_FIRST_INSTANCE, |_| {}) else { return };
    two_passes_before_a_submit(&h);
    let Some(h) = device_with(wgpu::Features::empty(), |_| {}) else { return };
    two_passes_before_a_submit(&h);
}

/// A kept `IndirectDraws` (and draw list) used after `recreate` onto a
/// device of a new wgpu Instance draws what the objects hold there: its
/// argument buffer of the old device is made again, not used (wgpu would
/// panic, or take another buffer with a repeated id).
#[test]
fn kept_indirect_draws_draw_after_recreate_on_a_new_instance() {
    let features = wgpu::Features::INDIRECT_FIRST_INSTANCE;
    let (Some(a), Some(b), Some(c)) =
        (device_with(features, |_| {}), device_with(features, |_| {}), device_with(features, |_| {}))
    else {
        return;
    };
    let mut s = Scene::new(&a);
    let (mut list, mut draws) = (s.list(), s.args());
    let (px, _) = s.draw(&mut list, &mut draws).unwrap();
    s.check(&px, None);
    for h in [&b, &c] {
        s.move_to(h);
        let (px, _) = s.draw(&mut list, &mut draws).unwrap();
        s.check(&px, None);
        // Geometry changed there too.
        draws.set(7, DrawArgs { count: 0, ..draws.args()[7] });
        let (px, _) = s.draw(&mut list, &mut draws).unwrap();
        s.check(&px, Some(7));
        draws.set(7, DrawArgs { count: 1, ..draws.args()[7] });
    }
}

/// Statistics and `Binder::calls` count the `set_bind_group` calls that
/// reached a pass: none for `prepare`, which builds groups into no pass, and
/// as many on the frame that records the list (into no pass, then replayed)
/// as on one that only replays it.
#[test]
fn bind_counts_are_what_reached_the_pass() {
    let Some(h) = device_with(wgpu::Features::INDIRECT_FIRST_INSTANCE, |_| {}) else { return };
    let mut s = Scene::new(&h);
    let all = (0..s.objects.len()).map(|i| s.draw_of(i)).collect::<Vec<_>>();
    s.fb.take_stats();
    s.fb.prepare(&all).unwrap();
    let prepared = s.fb.take_stats().total();
    assert!(prepared.bind_groups_created > 0, "{prepared:?}");
    assert_eq!(prepared.set_bind_group_calls, 0, "prepare sends nothing to a pass");

    let (mut list, mut args, mut binder) = (s.list(), s.args(), Binder::new());
    let view = s.target.create_view(&Default::default());
    let mut counted = Vec::new();
    for _ in 0..2 {
        let mut enc = h.device.create_command_encoder(&Default::default());
        let before = binder.calls();
        let mut pass = gpu::color_pass(&mut enc, &view);
        let pipelines = &s.pipelines;
        binder
            .draw_indirect(&mut s.fb, &h.queue, &mut pass, &mut list, &mut args, |pass, i| {
                pass.set_pipeline(&pipelines[i / 300 % 2])
            })
            .unwrap();
        drop(pass);
        h.queue.submit([enc.finish()]);
        args.submitted();
        let stats = s.fb.take_stats();
        counted.push((binder.calls() - before, stats.total().set_bind_group_calls, stats.bind_calls));
    }
    let (sent, stats, calls) = counted[0];
    assert!(sent > 0);
    assert_eq!(sent, stats, "the binder and the manager count the same calls");
    assert_eq!(counted[1], counted[0], "recording into no pass counts nothing");
    // Every call is a replay of the recording, each at its group index.
    assert_eq!((calls.replayed(), calls.total()), (sent, sent), "{calls:?}");
    assert_eq!(calls.first() + calls.layout() + calls.new_group() + calls.offsets(), 0, "{calls:?}");
    assert_eq!(calls.by_group().iter().sum::<u64>(), sent);
}

/// Draws whose elements are not consecutive (the list in reverse object
/// order, one shader and material, so one run) stay one command each, and
/// every object lands on its own pixel; the same objects in order are one
/// instanced command.
#[test]
fn elements_out_of_order_are_one_command_each_and_in_order_one_instanced_command() {
    let Some(h) = device_with(wgpu::Features::INDIRECT_FIRST_INSTANCE, |_| {}) else { return };
    let mut s = Scene::new(&h);
    for reverse in [true, false] {
        let mut order = (0..N as usize).collect::<Vec<_>>();
        if reverse {
            order.reverse();
        }
        let draws = order
            .iter()
            .map(|&i| Draw::new(s.shaders[0]).material(s.materials[0]).object(s.objects[i]))
            .collect::<Vec<_>>();
        let mut list = s.fb.draw_list(&draws).unwrap();
        let mut args = IndirectDraws::new(vec![DrawArgs::vertices(1, 0); N as usize]);
        s.fb.take_stats();
        let view = s.target.create_view(&Default::default());
        let mut enc = h.device.create_command_encoder(&Default::default());
        {
            let mut pass = gpu::color_pass(&mut enc, &view);
            let pipeline = &s.pipelines[0];
            Binder::new()
                .draw_indirect(&mut s.fb, &h.queue, &mut pass, &mut list, &mut args, |pass, _| {
                    pass.set_pipeline(pipeline)
                })
                .unwrap();
        }
        let px = pixels(&gpu::read_texture(&h, enc, &s.target, 16));
        for (i, seen) in px.iter().enumerate().take(N as usize) {
            assert_eq!(*seen, s.colors[i], "object {i}, reverse {reverse}");
        }
        assert_eq!(args.runs(), 1);
        let commands = if reverse { N as u64 } else { 1 };
        assert_eq!(s.fb.take_stats().total().bytes_uploaded, commands * 16, "reverse {reverse}");
    }
}
