//! Array slots: `var<storage, read> objects: array<ObjectData>` holds one
//! element per object. Each test draws one point per object whose color is
//! what the vertex shader read from its element, and reads the target back:
//! on lavapipe's storage buffers, and on a device requested without storage
//! buffers, where the slot falls back to batched uniform arrays. The same
//! scene is also encoded on several threads with shared access.

use crate::common;

use common::gpu;
use freqbuf::error::LayoutErrorKind;
use freqbuf::{Addressing, Binder, Draw, Error, Frequency, Headless, Manager, ObjectId, SlotPlan};

/// 80-byte elements: not a power of two, so that batches hold 816 of them.
/// One point per object, coloured by its element (rows.rs draws it too).
pub(crate) const SHADER: &str = "struct Frame { scale: vec4<f32> }
@group(0) @binding(0) var<uniform> frame: Frame;
struct ObjectData { pos: vec4<f32>, color: vec4<f32>, _pad: array<vec4<f32>, 3> }
@group(3) @binding(0) var<storage, read> objects: array<ObjectData>;
struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs(@builtin(instance_index) i: u32) -> Out {
    return Out(vec4(objects[i].pos.xy, 0.0, 1.0), objects[i].color * frame.scale);
}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> { return in.c; }
";

const W: u32 = 64;
const H: u32 = 32;
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

/// The centre of pixel `i`, in clip space.
fn pixel(i: u32) -> [f32; 4] {
    gpu::pixel_centre(i, (W, H))
}

fn color(i: u32, frame: u32) -> [f32; 4] {
    [i as f32, (i * 3 + frame) as f32, frame as f32, 1.0]
}

struct Scene<'h> {
    h: &'h Headless,
    fb: Manager,
    shader: freqbuf::ShaderId,
    pipeline: wgpu::RenderPipeline,
    objects: Vec<ObjectId>,
    target: wgpu::Texture,
}

impl<'h> Scene<'h> {
    fn new(h: &'h Headless) -> Self {
        let mut fb = Manager::with_downlevel(&h.device, SlotPlan::default(), h.downlevel);
        let shader = fb.register_wgsl("arrays.wgsl", SHADER).unwrap();
        let slot = fb.registry().slot_at(freqbuf::BindingPoint::new(3, 0)).unwrap();
        assert!(fb.registry()[slot].is_array());
        assert_eq!(fb.slot_stride(slot), Some(80), "elements at the struct's own stride");
        let pipeline = gpu::render_pipeline_for(h, &fb, shader, FORMAT, wgpu::PrimitiveTopology::PointList);
        let target = gpu::target(h, FORMAT, (W, H));
        let scale = fb.param("scale").unwrap();
        fb.frame().set(scale, &[1.0f32; 4]).unwrap();
        Self { h, fb, shader, pipeline, objects: Vec::new(), target }
    }

    fn add(&mut self, n: u32, frame: u32) {
        let (pos, col) = (self.fb.param("pos").unwrap(), self.fb.param("color").unwrap());
        for _ in 0..n {
            let i = self.objects.len() as u32;
            let o = self.fb.create_object();
            self.fb.object(o).set(pos, &pixel(i)).unwrap();
            self.fb.object(o).set(col, &color(i, frame)).unwrap();
            self.objects.push(o);
        }
    }

    /// Draws every object; returns the bind calls and each pixel's color.
    fn draw(&mut self) -> Result<(u64, Vec<[f32; 4]>), Error> {
        let objects = self.objects.clone();
        self.draw_these(&objects)
    }

