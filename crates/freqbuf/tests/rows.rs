//! Caller-owned rows (`Manager::own_rows`, `Manager::write_rows`): an object
//! array and a dynamic-offset object block written from the test's own
//! packed array in varying shares, through growth, frees and reuse, a failed
//! flush and `recreate`; every row read back from what the shaders drew,
//! against the array. And the typed errors, as full text.

use crate::common;

use common::gpu;
use freqbuf::error::{ParamErrorKind, RowsErrorKind};
use freqbuf::{Binder, Draw, Error, Headless, InstanceList, Manager, ObjectId, Rows, SlotPlan};

/// An array of 80-byte `ObjectData`, one point per object, as arrays.rs draws.
use crate::arrays::SHADER as ARRAY;

/// The same rows as a uniform block: one dynamic offset per draw.
const BLOCK: &str = "struct ObjectData { pos: vec4<f32>, color: vec4<f32>, _pad: array<vec4<f32>, 3> }
@group(3) @binding(0) var<uniform> object: ObjectData;
struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs() -> Out { return Out(vec4(object.pos.xy, 0.0, 1.0), object.color); }
@fragment fn fs(in: Out) -> @location(0) vec4<f32> { return in.c; }
";

const W: u32 = 64;
const H: u32 = 64;
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

/// The shared device, where it can render to the float target (GL cannot).
fn device() -> Option<&'static Headless> {
    gpu::device().filter(|h| gpu::renders_to(h, FORMAT))
}

/// One element of `objects`, as the application packs it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct Row {
    pos: [f32; 4],
    color: [f32; 4],
    pad: [[f32; 4]; 3],
}

fn row(pixel: u32, value: u32) -> Row {
    let color = [pixel as f32, value as f32, (value % 7) as f32, 1.0];
    Row { pos: gpu::pixel_centre(pixel, (W, H)), color, pad: [[0.0; 4]; 3] }
}

struct Scene<'h> {
    h: &'h Headless,
    fb: Manager,
    shader: freqbuf::ShaderId,
    array: bool,
    pipeline: wgpu::RenderPipeline,
    target: wgpu::Texture,
    objects: Vec<ObjectId>,
    /// The application's array, in the order of `list`: the model.
    rows: Vec<Row>,
    list: InstanceList,
    owned: Rows<Row>,
}

impl<'h> Scene<'h> {
    fn new(h: &'h Headless, array: bool, n: u32) -> Self {
        Self::in_order(h, array, n, false)
    }

    /// With `swapped`, the list holds the first and last objects made in
    /// each other's place (a list that is not consecutive instances: its
    /// positions map through its table).
    fn in_order(h: &'h Headless, array: bool, n: u32, swapped: bool) -> Self {
        let mut fb = Manager::with_downlevel(&h.device, SlotPlan::default(), h.downlevel);
        let shader = fb.register_wgsl("rows.wgsl", if array { ARRAY } else { BLOCK }).unwrap();
        if array {
            let scale = fb.param("scale").unwrap();
            fb.frame().set(scale, &[1.0f32; 4]).unwrap();
        }
        let pipeline = gpu::render_pipeline_for(h, &fb, shader, FORMAT, wgpu::PrimitiveTopology::PointList);
        let owned = fb.own_rows::<Row>("ObjectData").unwrap();
        let mut objects = (0..n).map(|_| fb.create_object()).collect::<Vec<_>>();
        if swapped {
            objects.swap(0, n as usize - 1);
        }
        let list = fb.instance_list(objects.iter().copied()).unwrap();
        let rows = (0..n).map(|i| row(i, 0)).collect();
        let target = gpu::target(h, FORMAT, (W, H));
        Self { h, fb, shader, array, pipeline, target, objects, rows, list, owned }
    }

    /// Changes the rows at `changed` in the model and writes them.
    fn write(&mut self, changed: &[usize], value: u32) -> Result<(), Error> {
        for &p in changed {
            self.rows[p] = row(p as u32, value);
        }
        self.fb.write_rows(&self.owned, &self.list, &self.rows, changed.iter().copied())
    }

