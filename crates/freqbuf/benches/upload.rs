//! The write paths for moved objects, and the flush that follows them.
//!
//! `cargo bench --all-features --bench upload`
//!
//! 100,000 objects in an array slot (`array<Object>`, 80 bytes each: a
//! `mat4x4` world and a `vec4` tint). Each sample moves 1%, 10% or 100% of
//! them, spread evenly, with a new world matrix, written three ways:
//! - `member`: one `object(id).set(world, m)` per object (a handle,
//!   frequency, type and bounds check per call);
//! - `batch`: one `Manager::batch(world)`, then `set(id, m)` per object;
//! - `listed`: the same batch writing by position in an `InstanceList`
//!   made once (`set_in`, no handle lookup);
//! - `all`: the same batch and list, every moved object in one
//!   `set_all_in` call (each write held back while its bytes are fetched);
//! - `row`: one `Manager::batch_struct` of the whole `Object`, then
//!   `set(id, row)` per object;
//! - `rows`: the same, in one `set_all` call;
//! - `caller`: a second manager whose object array is the application's
//!   (`Manager::own_rows`): the moved rows of the application's packed
//!   array (updated before the timing, as a renderer updates its scene) go
//!   straight into staging with `Manager::write_rows`, no shadow;
//! - `peer`: the hand-written peer's upload of the same rows from the same
//!   array (`storage_indirect`'s loop): each moved row by value into a
//!   `StagingBelt` chunk, then its index table; the whole array in one copy
//!   where half or more moved. The floor `caller` is measured against.
//!
//! The `flush` group times the flush that follows (`flush_into` an encoder
//! that is then submitted, plus the wait for the GPU), so the GPU-side
//! scatter counts: `shadow` after `batch` writes, `caller` after `caller`
//! writes. Runs on the first real adapter; exits if there is none.

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use freqbuf::{Headless, InstanceList, Manager, ObjectId, Param, Rows, ShaderStruct, SlotPlan, StructParam};

const SHADER: &str = r#"
struct Object { world: mat4x4<f32>, tint: vec4<f32> }
@group(3) @binding(0) var<storage, read> objects: array<Object>;
@vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> {
    return objects[i].world * objects[i].tint;
}
"#;

const OBJECTS: usize = 100_000;

/// Bytes of one `Packed` row.
const ROW: u64 = 80;

#[derive(Clone, Copy, Debug, Default, ShaderStruct)]
struct Object {
    world: [[f32; 4]; 4],
    tint: [f32; 4],
}

/// `Object` as the application packs it for a caller-owned slot.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Packed {
    world: [[f32; 4]; 4],
    tint: [f32; 4],
}

/// The caller-owned form: its own manager, list, rows and array.
struct Owned {
    manager: Manager,
    list: InstanceList,
    rows: Rows<Packed>,
    array: Vec<Packed>,
    moved: Vec<usize>,
    peer: Peer,
}

/// The hand-written peer's staging belt, destination buffers, and the
/// encoder its copies go into (made before the timing).
struct Peer {
    belt: wgpu::util::StagingBelt,
    src: wgpu::Buffer,
    idx: wgpu::Buffer,
    encoder: Option<wgpu::CommandEncoder>,
}

impl Peer {
    fn new(gpu: &Headless) -> Self {
        let buffer = |size| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("peer rows"),
                size,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        };
        let (src, idx) = (buffer(ROW * OBJECTS as u64), buffer(4 * OBJECTS as u64 + 4));
        Self { belt: wgpu::util::StagingBelt::new(gpu.device.clone(), 1 << 20), src, idx, encoder: None }
    }

    /// The moved rows of `array` into belt memory, as `storage_indirect` does.
    fn write(&mut self, array: &[Packed], moved: &[usize]) {
        let (belt, enc) = (&mut self.belt, self.encoder.as_mut().expect("made before the timing"));
        if moved.len() * 2 >= array.len() {
            let bytes: &[u8] = bytemuck::cast_slice(array);
            let size = wgpu::BufferSize::new(bytes.len() as u64).expect("rows");
            belt.write_buffer(enc, &self.src, 0, size).slice(..).copy_from_slice(bytes);
            return;
        }
        let Some(size) = wgpu::BufferSize::new(ROW * moved.len() as u64) else { return };
        let rows = moved.iter().map(|&k| bytemuck::cast::<Packed, [u8; ROW as usize]>(array[k]));
        belt.write_buffer(enc, &self.src, 0, size)
            .slice(..)
            .into_chunks::<{ ROW as usize }>()
            .0
            .write_iter(rows);
        // The count, then each row's destination.
        let word = |k: usize| if k == 0 { moved.len() as u32 } else { moved[k - 1] as u32 };
        let size = wgpu::BufferSize::new(4 * moved.len() as u64 + 4).expect("a count");
        let words = (0..=moved.len()).map(|k| word(k).to_le_bytes());
        belt.write_buffer(enc, &self.idx, 0, size).slice(..).into_chunks::<4>().0.write_iter(words);
    }
}

