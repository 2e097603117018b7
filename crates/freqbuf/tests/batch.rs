//! Batches: one member (`Manager::batch`) or one typed block
//! (`Manager::batch_struct`) written on many instances. A compute shader
//! copies the whole object array slot out, and every element is compared
//! with a model after writes, unchanged writes, frees and reuse, refused
//! writes and several flushes.

use crate::common;

use common::gpu;
use freqbuf::error::ParamErrorKind;
use freqbuf::{Draw, Error, FlushStrategy, Manager, ObjectId, ShaderId, ShaderStruct, SlotPlan};

const SHADER: &str = "
struct Object { world: mat4x4<f32>, tint: vec4<f32> }
@group(3) @binding(0) var<storage, read> objects: array<Object>;
@group(0) @binding(0) var<storage, read_write> out: array<Object>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if g.x < arrayLength(&out) && g.x < arrayLength(&objects) { out[g.x] = objects[g.x]; }
}";

/// The object block as a typed row.
#[derive(Clone, Copy, Debug, Default, PartialEq, ShaderStruct)]
struct Object {
    world: [[f32; 4]; 4],
    tint: [f32; 4],
}

const N: usize = 300;
/// Floats per element: a mat4 and a vec4.
const WORDS: usize = 20;

fn world(seed: usize) -> [[f32; 4]; 4] {
    std::array::from_fn(|c| std::array::from_fn(|r| (seed * 16 + c * 4 + r) as f32))
}

struct Rig {
    fb: Manager,
    shader: ShaderId,
    out: wgpu::Buffer,
}

impl Rig {
    fn new(h: &freqbuf::Headless) -> Self {
        Self::with_strategy(h, FlushStrategy::Auto)
    }

    fn with_strategy(h: &freqbuf::Headless, strategy: FlushStrategy) -> Self {
        let mut fb = Manager::with_strategy(&h.device, SlotPlan::default(), strategy);
        let shader = fb.register_wgsl("batch.wgsl", SHADER).unwrap();
        let out = h.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("out"),
            size: (N * WORDS * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        fb.frame().set_buffer("out", &out).unwrap();
        Self { fb, shader, out }
    }

    /// Flushes, copies the array slot out on the GPU and reads it back.
    fn read(&mut self, h: &freqbuf::Headless, any: ObjectId) -> Vec<f32> {
        self.fb.flush(&h.queue).unwrap();
        let module = self.fb.create_shader_module(self.shader).unwrap();
        let pipeline = h.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(self.fb.pipeline_layout(self.shader).unwrap()),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let mut enc = h.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            freqbuf::Binder::new()
                .bind(&mut self.fb, &mut pass, &Draw::new(self.shader).object(any))
                .unwrap();
            pass.dispatch_workgroups(N.div_ceil(64) as u32, 1, 1);
        }
        h.queue.submit([enc.finish()]);
        gpu::read_words(h, &self.out).into_iter().map(f32::from_bits).collect()
    }
}

/// The model: each live object's element, by dense index (handles are made in order).
fn expected(model: &[Option<Object>]) -> Vec<f32> {
    let mut out = vec![0.0; N * WORDS];
    for (i, o) in model.iter().enumerate() {
        if let Some(o) = o {
            let e = &mut out[i * WORDS..(i + 1) * WORDS];
            e[..16].copy_from_slice(bytemuck::cast_slice(&o.world));
            e[16..].copy_from_slice(&o.tint);
        }
    }
    out
}