    /// Draws every object (one point each) and returns each pixel's colour.
    fn draw(&mut self) -> Result<Vec<[f32; 4]>, Error> {
        draw_points(self.h, &mut self.fb, self.shader, &self.pipeline, &self.objects, self.array)
    }

    /// Draws every object through a draw list (its recording replayed while
    /// the manager's generation holds).
    #[cfg_attr(not(feature = "fault-injection"), allow(dead_code))]
    fn draw_listed(&mut self, list: &mut freqbuf::DrawList) -> Result<(), Error> {
        let view = self.target.create_view(&Default::default());
        let mut enc = self.h.device.create_command_encoder(&Default::default());
        let mut pass = gpu::color_pass(&mut enc, &view);
        pass.set_pipeline(&self.pipeline);
        Binder::new()
            .bind_list(&mut self.fb, &mut pass, list, |pass, _, first| pass.draw(0..1, first..first + 1))
    }

    /// Every object's pixel shows its row of the model. Then every other
    /// object drawn alone lights only its own rows' pixels: a row landed at
    /// another object's place would show where that object is drawn.
    fn check(&mut self, what: &str) {
        let pixels = self.draw().unwrap_or_else(|e| panic!("{what}: {e}"));
        for (p, r) in self.rows.iter().enumerate() {
            let pixel = r.color[0] as usize;
            assert_eq!(pixels[pixel], r.color, "{what}: row {p}");
        }
        let evens = self.objects.iter().step_by(2).copied().collect::<Vec<_>>();
        let pixels = draw_points(self.h, &mut self.fb, self.shader, &self.pipeline, &evens, self.array)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        for (p, r) in self.rows.iter().enumerate() {
            let want = if p % 2 == 0 { r.color } else { [0.0, 0.0, 0.0, 1.0] };
            assert_eq!(pixels[r.color[0] as usize], want, "{what}: row {p}, every other object drawn");
        }
    }

    fn rebuild_list(&mut self) {
        self.list = self.fb.instance_list(self.objects.iter().copied()).unwrap();
    }
}

/// Positions `0..n` in steps of `step`.
fn every(n: usize, step: usize) -> Vec<usize> {
    (0..n).step_by(step).collect()
}

fn unwritten(e: &Error) -> bool {
    matches!(e, Error::Rows { kind: RowsErrorKind::Unwritten { .. }, .. })
}