    /// Every other object drawn alone, by handle and through a draw list,
    /// shows `full` (every object drawn, checked against the model) with
    /// the others' pixels clear. Each element holds its own pixel, so with
    /// every object drawn, a draw that read another object's element would
    /// leave the picture as it was; drawn alone, it lights the wrong pixel.
    fn check_alone(&mut self, full: &[[f32; 4]], what: &str) {
        let evens = self.objects.iter().step_by(2).copied().collect::<Vec<_>>();
        let n = self.objects.len();
        let want = full
            .iter()
            .enumerate()
            .map(|(i, &p)| if i < n && i % 2 == 1 { [0.0, 0.0, 0.0, 1.0] } else { p })
            .collect::<Vec<_>>();
        let (_, by_handle) = self.draw_these(&evens).unwrap();
        assert!(by_handle == want, "{what}: every other object drawn by handle");
        let draws = evens.iter().map(|&o| Draw::new(self.shader).object(o)).collect::<Vec<_>>();
        let mut list = self.fb.draw_list(&draws).unwrap();
        assert!(
            self.draw_listed(&mut list).unwrap() == want,
            "{what}: every other object drawn through a list"
        );
    }

    fn draw_these(&mut self, objects: &[ObjectId]) -> Result<(u64, Vec<[f32; 4]>), Error> {
        self.fb.take_stats();
        let view = self.target.create_view(&Default::default());
        let mut enc = self.h.device.create_command_encoder(&Default::default());
        {
            let mut pass = gpu::color_pass(&mut enc, &view);
            pass.set_pipeline(&self.pipeline);
            let mut binder = Binder::new();
            for &o in objects {
                let first = binder.bind(&mut self.fb, &mut pass, &Draw::new(self.shader).object(o))?;
                pass.draw(0..1, first..first + 1);
            }
        }
        let binds = self.fb.take_stats().total().set_bind_group_calls;
        Ok((binds, self.read(enc)))
    }

    /// Draws every object through a draw list made from their handles.
    fn draw_listed(&mut self, list: &mut freqbuf::DrawList) -> Result<Vec<[f32; 4]>, Error> {
        let view = self.target.create_view(&Default::default());
        let mut enc = self.h.device.create_command_encoder(&Default::default());
        {
            let mut pass = gpu::color_pass(&mut enc, &view);
            pass.set_pipeline(&self.pipeline);
            Binder::new().bind_list(&mut self.fb, &mut pass, list, |pass, _, first| {
                pass.draw(0..1, first..first + 1)
            })?;
        }
        Ok(self.read(enc))
    }

    fn draws(&self) -> Vec<Draw> {
        self.objects.iter().map(|&o| Draw::new(self.shader).object(o)).collect()
    }

    /// Copies the target out after what `enc` holds, submits and reads it back.
    fn read(&self, enc: wgpu::CommandEncoder) -> Vec<[f32; 4]> {
        let words = gpu::read_texture(self.h, enc, &self.target, 16);
        words.chunks(4).map(|c| [0, 1, 2, 3].map(|k| f32::from_bits(c[k]))).collect()
    }

    /// Encodes the draws on `threads` threads at once, each into its own
    /// bundle through a binder with shared access; returns the bind calls and pixels.
    fn draw_threaded(&self, threads: usize) -> Result<(u64, Vec<[f32; 4]>), Error> {
        let draws = self.objects.iter().map(|&o| Draw::new(self.shader).object(o)).collect::<Vec<_>>();
        let (state, pipeline) = (self.fb.state(), &self.pipeline);
        let chunk = draws.len().div_ceil(threads);
        let recorded = std::thread::scope(|scope| {
            let workers = draws
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        let mut enc = self.h.device.create_render_bundle_encoder(
                            &wgpu::RenderBundleEncoderDescriptor {
                                label: None,
                                color_formats: &[Some(FORMAT)],
                                depth_stencil: None,
                                sample_count: 1,
                                multiview: None,
                            },
                        );
                        enc.set_pipeline(pipeline);
                        let mut binder = Binder::new();
                        for d in part {
                            let first = binder.bind_prepared(&state, &mut enc, d)?;
                            enc.draw(0..1, first..first + 1);
                        }
                        Ok((binder.calls(), enc.finish(&Default::default())))
                    })
                })
                .collect::<Vec<_>>();
            workers.into_iter().map(|w| w.join().expect("no panic")).collect::<Result<Vec<_>, Error>>()
        })?;
        let view = self.target.create_view(&Default::default());
        let mut enc = self.h.device.create_command_encoder(&Default::default());
        gpu::color_pass(&mut enc, &view).execute_bundles(recorded.iter().map(|(_, b)| b));
        Ok((recorded.iter().map(|(c, _)| c).sum(), self.read(enc)))
    }
}