struct Setup {
    gpu: Headless,
    manager: Manager,
    owned: Owned,
    objects: Vec<ObjectId>,
    list: InstanceList,
    world: Param,
    row: StructParam<Object>,
    tick: f32,
}

#[derive(Clone, Copy, Debug)]
enum Path {
    Member,
    Batch,
    Listed,
    All,
    Row,
    Rows,
    Caller,
    Peer,
}

impl Setup {
    fn new(gpu: Headless) -> Self {
        let mut manager = Manager::new(&gpu.device, SlotPlan::default());
        manager.register_wgsl("objects.wgsl", SHADER).expect("valid shader");
        let world = manager.param("world").expect("declared");
        let row = manager.param_struct::<Object>("objects").expect("the block's layout");
        let objects = (0..OBJECTS).map(|_| manager.create_object()).collect::<Vec<_>>();
        let list = manager.instance_list(objects.iter().copied()).expect("live objects");
        manager.flush(&gpu.queue).expect("flush");
        let owned = Owned::new(&gpu);
        gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
        Self { gpu, manager, owned, objects, list, world, row, tick: 1.0 }
    }

    /// Writes a new world matrix on `moved` objects spread evenly, by `path`.
    fn write(&mut self, path: Path, moved: usize) {
        self.tick += 1.0;
        let step = (OBJECTS / moved.max(1)).max(1);
        let m = [[self.tick; 4]; 4];
        let ids = self.objects.iter().step_by(step).take(moved);
        match path {
            Path::Member => {
                for &o in ids {
                    self.manager.object(o).set(self.world, &m).expect("mat4");
                }
            }
            Path::Batch => {
                let mut worlds = self.manager.batch(self.world).expect("mat4");
                for &o in ids {
                    worlds.set(o, &m).expect("live");
                }
            }
            Path::Listed => {
                let mut worlds = self.manager.batch(self.world).expect("mat4");
                for k in (0..OBJECTS).step_by(step).take(moved) {
                    worlds.set_in(&self.list, k, &m).expect("live");
                }
            }
            Path::All => {
                let mut worlds = self.manager.batch(self.world).expect("mat4");
                let items = (0..OBJECTS).step_by(step).take(moved).map(|k| (k, &m));
                worlds.set_all_in(&self.list, items).expect("live");
            }
            Path::Row => {
                let row = Object { world: m, tint: [1.0; 4] };
                let mut rows = self.manager.batch_struct(self.row).expect("typed");
                for &o in ids {
                    rows.set(o, &row).expect("live");
                }
            }
            Path::Rows => {
                let row = Object { world: m, tint: [1.0; 4] };
                let mut rows = self.manager.batch_struct(self.row).expect("typed");
                rows.set_all(ids.map(|&o| (o, &row))).expect("live");
            }
            Path::Peer => {
                let o = &mut self.owned;
                o.peer.write(&o.array, &o.moved);
            }
            Path::Caller => {
                let o = &mut self.owned;
                o.manager.write_rows(&o.rows, &o.list, &o.array, o.moved.iter().copied()).expect("live");
            }
        }
    }