#[test]
fn batched_members_and_rows_reach_the_shader_across_frees_and_reuse() {
    let Some(h) = gpu::device() else { return };
    let mut rig = Rig::new(h);
    let (world_p, tint_p) = (rig.fb.param("world").unwrap(), rig.fb.param("tint").unwrap());
    let ids: Vec<ObjectId> = (0..N).map(|_| rig.fb.create_object()).collect();
    let mut model: Vec<Option<Object>> = vec![Some(Object::default()); N];

    // Every world through one batch, tints through the per-instance path.
    let mut worlds = rig.fb.batch(world_p).unwrap();
    for (i, &id) in ids.iter().enumerate() {
        worlds.set(id, &world(i)).unwrap();
        model[i].as_mut().unwrap().world = world(i);
    }
    for (i, &id) in ids.iter().enumerate().step_by(3) {
        let tint = [i as f32, 1.0, 2.0, 3.0];
        rig.fb.object(id).set(tint_p, &tint).unwrap();
        model[i].as_mut().unwrap().tint = tint;
    }
    assert_eq!(rig.read(h, ids[0]), expected(&model));

    // A sparse frame: every seventh moves, every eleventh is written unchanged.
    rig.fb.take_stats();
    let mut worlds = rig.fb.batch(world_p).unwrap();
    let mut moved = 0;
    for (i, &id) in ids.iter().enumerate() {
        if i % 7 == 0 {
            worlds.set(id, &world(i + 1000)).unwrap();
            model[i].as_mut().unwrap().world = world(i + 1000);
            moved += 1;
        } else if i % 11 == 0 {
            worlds.set(id, &world(i)).unwrap();
        }
    }
    assert_eq!(rig.read(h, ids[0]), expected(&model));
    let objects = rig.fb.take_stats().total().dirty_instances;
    assert_eq!(objects, moved, "an unchanged value makes nothing dirty");

    // Typed rows, after a free: the reused index reads zero, then the row.
    let row = rig.fb.param_struct::<Object>("objects").unwrap();
    rig.fb.free_object(ids[5]).unwrap();
    model[5] = None;
    let reused = rig.fb.create_object();
    model[5] = Some(Object::default());
    let mut rows = rig.fb.batch_struct(row).unwrap();
    let value = Object { world: world(77), tint: [7.0; 4] };
    rows.set(reused, &value).unwrap();
    rows.set(ids[6], &value).unwrap();
    // A freed handle is refused and writes nothing.
    assert!(matches!(rows.set(ids[5], &Object::default()), Err(Error::StaleHandle(_))));
    model[5] = Some(value);
    model[6] = Some(value);
    assert_eq!(rig.read(h, ids[0]), expected(&model));
}

#[test]
fn a_batch_checks_its_member_once_and_each_handle_on_every_write() {
    let Some(h) = gpu::device() else { return };
    let mut rig = Rig::new(h);
    let mut other = Rig::new(h);
    let world_p = rig.fb.param("world").unwrap();
    let o = rig.fb.create_object();
    let foreign = other.fb.create_object();
    let view = rig.fb.create_view();

    let kind = |e: Error| match e {
        Error::Param(p) => p.kind,
        e => panic!("a param error, got {e}"),
    };
    let wrong_type = rig.fb.batch::<[f32; 4]>(world_p).unwrap_err();
    assert!(matches!(kind(wrong_type), ParamErrorKind::TypeMismatch { .. }));
    let foreign_param = other.fb.param("world").unwrap();
    assert!(matches!(rig.fb.batch::<[[f32; 4]; 4]>(foreign_param), Err(Error::Foreign(_))));

    let mut worlds = rig.fb.batch(world_p).unwrap();
    assert!(matches!(kind(worlds.set(view, &world(1)).unwrap_err()), ParamErrorKind::WrongFrequency { .. }));
    assert!(matches!(worlds.set(foreign, &world(1)), Err(Error::Foreign(_))));
    worlds.set(o, &world(3)).unwrap();
    let mut model = vec![None; N];
    model[0] = Some(Object { world: world(3), tint: [0.0; 4] });
    assert_eq!(rig.read(h, o), expected(&model), "refused writes left nothing behind");
}

#[test]
fn a_batch_of_a_family_slot_refuses_instances_of_another_family() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let source = |color: &str| {
        format!(
            "struct M {{ {color}: vec4<f32> }}
             @group(2) @binding(0) var<uniform> m: M;
             @fragment fn fs() -> @location(0) vec4<f32> {{ return m.{color}; }}"
        )
    };
    fb.register(
        freqbuf::reflect::ShaderReflection::new("a.wgsl", freqbuf::reflect::ShaderSource::Wgsl(&source("a")))
            .unwrap()
            .with_family("fa"),
    )
    .unwrap();
    fb.register(
        freqbuf::reflect::ShaderReflection::new("b.wgsl", freqbuf::reflect::ShaderSource::Wgsl(&source("b")))
            .unwrap()
            .with_family("fb"),
    )
    .unwrap();
    let (ma, mb, shared) = (fb.create_material_in("fa"), fb.create_material_in("fb"), fb.create_material());
    let a = fb.param_in("fa", "a").unwrap();
    let mut batch = fb.batch(a).unwrap();
    batch.set(ma, &[1.0f32; 4]).unwrap();
    batch.set(shared, &[2.0f32; 4]).unwrap();
    let e = batch.set(mb, &[3.0f32; 4]).unwrap_err();
    assert!(
        matches!(&e, Error::Param(p) if matches!(&p.kind, ParamErrorKind::OtherFamily { member_family, instance_family }
            if member_family == "fa" && instance_family == "fb")),
        "{e}"
    );
}