/// Values, flushes, growth and reuse, as the shader sees them; `batches`
/// says how many uniform batches the first 900 objects span (1 for storage),
/// and `addressing` how the manager says it addresses them.
fn objects_read_their_elements(h: &Headless, batches: u64, addressing: Addressing) {
    if !gpu::renders_to(h, FORMAT) {
        return;
    }
    let mut s = Scene::new(h);
    let slot = s.fb.registry().slot_at(freqbuf::BindingPoint::new(3, 0)).unwrap();
    assert_eq!(s.fb.slot_addressing(slot), Some(addressing));
    let frame = s.fb.registry().slot_at(freqbuf::BindingPoint::new(0, 0)).unwrap();
    assert_eq!(s.fb.slot_addressing(frame), Some(Addressing::Dynamic), "a uniform block");
    s.add(900, 0);
    s.fb.flush(&h.queue).unwrap();
    let (binds, px) = s.draw().unwrap();
    for i in 0..900 {
        assert_eq!(px[i as usize], color(i, 0), "object {i}");
    }
    // Groups 0..=3 once each (1 and 2 are empty), and once more per further batch.
    assert_eq!(binds, 4 + batches - 1, "the object group is bound once per batch, not per draw");

    // Values set after the flush reach the GPU only with the next one.
    let col = s.fb.param("color").unwrap();
    for i in (0..900).step_by(7) {
        s.fb.object(s.objects[i as usize]).set(col, &color(i, 1)).unwrap();
    }
    let (_, px) = s.draw().unwrap();
    assert_eq!(px[7], color(7, 0), "a draw before the flush sees the last flush");
    s.fb.flush(&h.queue).unwrap();
    let (_, px) = s.draw().unwrap();
    for i in 0..900 {
        assert_eq!(px[i as usize], color(i, if i % 7 == 0 { 1 } else { 0 }), "object {i}");
    }

    // Growth past the first buffer: refused until flushed, then read from the new buffer.
    let generation = s.fb.generation();
    s.add(900, 2);
    assert!(matches!(s.draw(), Err(Error::NotFlushed(Frequency::Object))));
    s.fb.flush(&h.queue).unwrap();
    assert_ne!(s.fb.generation(), generation, "the grown buffer replaced the bound one");
    let (_, px) = s.draw().unwrap();
    for i in 0..1800 {
        let frame = if i >= 900 {
            2
        } else if i % 7 == 0 {
            1
        } else {
            0
        };
        assert_eq!(px[i as usize], color(i, frame), "object {i}");
    }
    s.check_alone(&px, "grown");

    // A freed element is reused by the next object, which reads zero until set.
    s.fb.free_object(s.objects[3]).unwrap();
    let o = s.fb.create_object();
    s.objects[3] = o;
    let pos = s.fb.param("pos").unwrap();
    s.fb.object(o).set(pos, &pixel(3)).unwrap();
    s.fb.flush(&h.queue).unwrap();
    let (_, px) = s.draw().unwrap();
    assert_eq!(px[3], [0.0; 4]);
    assert_eq!(px[4], color(4, 0));
    // The last object moved into the freed element.
    assert_eq!(px[1799], color(1799, 2));
    s.check_alone(&px, "reused");
}

#[test]
fn storage_array_elements_reach_the_shader_with_one_bind_per_pass() {
    let Some(h) = gpu::device() else { return };
    assert!(
        h.downlevel.contains(wgpu::DownlevelFlags::VERTEX_STORAGE),
        "lavapipe reads storage in vertex shaders"
    );
    objects_read_their_elements(h, 1, Addressing::Storage);
}