    /// The application's side of `caller`, untimed: the moved rows of its array.
    fn move_owned(&mut self, moved: usize) {
        let step = (OBJECTS / moved.max(1)).max(1);
        let o = &mut self.owned;
        o.moved.clear();
        o.moved.extend((0..OBJECTS).step_by(step).take(moved));
        for &k in &o.moved {
            o.array[k].world = [[self.tick; 4]; 4];
        }
    }

    /// Submits the peer's copies and waits for the GPU, as [`Setup::flush`] does.
    fn flush_peer(&mut self) {
        let peer = &mut self.owned.peer;
        peer.belt.finish();
        self.gpu.queue.submit(peer.encoder.take().map(wgpu::CommandEncoder::finish));
        peer.belt.recall();
        self.gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    }

    /// Flushes the caller-owned manager as [`Setup::flush`] does.
    fn flush_owned(&mut self) {
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        self.owned.manager.flush_into(&self.gpu.queue, &mut enc).expect("flush");
        self.gpu.queue.submit([enc.finish()]);
        self.gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    }

    /// Flushes into a frame encoder, submits it and waits for the GPU.
    fn flush(&mut self) {
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        self.manager.flush_into(&self.gpu.queue, &mut enc).expect("flush");
        self.gpu.queue.submit([enc.finish()]);
        self.gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    }
}

impl Owned {
    fn new(gpu: &Headless) -> Self {
        let mut manager = Manager::new(&gpu.device, SlotPlan::default());
        manager.register_wgsl("objects.wgsl", SHADER).expect("valid shader");
        let rows = manager.own_rows::<Packed>("objects").expect("80-byte rows");
        let objects = (0..OBJECTS).map(|_| manager.create_object()).collect::<Vec<_>>();
        let list = manager.instance_list(objects).expect("live objects");
        let array = vec![Packed { world: [[0.0; 4]; 4], tint: [1.0; 4] }; OBJECTS];
        manager.write_rows(&rows, &list, &array, []).expect("every row, once");
        manager.flush(&gpu.queue).expect("flush");
        Self { manager, list, rows, array, moved: Vec::new(), peer: Peer::new(gpu) }
    }
}

fn bench(c: &mut Criterion) {
    let Ok(gpu) = Headless::new() else {
        eprintln!("SKIPPED: the upload bench needs a GPU adapter");
        return;
    };
    let mut s = Setup::new(gpu);
    let shares = [1usize, 10, 100];
    let mut g = c.benchmark_group("write");
    for &pct in &shares {
        let moved = OBJECTS * pct / 100;
        g.throughput(Throughput::Elements(moved as u64));
        for path in [
            Path::Member,
            Path::Batch,
            Path::Listed,
            Path::All,
            Path::Row,
            Path::Rows,
            Path::Caller,
            Path::Peer,
        ] {
            g.bench_with_input(BenchmarkId::new(format!("{path:?}").to_lowercase(), pct), &moved, |b, &n| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        if let Path::Caller | Path::Peer = path {
                            s.tick += 1.0;
                            s.move_owned(n);
                        }
                        if let Path::Peer = path {
                            let enc = s.gpu.device.create_command_encoder(&Default::default());
                            s.owned.peer.encoder = Some(enc);
                        }
                        let start = Instant::now();
                        s.write(path, n);
                        total += start.elapsed();
                        match path {
                            Path::Caller => s.flush_owned(),
                            Path::Peer => s.flush_peer(),
                            _ => s.flush(),
                        }
                    }
                    total
                });
            });
        }
    }
    g.finish();
    let mut g = c.benchmark_group("flush");
    for &pct in &shares {
        let moved = OBJECTS * pct / 100;
        g.throughput(Throughput::Elements(moved as u64));
        for caller in [false, true] {
            let name = if caller { "caller" } else { "shadow" };
            g.bench_with_input(BenchmarkId::new(name, pct), &moved, |b, &n| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        if caller {
                            s.move_owned(n);
                            s.write(Path::Caller, n);
                        } else {
                            s.write(Path::Batch, n);
                        }
                        let start = Instant::now();
                        if caller {
                            s.flush_owned()
                        } else {
                            s.flush()
                        }
                        total += start.elapsed();
                    }
                    total
                });
            });
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