fn shares(array: bool, swapped: bool) {
    let Some(h) = device() else { return };
    let mut s = Scene::in_order(h, array, 600, swapped);
    // The buffer row each position's object was made at.
    let row_of = |p: usize| match (swapped, p) {
        (true, 0) => 599,
        (true, 599) => 0,
        _ => p,
    };
    s.fb.flush(&h.queue).unwrap();
    let e = s.draw().unwrap_err();
    assert!(unwritten(&e), "a row never written is not drawn: {e}");
    s.write(&[], 0).unwrap(); // packs every unwritten row the list holds
    s.fb.flush(&h.queue).unwrap();
    s.check("first write");
    // One row, a few runs (copies), scattered tenths and halves (scatter),
    // 40 runs of 10 rows (scatter, by pairs of words in an array), all.
    let tens = (0..600).filter(|i| i % 15 < 10).collect::<Vec<usize>>();
    for (k, changed) in
        [vec![5], vec![0, 1, 2, 40, 41, 599], every(600, 10), every(600, 2), tens, every(600, 1), vec![]]
            .into_iter()
            .enumerate()
    {
        s.fb.take_stats();
        s.write(&changed, k as u32 + 1).unwrap();
        s.fb.flush(&h.queue).unwrap();
        let t = s.fb.take_stats().total();
        let mut in_buffer = changed.iter().map(|&p| row_of(p)).collect::<Vec<_>>();
        in_buffer.sort_unstable();
        // Rows touch in an array's buffer, not a stride apart: runs, not rows, count.
        let runs = match array {
            true => 1 + in_buffer.windows(2).filter(|w| w[1] != w[0] + 1).count(),
            false => changed.len(),
        };
        let (copies, dispatches) = if runs > 32 { (0, 1) } else { (runs as u64, 0) };
        assert_eq!((t.copy_commands, t.dispatches), (copies * !changed.is_empty() as u64, dispatches), "{k}");
        // The rows' bytes, and for a scatter its table, after the alignment
        // of its start: a 16-byte header and 4 bytes a row (a destination),
        // or 8 bytes (destination, source) a piece of at most 256 bytes of
        // a run, a header and an end, whichever is smaller.
        let data = changed.len() as u64 * 80;
        let pieces = match array {
            true => {
                in_buffer.chunk_by(|a, b| *b == *a + 1).map(|r| (r.len() as u64 * 80).div_ceil(256)).sum()
            }
            false => changed.len() as u64,
        };
        let table = if dispatches == 1 { (4 * changed.len() as u64 + 16).min(8 * pieces + 16) } else { 0 };
        let align = h.device.limits().min_storage_buffer_offset_alignment as u64;
        assert!(
            (data + table..=data + table + align).contains(&t.bytes_uploaded),
            "{k}: {}",
            t.bytes_uploaded
        );
        s.check(&format!("share {k} ({} rows)", changed.len()));
    }
    // Two writes of the same rows before one flush: the later lands.
    s.write(&every(600, 3), 20).unwrap();
    s.write(&every(600, 6), 21).unwrap();
    s.fb.flush(&h.queue).unwrap();
    s.check("two writes, one flush");

    // Growth past the buffer: the new rows are unwritten until the list holds
    // them. The old list's scattered rows are staged before the flush that
    // grows the buffer, so they move after its growth copy, into the new buffer.
    let more = (0..700).map(|_| s.fb.create_object()).collect::<Vec<_>>();
    s.write(&every(600, 7), 30).unwrap(); // the old list: the new rows wait
    s.fb.flush(&h.queue).unwrap();
    s.objects.extend(more);
    s.rows.extend((600..1300).map(|i| row(i, 31)));
    s.fb.flush(&h.queue).unwrap();
    assert!(unwritten(&s.draw().unwrap_err()), "new rows are not drawn before they are written");
    s.rebuild_list();
    s.write(&every(1300, 9), 32).unwrap();
    s.fb.flush(&h.queue).unwrap();
    s.check("grown");

    // Frees and reuse: the old list is stale; a reused index is unwritten.
    for o in s.objects.drain(1290..) {
        s.fb.free_object(o).unwrap();
    }
    s.rows.truncate(1290);
    let stale = s.fb.write_rows(&s.owned, &s.list, &s.rows, [0]);
    assert!(matches!(stale, Err(Error::StaleInstanceList)), "{stale:?}");
    s.objects.extend((0..10).map(|_| s.fb.create_object()));
    s.rows.extend((1290..1300).map(|i| row(i, 41)));
    s.rebuild_list();
    s.fb.flush(&h.queue).unwrap();
    assert!(unwritten(&s.draw().unwrap_err()), "a reused index is unwritten");
    s.write(&[3], 42).unwrap();
    s.fb.flush(&h.queue).unwrap();
    s.check("reused");
}

#[test]
fn an_object_array_written_from_the_callers_rows_in_every_share() {
    shares(true, false);
}

#[test]
fn a_dynamic_offset_block_written_from_the_callers_rows_in_every_share() {
    shares(false, false);
}

/// The same through a list that is not consecutive instances, so its
/// positions map through its table (fetched ahead), and the rows of a
/// write come out of order.
#[test]
fn rows_written_through_a_list_out_of_creation_order() {
    shares(true, true);
    shares(false, true);
}