#[test]
fn without_storage_buffers_array_slots_fall_back_to_uniform_batches() {
    let Some(h) = gpu::device_with_limits(|l| l.max_storage_buffers_per_shader_stage = 0) else { return };
    // 80-byte elements: 816 per 64 KiB batch, so 900 objects span two batches.
    objects_read_their_elements(&h, 2, Addressing::Batched { per: 816 });
}

#[test]
fn array_slot_rules_name_both_sides() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    fb.register_wgsl("arrays.wgsl", SHADER).unwrap();
    let short = "struct ObjectData { pos: vec4<f32>, color: vec4<f32> }
@group(3) @binding(0) var<storage, read> objects: array<ObjectData>;
@vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> { return objects[i].pos; }";
    let e = fb.register_wgsl("short.wgsl", short).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot lay out @group(3) @binding(0): the array slot's elements are 80 bytes apart in arrays.wgsl, but 32 in short.wgsl; every user of an array slot must declare the same element struct size"
    );
    assert!(
        matches!(e, Error::Layout { ref kind, .. } if matches!(**kind, LayoutErrorKind::ArrayStride { .. }))
    );

    let two = "struct M { tint: vec4<f32> }
struct O { pos: vec4<f32> }
@group(2) @binding(0) var<storage, read> mats: array<M>;
@group(3) @binding(1) var<storage, read> objs: array<O>;
@vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> { return objs[i].pos * mats[i].tint; }";
    let e = fb.register_wgsl("two.wgsl", two).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot lay out @group(3) @binding(1) for two.wgsl: array slots `mats` (material) and `objs` (object) have different frequencies; a draw passes one instance index, so a shader's array slots must share one frequency, unless one is a slab found through a member of the other (`materials[objects[i].material]`)"
    );
    // Nothing was committed: the first shader still draws.
    assert_eq!(fb.registry().shaders().len(), 1);
}

#[test]
fn an_element_that_cannot_be_a_uniform_array_is_refused_on_a_device_without_storage() {
    let Some(h) = gpu::device_with_limits(|l| l.max_storage_buffers_per_shader_stage = 0) else { return };
    let mut fb = Manager::with_downlevel(&h.device, SlotPlan::default(), h.downlevel);
    let narrow = "struct P { xy: vec2<f32> }
@group(3) @binding(0) var<storage, read> points: array<P>;
@vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> { return vec4(points[i].xy, 0.0, 1.0); }";
    let e = fb.register_wgsl("narrow.wgsl", narrow).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot register narrow.wgsl:2:23 (`points` at @group(3) @binding(0)): the device cannot read storage buffers in every stage (DownlevelFlags::VERTEX_STORAGE, max_storage_buffers_per_shader_stage), and the array slot cannot fall back to a uniform array: its elements are 8 bytes apart, and uniform arrays need a multiple of 16"
    );
    assert_eq!(fb.registry().shaders().len(), 0);
}

#[test]
fn threads_encode_one_frame_with_shared_access_after_prepare() {
    let Some(h) = gpu::device() else { return };
    if !gpu::renders_to(h, FORMAT) {
        return;
    }
    let mut s = Scene::new(h);
    s.add(900, 0);
    s.fb.flush(&h.queue).unwrap();
    // Nothing built yet: shared access cannot build, so it says what to do.
    let e = s.draw_threaded(2).unwrap_err();
    assert!(matches!(e, Error::NotPrepared { group: 0, .. }), "{e}");
    assert_eq!(
        common::chain(&e),
        "group 0 of arrays.wgsl has no bind group yet: call Manager::prepare with this draw before binding it with shared access"
    );
    let draws = s.objects.iter().map(|&o| Draw::new(s.shader).object(o)).collect::<Vec<_>>();
    s.fb.prepare(&draws).unwrap();
    let (_, single) = s.draw().unwrap();
    for threads in [1, 2, 3] {
        let (calls, px) = s.draw_threaded(threads).unwrap();
        assert_eq!(px, single, "{threads} threads draw what one does");
        assert_eq!(calls, 4 * threads as u64, "each bundle binds each group once");
    }
    // Growth replaces the object buffer: its groups must be prepared again.
    s.add(300, 1);
    s.fb.flush(&h.queue).unwrap();
    assert!(matches!(s.draw_threaded(2), Err(Error::NotPrepared { group: 3, .. })));
    let draws = s.objects.iter().map(|&o| Draw::new(s.shader).object(o)).collect::<Vec<_>>();
    s.fb.prepare(&draws).unwrap();
    let (_, px) = s.draw_threaded(2).unwrap();
    for i in 0..1200 {
        assert_eq!(px[i as usize], color(i, u32::from(i >= 900)), "object {i}");
    }
}