/// Runs of adjacent moved objects merge into ranges longer than one scatter
/// row (64 words): each is cut into rows, and every word lands where it
/// belongs, next to short ranges and across three flushes.
#[test]
fn long_ranges_scatter_in_rows_of_64_words() {
    let Some(h) = gpu::device() else { return };
    for strategy in [FlushStrategy::Scatter, FlushStrategy::Copies] {
        let mut rig = Rig::with_strategy(h, strategy);
        rig.fb.set_span_fraction(2.0);
        let row = rig.fb.param_struct::<Object>("objects").unwrap();
        let ids: Vec<ObjectId> = (0..N).map(|_| rig.fb.create_object()).collect();
        let mut model: Vec<Option<Object>> = vec![Some(Object::default()); N];
        for frame in 1..=3usize {
            // Runs of 1, 7 and 23 objects (80 bytes each), 20 objects apart.
            let mut rows = rig.fb.batch_struct(row).unwrap();
            let mut at = frame;
            for len in [1usize, 7, 23].into_iter().cycle() {
                if at + len > N {
                    break;
                }
                for i in at..at + len {
                    let value = Object { world: world(i * 10 + frame), tint: [frame as f32; 4] };
                    rows.set(ids[i], &value).unwrap();
                    model[i] = Some(value);
                }
                at += len + 20;
            }
            rig.fb.take_stats();
            assert_eq!(rig.read(h, ids[0]), expected(&model), "{strategy:?}, frame {frame}");
        }
    }
}

/// An instance list resolves handles once; batches write through it by
/// position and reach the shader, and it turns stale at the first free,
/// past its end, for another frequency and for another manager.
#[test]
fn batches_write_by_position_through_an_instance_list_until_a_free() {
    let Some(h) = gpu::device() else { return };
    let mut rig = Rig::new(h);
    let world_p = rig.fb.param("world").unwrap();
    let row = rig.fb.param_struct::<Object>("objects").unwrap();
    let ids: Vec<ObjectId> = (0..N).map(|_| rig.fb.create_object()).collect();
    let list = rig.fb.instance_list(ids.iter().copied()).unwrap();
    assert_eq!((list.len(), list.frequency()), (N, Some(freqbuf::Frequency::Object)));
    let mut model: Vec<Option<Object>> = vec![Some(Object::default()); N];
    let mut worlds = rig.fb.batch(world_p).unwrap();
    for k in (0..N).step_by(4) {
        worlds.set_in(&list, k, &world(k + 5)).unwrap();
        model[k].as_mut().unwrap().world = world(k + 5);
    }
    assert!(matches!(worlds.set_in(&list, N, &world(0)), Err(Error::ListPosition { position: N, len: N })));
    let mut rows = rig.fb.batch_struct(row).unwrap();
    let value = Object { world: world(9), tint: [9.0; 4] };
    rows.set_in(&list, 1, &value).unwrap();
    model[1] = Some(value);
    assert_eq!(rig.read(h, ids[0]), expected(&model));

    // Views in a list for an object member; mixed frequencies; another manager's list.
    let views = [rig.fb.create_view()];
    let view_list = rig.fb.instance_list(views).unwrap();
    let mut worlds = rig.fb.batch(world_p).unwrap();
    let e = worlds.set_in(&view_list, 0, &world(1)).unwrap_err();
    assert!(matches!(&e, Error::Param(p) if matches!(p.kind, ParamErrorKind::WrongFrequency { .. })), "{e}");
    let mixed = [freqbuf::InstanceId::from(ids[0]), views[0].into()];
    assert!(matches!(rig.fb.instance_list(mixed), Err(Error::ListFrequencies { .. })));
    let mut other = Rig::new(h);
    let foreign = other.fb.create_object();
    let foreign_list = other.fb.instance_list([foreign]).unwrap();
    let mut worlds = rig.fb.batch(world_p).unwrap();
    assert!(matches!(worlds.set_in(&foreign_list, 0, &world(1)), Err(Error::StaleInstanceList)));

    // A free makes the list stale (index 7 may go to another handle); a new list writes again.
    rig.fb.free_object(ids[7]).unwrap();
    model[7] = None;
    let mut worlds = rig.fb.batch(world_p).unwrap();
    assert!(matches!(worlds.set_in(&list, 0, &world(3)), Err(Error::StaleInstanceList)));
    let live: Vec<ObjectId> = ids.iter().enumerate().filter(|&(i, _)| i != 7).map(|(_, &id)| id).collect();
    let list = rig.fb.instance_list(live.iter().copied()).unwrap();
    let mut worlds = rig.fb.batch(world_p).unwrap();
    worlds.set_in(&list, 7, &world(70)).unwrap(); // position 7 is object 8 now
    model[8].as_mut().unwrap().world = world(70);
    assert_eq!(rig.read(h, ids[0]), expected(&model));
}