#[cfg(feature = "fault-injection")]
#[test]
fn rows_whose_flush_failed_are_unwritten_until_the_next_write_packs_them() {
    use freqbuf::fault::FaultSite;
    let Some(h) = device() else { return };
    for (site, changed) in [(FaultSite::Scatter, every(600, 3)), (FaultSite::Create, every(600, 3))] {
        let mut s = Scene::new(h, true, 600);
        s.write(&[], 0).unwrap();
        s.fb.flush(&h.queue).unwrap();
        s.write(&changed, 1).unwrap();
        let draws = s.objects.iter().map(|&o| Draw::new(s.shader).object(o)).collect::<Vec<_>>();
        let mut list = s.fb.draw_list(&draws).unwrap();
        s.draw_listed(&mut list).unwrap(); // recorded while every row was written
        freqbuf::fault::fail_nth(site, 0);
        let failed = s.fb.flush(&h.queue);
        assert!(!freqbuf::fault::disarm(), "{site:?} fired");
        assert!(common::chain(&failed.unwrap_err()).contains("injected fault"));
        let e = s.draw().unwrap_err();
        assert!(unwritten(&e), "{site:?}: {e}");
        let e = s.draw_listed(&mut list).unwrap_err();
        assert!(unwritten(&e), "{site:?}: a recorded list is checked again: {e}");
        // Nothing else changed: the write packs the lost rows from the array.
        s.write(&[], 2).unwrap();
        s.fb.flush(&h.queue).unwrap();
        s.check(&format!("after a failed {site:?}"));
    }
}

#[test]
fn after_recreate_every_row_is_written_again_before_it_is_drawn() {
    let Some(h) = device() else { return };
    let Some(h2) = gpu::device_with_limits(|_| {}).filter(|h| gpu::renders_to(h, FORMAT)) else { return };
    let mut s = Scene::new(h, true, 300);
    s.write(&[], 0).unwrap();
    s.fb.flush(&h.queue).unwrap();
    s.check("before");
    s.fb.recreate(&h2.device).unwrap();
    s.h = &h2;
    s.pipeline = gpu::render_pipeline_for(&h2, &s.fb, s.shader, FORMAT, wgpu::PrimitiveTopology::PointList);
    s.target = gpu::target(&h2, FORMAT, (W, H));
    let scale = s.fb.param("scale").unwrap();
    s.fb.frame().set(scale, &[1.0f32; 4]).unwrap();
    s.fb.flush(&h2.queue).unwrap();
    let e = s.draw().unwrap_err();
    assert!(unwritten(&e), "{e}");
    s.write(&every(300, 5), 1).unwrap();
    s.fb.flush(&h2.queue).unwrap();
    s.check("after recreate");
}