#[test]
fn a_draw_list_binds_what_handles_bind_until_an_instance_is_freed() {
    let Some(h) = gpu::device() else { return };
    if !gpu::renders_to(h, FORMAT) {
        return;
    }
    let mut s = Scene::new(h);
    s.add(900, 0);
    // Made before the flush, the new objects cannot be drawn yet.
    assert!(matches!(s.fb.draw_list(&s.draws()), Err(Error::NotFlushed(Frequency::Object))));
    s.fb.flush(&h.queue).unwrap();
    let mut list = s.fb.draw_list(&s.draws()).unwrap();
    assert_eq!(list.len(), 900);
    let (_, by_handle) = s.draw().unwrap();
    assert_eq!(s.draw_listed(&mut list).unwrap(), by_handle);

    // New values keep the generation: the recorded bind commands are
    // replayed, and the draws read the values of the last flush.
    let col = s.fb.param("color").unwrap();
    s.fb.object(s.objects[5]).set(col, &color(5, 9)).unwrap();
    let generation = s.fb.generation();
    s.fb.flush(&h.queue).unwrap();
    assert_eq!(s.fb.generation(), generation);
    let px = s.draw_listed(&mut list).unwrap();
    assert_eq!(px[5], color(5, 9));
    assert_eq!(px[6], color(6, 0));

    // A grown buffer moves the generation: the list binds it again (a replay
    // would bind the replaced buffer, which never saw the new value).
    s.fb.object(s.objects[6]).set(col, &color(6, 9)).unwrap();
    s.add(300, 1);
    s.fb.flush(&h.queue).unwrap();
    assert_ne!(s.fb.generation(), generation);
    let px = s.draw_listed(&mut list).unwrap();
    assert_eq!(px[6], color(6, 9));
    assert_eq!(px[899], color(899, 0));
    assert_eq!(px[900], [0.0, 0.0, 0.0, 1.0], "not in the list: the clear color");

    // A free may hand the index to another handle: the list is stale until made again.
    s.fb.free_object(s.objects.pop().unwrap()).unwrap();
    let e = s.draw_listed(&mut list).unwrap_err();
    assert!(matches!(e, Error::StaleList));
    assert_eq!(
        common::chain(&e),
        "the draw list is stale: an instance was freed since it was made, or another manager made it"
    );
    let mut list = s.fb.draw_list(&s.draws()).unwrap();
    let px = s.draw_listed(&mut list).unwrap();
    assert_eq!(px[1100], color(1100, 1));
    assert_eq!(px[1199], [0.0, 0.0, 0.0, 1.0], "freed: not drawn");

    // Another manager's list is refused.
    let mut other = Scene::new(h);
    other.add(1, 0);
    other.fb.flush(&h.queue).unwrap();
    let mut foreign = other.fb.draw_list(&other.draws()).unwrap();
    assert!(matches!(s.draw_listed(&mut foreign), Err(Error::StaleList)));
}