#[test]
fn set_all_writes_a_frame_in_one_call_in_order_and_stops_at_the_first_refused_item() {
    let Some(h) = gpu::device() else { return };
    let mut rig = Rig::new(h);
    let world_p = rig.fb.param("world").unwrap();
    let row = rig.fb.param_struct::<Object>("objects").unwrap();
    let ids: Vec<ObjectId> = (0..N).map(|_| rig.fb.create_object()).collect();
    let list = rig.fb.instance_list(ids.iter().copied()).unwrap();
    let mut model: Vec<Option<Object>> = vec![Some(Object::default()); N];

    // Scattered positions, one written three times within the write-behind
    // window and once far later: the last value wins, as in a loop of `set`.
    let mut items: Vec<(usize, [[f32; 4]; 4])> = (0..N).step_by(13).map(|k| (k, world(k))).collect();
    items.extend([(26, world(1)), (26, world(2)), (5, world(3))]);
    items.extend((0..N).step_by(29).map(|k| (k, world(k + 500))));
    items.push((26, world(4)));
    for &(k, w) in &items {
        model[k].as_mut().unwrap().world = w;
    }
    rig.fb.batch(world_p).unwrap().set_all_in(&list, items.iter().map(|(k, w)| (*k, w))).unwrap();
    assert_eq!(rig.read(h, ids[0]), expected(&model));

    // By handle, typed rows; an unchanged row makes nothing dirty.
    rig.fb.take_stats();
    let rows: Vec<(ObjectId, Object)> =
        (0..N).step_by(7).map(|k| (ids[k], Object { world: world(k + 900), tint: [k as f32; 4] })).collect();
    for (k, (_, o)) in (0..N).step_by(7).zip(&rows) {
        model[k] = Some(*o);
    }
    let same = model[3].unwrap();
    let mut batch = rig.fb.batch_struct(row).unwrap();
    batch.set_all(rows.iter().map(|(id, o)| (*id, o)).chain([(ids[3], &same)])).unwrap();
    assert_eq!(rig.read(h, ids[0]), expected(&model));
    assert_eq!(rig.fb.take_stats().total().dirty_instances, rows.len() as u64);

    // A freed handle in the middle: the items before it land, it and the
    // ones after do not, and the error names it.
    rig.fb.free_object(ids[40]).unwrap();
    model[40] = None;
    let before: Vec<(ObjectId, [[f32; 4]; 4])> = (0..20).map(|k| (ids[k], world(k + 2000))).collect();
    for (k, _) in before.iter().enumerate() {
        model[k].as_mut().unwrap().world = world(k + 2000);
    }
    let after = [(ids[41], world(1)), (ids[42], world(2))];
    let mut worlds = rig.fb.batch(world_p).unwrap();
    let freed = [(ids[40], world(0))];
    let all = before.iter().chain(&freed).chain(&after);
    let e = worlds.set_all(all.map(|(id, w)| (*id, w))).unwrap_err();
    assert!(matches!(e, Error::StaleHandle(freqbuf::Frequency::Object)), "{e:?}");
    // A stale list refuses its first item and writes nothing.
    let w = world(7);
    let e = worlds.set_all_in(&list, [(0usize, &w)]).unwrap_err();
    assert!(matches!(e, Error::StaleInstanceList), "{e:?}");
    assert_eq!(
        e.to_string(),
        "the instance list is stale: an instance was freed since it was made, or another manager made it"
    );
    assert_eq!(rig.read(h, ids[0]), expected(&model));
}

/// A panic in the caller's iterator of `set_all` or `set_all_in` loses none
/// of the writes before it, as a loop of `Batch::set` would not: the
/// write-behind queue lands what it holds while unwinding.
#[test]
fn writes_before_a_panicking_iterator_land() {
    let Some(h) = gpu::device() else { return };
    let mut rig = Rig::new(h);
    let world_p = rig.fb.param("world").unwrap();
    let ids: Vec<ObjectId> = (0..N).map(|_| rig.fb.create_object()).collect();
    let list = rig.fb.instance_list(ids.iter().copied()).unwrap();
    let mut model: Vec<Option<Object>> = vec![Some(Object::default()); N];
    let worlds: Vec<_> = (0..N).map(world).collect();
    let panics_at = 20;

    for listed in [false, true] {
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut batch = rig.fb.batch(world_p).unwrap();
            let items = (0..N).inspect(|&i| assert!(i != panics_at, "the caller's iterator panics"));
            if listed {
                batch.set_all_in(&list, items.map(|i| (i, &worlds[(i + 7) % N]))).unwrap();
            } else {
                batch.set_all(items.map(|i| (ids[i], &worlds[i]))).unwrap();
            }
        }));
        assert!(run.is_err(), "the iterator panicked");
        for (i, m) in model.iter_mut().enumerate().take(panics_at) {
            m.as_mut().unwrap().world = if listed { worlds[(i + 7) % N] } else { worlds[i] };
        }
        assert_eq!(rig.read(h, ids[0]), expected(&model), "listed: {listed}");
    }
}