#[test]
fn caller_owned_rows_refuse_what_does_not_fit() {
    let Some(h) = device() else { return };
    let mut s = Scene::new(h, true, 4);
    let full = |e: Error| common::chain(&e);
    let short = s.fb.write_rows(&s.owned, &s.list, &s.rows[..3], [0]).unwrap_err();
    assert_eq!(
        full(short),
        "cannot use the rows of slot @group(3) @binding(0): the array holds 3 rows, and the instance list 4"
    );
    let wrong = s.fb.own_rows::<[f32; 4]>("ObjectData").unwrap_err();
    assert_eq!(
        full(wrong),
        "cannot use the rows of slot @group(3) @binding(0): a row of `[f32; 4]` is 16 bytes, and the block's row is 80"
    );
    let pos = s.fb.param("pos").unwrap();
    let set = s.fb.object(s.objects[0]).set(pos, &[0.0f32; 4]).unwrap_err();
    assert!(matches!(&set, Error::Param(p) if p.kind == ParamErrorKind::CallerOwned), "{set}");
    assert_eq!(
        full(set),
        "cannot use parameter `pos`: the slot's rows belong to the application; write them with Manager::write_rows"
    );
    let past = s.fb.write_rows(&s.owned, &s.list, &s.rows, [9]).unwrap_err();
    assert_eq!(full(past), "position 9 is past the end of an instance list of 4");
    // A list another manager made.
    let mut other = Manager::new(&h.device, SlotPlan::default());
    other.register_wgsl("rows.wgsl", ARRAY).unwrap();
    let made = (0..4).map(|_| other.create_object()).collect::<Vec<_>>();
    let theirs = other.instance_list(made).unwrap();
    let foreign = s.fb.write_rows(&s.owned, &theirs, &s.rows, [0]).unwrap_err();
    assert!(matches!(foreign, Error::StaleInstanceList), "{foreign}");
    // Rows another manager handed over.
    let their_rows = other.own_rows::<Row>("ObjectData").unwrap();
    let foreign = s.fb.write_rows(&their_rows, &s.list, &s.rows, [0]).unwrap_err();
    assert!(matches!(foreign, Error::Foreign("rows")), "{foreign}");
    // A list of views.
    let view = s.fb.create_view();
    let views = s.fb.instance_list([view]).unwrap();
    let e = s.fb.write_rows(&s.owned, &views, &s.rows, [0]).unwrap_err();
    assert_eq!(
        full(e),
        "cannot use the rows of slot @group(3) @binding(0): the instance list holds view instances, and the slot is of object frequency"
    );
    // Nothing refused was written: every row is still unwritten.
    s.fb.flush(&h.queue).unwrap();
    assert!(unwritten(&s.draw().unwrap_err()));
}

/// Rows of 320 bytes, colour last: a scatter row moves at most 256 bytes,
/// so each row is cut in two, and a dynamic-offset slot's rows lie 512
/// bytes apart. Packed by a closure (`write_rows_with`), every third row.
#[test]
fn long_rows_packed_by_a_closure_are_cut_into_scatter_rows() {
    let Some(h) = device() else { return };
    for array in [true, false] {
        let decl = "struct ObjectData { pos: vec4<f32>, _pad: array<vec4<f32>, 18>, color: vec4<f32> }\n";
        let source = match array {
            true => format!(
                "{decl}@group(3) @binding(0) var<storage, read> objects: array<ObjectData>;
struct Out {{ @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }}
@vertex fn vs(@builtin(instance_index) i: u32) -> Out {{ return Out(vec4(objects[i].pos.xy, 0.0, 1.0), objects[i].color); }}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> {{ return in.c; }}"
            ),
            false => format!(
                "{decl}@group(3) @binding(0) var<uniform> object: ObjectData;
struct Out {{ @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }}
@vertex fn vs() -> Out {{ return Out(vec4(object.pos.xy, 0.0, 1.0), object.color); }}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> {{ return in.c; }}"
            ),
        };
        let mut fb = Manager::new(&h.device, SlotPlan::default());
        let shader = fb.register_wgsl("long.wgsl", &source).unwrap();
        let pipeline = gpu::render_pipeline_for(h, &fb, shader, FORMAT, wgpu::PrimitiveTopology::PointList);
        let rows = fb.own_rows::<u8>("ObjectData").unwrap();
        let objects = (0..300).map(|_| fb.create_object()).collect::<Vec<_>>();
        let list = fb.instance_list(objects.iter().copied()).unwrap();
        let mut colors = (0..300).map(|i| [i as f32, 0.0, 0.0, 1.0]).collect::<Vec<_>>();
        let write = |fb: &mut Manager, colors: &[[f32; 4]], changed: Vec<usize>| {
            fb.write_rows_with(&rows, &list, changed, |p, mut out| {
                let mut bytes = [0u8; 320];
                bytes[..16].copy_from_slice(bytemuck::bytes_of(&gpu::pixel_centre(p as u32, (W, H))));
                bytes[304..].copy_from_slice(bytemuck::bytes_of(&colors[p]));
                out.copy_from_slice(&bytes);
            })
            .unwrap();
        };
        write(&mut fb, &colors, Vec::new());
        fb.flush(&h.queue).unwrap();
        for (p, c) in colors.iter_mut().enumerate().step_by(3) {
            c[1] = p as f32 + 0.5;
        }
        fb.take_stats();
        write(&mut fb, &colors, every(300, 3));
        fb.flush(&h.queue).unwrap();
        assert_eq!(fb.take_stats().total().dispatches, 1, "100 runs go through the scatter");
        let pixels = draw_points(h, &mut fb, shader, &pipeline, &objects, array).unwrap();
        for (p, c) in colors.iter().enumerate() {
            assert_eq!(&pixels[p], c, "array {array}: row {p}");
        }
    }
}