/// At frame frequency a storage array of structs is not an array slot (the
/// frame has one instance, so one element): it is a buffer of many elements
/// the frame owns, set with `set_buffer`, and a shader reads any of them.
#[test]
fn a_frame_frequency_storage_array_is_a_buffer_the_frame_owns() {
    let Some(h) = gpu::device() else { return };
    const SHADER: &str = "struct Light { color: vec4<f32>, range: f32 }
@group(0) @binding(1) var<storage, read> lights: array<Light>;
@group(2) @binding(0) var<storage, read_write> out: array<vec4<f32>, 1>;
@compute @workgroup_size(1) fn main() { out[0] = lights[2].color * lights[1].range; }";
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let shader = fb.register_wgsl("lights.wgsl", SHADER).unwrap();
    assert!(fb.registry().slot_at(freqbuf::BindingPoint::new(0, 1)).is_none(), "no slot of one element");
    let lights = fb.registry()[shader].resource(freqbuf::BindingPoint::new(0, 1)).unwrap();
    assert!(lights.array && lights.block.is_none());
    // Three lights of 32 bytes: color, range, padding.
    let words: Vec<f32> =
        (0..3).flat_map(|i| [i as f32, 10.0 + i as f32, 20.0, 30.0, 2.0 + i as f32, 0.0, 0.0, 0.0]).collect();
    let buffer = |usage, bytes: &[u8]| {
        let b = h.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: bytes.len() as u64,
            usage: usage | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        h.queue.write_buffer(&b, 0, bytes);
        b
    };
    let list = buffer(wgpu::BufferUsages::STORAGE, bytemuck::cast_slice(&words));
    let out = buffer(wgpu::BufferUsages::STORAGE, &[0; 16]);
    fb.frame().set_buffer("lights", &list).unwrap();
    let m = fb.create_material();
    fb.material(m).set_buffer("out", &out).unwrap();
    fb.flush(&h.queue).unwrap();
    gpu::dispatch(h, &mut fb, &[(Draw::new(shader).material(m), "main")]);
    let got = gpu::read_words(h, &out).into_iter().map(f32::from_bits).collect::<Vec<_>>();
    // lights[2].color * lights[1].range = (2, 12, 20, 30) * 3.
    assert_eq!(got, [6.0, 36.0, 60.0, 90.0]);
}

/// A point the plan makes the application's buffer (`SlotPlan::with_buffer`):
/// at view frequency, where it would be an array slot with one element per
/// view, a storage array of structs is a buffer the view sets, read at any
/// index (data the GPU writes, as Bevy's meshlet queues).
#[test]
fn an_application_buffer_at_view_frequency_is_not_an_array_slot() {
    let Some(h) = gpu::device() else { return };
    const SHADER: &str = "struct Item { value: vec4<f32> }
@group(1) @binding(1) var<storage, read> items: array<Item>;
@group(2) @binding(0) var<storage, read_write> out: array<vec4<f32>, 1>;
@compute @workgroup_size(1) fn main() { out[0] = items[3].value; }";
    let point = freqbuf::BindingPoint::new(1, 1);
    let mut slots = Manager::new(&h.device, SlotPlan::default());
    slots.register_wgsl("items.wgsl", SHADER).unwrap();
    assert!(slots.registry().slot_at(point).is_some(), "without the plan's word, an array slot");
    let mut fb = Manager::new(&h.device, SlotPlan::default().with_buffer(point));
    let shader = fb.register_wgsl("items.wgsl", SHADER).unwrap();
    assert!(fb.registry().slot_at(point).is_none());
    let words: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let storage = |bytes: &[u8]| {
        use wgpu::util::DeviceExt;
        h.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        })
    };
    let (items, out) = (storage(bytemuck::cast_slice(&words)), storage(&[0; 16]));
    let v = fb.create_view();
    fb.view(v).set_buffer("items", &items).unwrap();
    let m = fb.create_material();
    fb.material(m).set_buffer("out", &out).unwrap();
    fb.flush(&h.queue).unwrap();
    gpu::dispatch(h, &mut fb, &[(Draw::new(shader).view(v).material(m), "main")]);
    assert_eq!(gpu::floats(h, &out), [12.0, 13.0, 14.0, 15.0]);
}