/// Draws one point per object (an array element by instance index, or a
/// dynamic offset per draw) and returns each pixel's colour.
fn draw_points(
    h: &Headless,
    fb: &mut Manager,
    shader: freqbuf::ShaderId,
    pipeline: &wgpu::RenderPipeline,
    objects: &[ObjectId],
    array: bool,
) -> Result<Vec<[f32; 4]>, Error> {
    let target = gpu::target(h, FORMAT, (W, H));
    let view = target.create_view(&Default::default());
    let mut enc = h.device.create_command_encoder(&Default::default());
    {
        let mut pass = gpu::color_pass(&mut enc, &view);
        pass.set_pipeline(pipeline);
        let mut binder = Binder::new();
        for &o in objects {
            let first = binder.bind(fb, &mut pass, &Draw::new(shader).object(o))?;
            pass.draw(0..1, if array { first..first + 1 } else { 0..1 });
        }
    }
    let words = gpu::read_texture(h, enc, &target, 16);
    Ok(words.chunks(4).map(|c| [0, 1, 2, 3].map(|k| f32::from_bits(c[k]))).collect())
}

/// The rows of a derived `ShaderStruct`, checked against the block once and
/// written in their buffer form (the block's padding members zero); a struct
/// lacking a member is refused.
#[test]
fn typed_rows_are_checked_once_and_written_in_their_buffer_form() {
    #[derive(Clone, Copy, Debug, freqbuf::ShaderStruct)]
    struct TypedRow {
        pos: [f32; 4],
        color: [f32; 4],
    }
    #[derive(Clone, Copy, Debug, freqbuf::ShaderStruct)]
    struct Partial {
        pos: [f32; 4],
    }
    let Some(h) = device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let shader = fb.register_wgsl("rows.wgsl", ARRAY).unwrap();
    let scale = fb.param("scale").unwrap();
    fb.frame().set(scale, &[1.0f32; 4]).unwrap();
    let pipeline = gpu::render_pipeline_for(h, &fb, shader, FORMAT, wgpu::PrimitiveTopology::PointList);
    let partial = fb.own_struct_rows::<Partial>("ObjectData").unwrap_err();
    assert_eq!(
        common::chain(&partial),
        "cannot use the rows of slot @group(3) @binding(0): `Partial` has no field for `color`; a row is written whole"
    );
    let rows = fb.own_struct_rows::<TypedRow>("ObjectData").unwrap();
    let objects = (0..50).map(|_| fb.create_object()).collect::<Vec<_>>();
    let list = fb.instance_list(objects.iter().copied()).unwrap();
    let mut all = (0..50u32)
        .map(|i| TypedRow { pos: gpu::pixel_centre(i, (W, H)), color: [i as f32, 1.0, 0.0, 1.0] })
        .collect::<Vec<_>>();
    fb.write_struct_rows(&rows, &list, &all, []).unwrap();
    fb.flush(&h.queue).unwrap();
    for (p, r) in all.iter_mut().enumerate().step_by(2) {
        r.color[1] = p as f32 * 2.0;
    }
    fb.write_struct_rows(&rows, &list, &all, every(50, 2)).unwrap();
    fb.flush(&h.queue).unwrap();
    let pixels = draw_points(h, &mut fb, shader, &pipeline, &objects, true).unwrap();
    for (p, r) in all.iter().enumerate() {
        assert_eq!(pixels[p], r.color, "row {p}");
    }
}
