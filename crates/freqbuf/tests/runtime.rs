//! The runtime on a real device: values set through the manager are read back
//! from what compute shaders saw, and compared with a reference model.

use crate::common;

use common::gpu;
use common::scene::{self, FULL, Kind, LIGHTS, Model, PREFIX, Rig};
use freqbuf::error::ParamErrorKind;
use freqbuf::{Draw, Error, Frequency, InstanceId, Manager, SlotPlan};

macro_rules! device_or_skip {
    () => {
        match gpu::device() {
            Some(h) => h,
            None => return,
        }
    };
}

/// Sets every reported value of `s` on the given instances from `seed`, in model and manager.
fn set_all(m: &mut Manager, model: &mut Model, s: &scene::TestShader, draw: &Draw, seed: u32) {
    for (i, rep) in s.reports.iter().enumerate() {
        let p = m.param(rep.name).unwrap();
        let id = draw.instance(p.frequency()).unwrap();
        let words =
            (0..rep.kind.words()).map(|k| scene::word(rep.kind, seed + i as u32, k)).collect::<Vec<_>>();
        scene::set(m, id, p, rep.kind, &words).unwrap();
        model.values.insert((id, rep.name), words);
    }
}

#[test]
fn shaders_see_the_values_set_through_shared_slots() {
    let h = device_or_skip!();
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 64);
    let full = rig.register(&h.device, &mut m, &FULL);
    let lights = rig.register(&h.device, &mut m, &LIGHTS);
    let mut model = Model::default();
    let view = m.create_view();
    let mats = [m.create_material(), m.create_material()];
    let objs = (0..5).map(|_| m.create_object()).collect::<Vec<_>>();
    let mut draws = Vec::new();
    for (i, &o) in objs.iter().enumerate() {
        let d = Draw::new(full).view(view).material(mats[i % 2]).object(o);
        set_all(&mut m, &mut model, &FULL, &d, 100 * i as u32);
        draws.push(d);
        let d = Draw::new(lights).view(view).object(o);
        set_all(&mut m, &mut model, &LIGHTS, &d, 7 + 100 * i as u32);
        draws.push(d);
    }
    m.flush(&h.queue).unwrap();
    let seen = rig.run(h, &mut m, &draws);
    for (d, rec) in draws.iter().zip(&seen) {
        let s = if d.shader() == full { &FULL } else { &LIGHTS };
        assert_eq!(rec, &model.expect(&m, s, d), "draw {d:?}");
    }

    // Registering a shader that grows the object slot keeps every value.
    let prefix = rig.register(&h.device, &mut m, &PREFIX);
    let tint = m.param("tint").unwrap();
    m.object(objs[3]).set(tint, &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    model
        .values
        .insert((InstanceId::from(objs[3]), "tint"), [1.0f32, 2.0, 3.0, 4.0].map(f32::to_bits).to_vec());
    m.flush(&h.queue).unwrap();
    let draws = objs
        .iter()
        .enumerate()
        .flat_map(|(i, &o)| {
            [
                Draw::new(prefix).material(mats[i % 2]).object(o),
                Draw::new(full).view(view).material(mats[i % 2]).object(o),
            ]
        })
        .collect::<Vec<_>>();
    let seen = rig.run(h, &mut m, &draws);
    for (d, rec) in draws.iter().zip(&seen) {
        let s = if d.shader() == full { &FULL } else { &PREFIX };
        assert_eq!(rec, &model.expect(&m, s, d), "after growth, draw {d:?}");
    }
}

#[test]
fn draws_see_the_last_flush_before_submission_and_not_later_sets() {
    let h = device_or_skip!();
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 4);
    let full = rig.register(&h.device, &mut m, &FULL);
    let (v, mat, o) = (m.create_view(), m.create_material(), m.create_object());
    let time = m.param("time").unwrap();
    let id = m.param("id").unwrap();
    m.frame().set(time, &1.5f32).unwrap();
    m.object(o).set(id, &7u32).unwrap();
    m.flush(&h.queue).unwrap();
    // Set after the flush: not visible until the next one.
    m.frame().set(time, &9.0f32).unwrap();
    let d = Draw::new(full).view(v).material(mat).object(o);
    let rec = &rig.run(h, &mut m, &[d])[0];
    assert_eq!(f32::from_bits(rec[1]), 1.5);
    assert_eq!(rec[rec.len() - 1], 7);
    m.flush(&h.queue).unwrap();
    let rec = &rig.run(h, &mut m, &[d])[0];
    assert_eq!(f32::from_bits(rec[1]), 9.0);
}

#[test]
fn many_instances_grow_buffers_without_losing_values() {
    let h = device_or_skip!();
    // The third: every slot uploaded as one span from its first to its last dirty byte.
    for (strategy, fraction) in [
        (freqbuf::FlushStrategy::Copies, 0.5),
        (freqbuf::FlushStrategy::Scatter, 0.5),
        (freqbuf::FlushStrategy::Auto, 0.0),
    ] {
        let mut m = Manager::with_strategy(&h.device, SlotPlan::default(), strategy);
        m.set_span_fraction(fraction);
        let mut rig = Rig::new(&h.device, 300);
        let prefix = rig.register(&h.device, &mut m, &PREFIX);
        let id = m.param("id").unwrap();
        let mat = m.create_material();
        let mut objs = Vec::new();
        // Grow across several flushes, so growth copies old contents on the GPU.
        for round in 0..3u32 {
            for k in 0..100u32 {
                let o = m.create_object();
                m.object(o).set(id, &(round * 1000 + k)).unwrap();
                objs.push(o);
            }
            // Scattered updates of older objects: many ranges in one slot.
            for (i, &o) in objs.iter().enumerate().step_by(3) {
                m.object(o).set(id, &(i as u32 + 50_000 * (round + 1))).unwrap();
            }
            m.flush(&h.queue).unwrap();
            let stats = m.take_stats();
            assert!(stats.total().upload_calls <= m.registry().slots().len() as u64, "{stats:?}");
        }
        let draws = objs.iter().map(|&o| Draw::new(prefix).material(mat).object(o)).collect::<Vec<_>>();
        let seen = rig.run(h, &mut m, &draws);
        for (i, rec) in seen.iter().enumerate() {
            let last_round_touched = if i % 3 == 0 { Some(2) } else { None };
            let expect = match last_round_touched {
                Some(r) => i as u32 + 50_000 * (r + 1),
                None => (i / 100) as u32 * 1000 + (i % 100) as u32,
            };
            assert_eq!(rec[3], expect, "{strategy:?} (span fraction {fraction}) object {i}");
        }
    }
}

#[test]
fn freed_instances_are_reused_and_start_at_zero() {
    let h = device_or_skip!();
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 4);
    let prefix = rig.register(&h.device, &mut m, &PREFIX);
    let id = m.param("id").unwrap();
    let mat = m.create_material();
    let a = m.create_object();
    m.object(a).set(id, &99u32).unwrap();
    m.flush(&h.queue).unwrap();
    m.free_object(a).unwrap();
    assert!(matches!(m.object(a).set(id, &1u32), Err(Error::StaleHandle(Frequency::Object))));
    assert!(matches!(m.free_object(a), Err(Error::StaleHandle(Frequency::Object))));
    let b = m.create_object();
    m.flush(&h.queue).unwrap();
    assert_eq!(m.take_stats().total().buffer_growths, 0, "the freed index was reused");
    let rec = &rig.run(h, &mut m, &[Draw::new(prefix).material(mat).object(b)])[0];
    assert_eq!(rec[3], 0, "a reused instance reads as zero, not as the freed one's values");
    let err = {
        let mut binder = freqbuf::Binder::new();
        let mut enc = h.device.create_command_encoder(&Default::default());
        let mut pass = enc.begin_compute_pass(&Default::default());
        binder.bind(&mut m, &mut pass, &Draw::new(prefix).material(mat).object(a)).unwrap_err()
    };
    assert!(matches!(err, Error::StaleHandle(Frequency::Object)), "{err}");
}

#[test]
fn failed_sets_change_nothing_and_errors_say_why() {
    let h = device_or_skip!();
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 4);
    let full = rig.register(&h.device, &mut m, &FULL);
    // Registered for its `lights` array, which the out-of-range check below uses.
    rig.register(&h.device, &mut m, &LIGHTS);
    let (v, mat, o) = (m.create_view(), m.create_material(), m.create_object());
    let color = m.param("color").unwrap();
    m.material(mat).set(color, &[0.25f32, 0.5, 0.75, 1.0]).unwrap();
    m.flush(&h.queue).unwrap();
    m.take_stats();

    let kind = |e: Error| match e {
        Error::Param(p) => p.kind,
        e => panic!("{e}"),
    };
    // Wrong type and wrong size.
    let e = kind(m.material(mat).set(color, &1.0f32).unwrap_err());
    assert!(
        matches!(e, ParamErrorKind::TypeMismatch { ref expected, ref found } if expected == "vec4<f32>" && found == "f32"),
        "{e}"
    );
    let e = kind(m.material(mat).set_bytes(color, &[0u8; 12]).unwrap_err());
    assert_eq!(e, ParamErrorKind::SizeMismatch { expected: 16, found: 12 });
    // Wrong frequency.
    let e = kind(m.object(o).set(color, &[0.0f32; 4]).unwrap_err());
    assert_eq!(e, ParamErrorKind::WrongFrequency { wanted: Frequency::Object, actual: Frequency::Material });
    // Unknown names suggest the closest known ones.
    let e = m.param("colour").unwrap_err();
    assert!(
        matches!(e.kind, ParamErrorKind::Unknown { ref suggestions } if suggestions.first().map(String::as_str) == Some("color")),
        "{e}"
    );
    assert!(common::chain(&e).contains("did you mean `color`"), "{e}");
    let e = kind(m.material(mat).set_by_name("roughnes", &1.0f32).unwrap_err());
    assert!(
        matches!(e, ParamErrorKind::Unknown { ref suggestions } if suggestions.contains(&"roughness".to_owned())),
        "{e}"
    );
    // Out of range.
    assert!(matches!(
        m.param("lights[4].position").unwrap_err().kind,
        ParamErrorKind::IndexOutOfRange { index: 4, count: 4, .. }
    ));
    // Textures are not values.
    let e = kind(m.material(mat).set_texture("color", &gpu::texel(h, [0; 4])).unwrap_err());
    assert!(matches!(e, ParamErrorKind::TypeMismatch { .. }), "{e}");

    assert_eq!(m.take_stats().total().dirty_instances, 0);
    m.flush(&h.queue).unwrap();
    let stats = m.take_stats();
    assert_eq!(stats.total().bytes_uploaded, 0, "failed sets made nothing dirty: {stats:?}");
    let rec = &rig.run(h, &mut m, &[Draw::new(full).view(v).material(mat).object(o)])[0];
    let at = 1 + 1 + 1 + 16 + 4;
    assert_eq!(&rec[at..at + 4], &[0.25f32, 0.5, 0.75, 1.0].map(f32::to_bits));
}

#[test]
fn equal_values_and_shader_switches_upload_nothing() {
    let h = device_or_skip!();
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 8);
    let full = rig.register(&h.device, &mut m, &FULL);
    let prefix = rig.register(&h.device, &mut m, &PREFIX);
    let (v, mat, o) = (m.create_view(), m.create_material(), m.create_object());
    let time = m.param("time").unwrap();
    m.frame().set(time, &2.0f32).unwrap();
    m.flush(&h.queue).unwrap();
    m.take_stats();
    m.frame().set(time, &2.0f32).unwrap();
    m.flush(&h.queue).unwrap();
    let s = m.take_stats().total();
    assert_eq!((s.bytes_uploaded, s.upload_calls, s.dirty_instances), (0, 0, 0), "{s:?}");
    // Alternate shaders: binds may happen, uploads may not.
    let draws = [full, prefix, full, prefix].map(|sh| Draw::new(sh).view(v).material(mat).object(o));
    m.flush(&h.queue).unwrap();
    rig.run(h, &mut m, &draws);
    m.flush(&h.queue).unwrap();
    let s = m.take_stats().total();
    assert_eq!((s.bytes_uploaded, s.upload_calls), (0, 0), "{s:?}");
    // Both shaders use the same bindings in groups 0, 2 and 3, so switching
    // binds nothing there. Group 1 alternates between the view and an empty
    // group (PREFIX uses no view): 4 for the first draw, then 1 per switch.
    assert_eq!(s.set_bind_group_calls, 4 + 3, "{s:?}");
}

#[test]
fn upload_calls_are_bounded_by_slots_not_dirty_instances() {
    let h = device_or_skip!();
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 1);
    rig.register(&h.device, &mut m, &FULL);
    let world = m.param("world").unwrap();
    let objs = (0..2000).map(|_| m.create_object()).collect::<Vec<_>>();
    m.flush(&h.queue).unwrap();
    m.take_stats();
    for (i, &o) in objs.iter().enumerate().step_by(2) {
        m.object(o).set(world, &[[i as f32 + 1.0; 4]; 4]).unwrap();
    }
    m.flush(&h.queue).unwrap();
    let s = m.take_stats();
    let slots = m.registry().slots().len() as u64;
    assert_eq!(s.total().dirty_instances, 1000);
    assert!(s.total().upload_calls <= slots, "{:?}", s.total());
    // Only the 64 dirty bytes of each instance, plus nothing else but the staging table for scatter.
    assert_eq!(s.slot(world.slot()).bytes_uploaded, 1000 * 64);
}

#[test]
fn offsets_follow_the_device_alignment() {
    let Some(h) = gpu::adapter_limits_device() else {
        return;
    };
    let align = h.device.limits().min_uniform_buffer_offset_alignment;
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 64);
    let prefix = rig.register(&h.device, &mut m, &PREFIX);
    let id = m.param("id").unwrap();
    let stride = m.slot_stride(id.slot()).unwrap();
    assert_eq!(stride % align, 0);
    assert!(stride >= 96 && stride < 96 + align, "stride {stride} for a 96-byte block at alignment {align}");
    let mat = m.create_material();
    let objs = (0..40u32)
        .map(|i| {
            let o = m.create_object();
            m.object(o).set(id, &(i * 3 + 1)).unwrap();
            o
        })
        .collect::<Vec<_>>();
    m.flush(&h.queue).unwrap();
    let draws = objs.iter().map(|&o| Draw::new(prefix).material(mat).object(o)).collect::<Vec<_>>();
    let seen = rig.run(h, &mut m, &draws);
    for (i, rec) in seen.iter().enumerate() {
        assert_eq!(rec[3], i as u32 * 3 + 1);
    }
}

#[test]
fn the_same_block_from_glsl_and_wgsl_shares_one_slot_on_the_gpu() {
    let h = device_or_skip!();
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 4);
    let full = rig.register(&h.device, &mut m, &FULL);
    let glsl = freqbuf::reflect::ShaderReflection::new(
        "object.vert",
        freqbuf::reflect::ShaderSource::Glsl {
            source: "#version 450\nlayout(set = 3, binding = 0, std140) uniform Object { mat4 world; uint id; };\nvoid main() { gl_Position = world[0] + vec4(float(id)); }",
            stage: freqbuf::naga::ShaderStage::Vertex,
        },
    )
    .unwrap();
    m.register(glsl).unwrap();
    assert_eq!(m.registry().slots().filter(|(_, s)| s.frequency() == Frequency::Object).count(), 1);
    let (v, mat, o) = (m.create_view(), m.create_material(), m.create_object());
    m.object(o).set_by_name("id", &42u32).unwrap();
    m.flush(&h.queue).unwrap();
    let rec = &rig.run(h, &mut m, &[Draw::new(full).view(v).material(mat).object(o)])[0];
    assert_eq!(*rec.last().unwrap(), 42);
}

mod random {
    //! Random sequences of creates, frees, sets, registrations, flushes and
    //! draws. Between a flush and its draws the same operations happen again
    //! (creates, frees that free an index for reuse, registrations that move
    //! the object slot to a larger stride, sets), so every order is tried. For
    //! each draw the reference model says the exact values it sees, or that it
    //! must be refused with `NotFlushed`.
    //!
    //! Each frame binds its draws one of three ways: handle by handle, with
    //! shared access after `Manager::prepare` on two encoding threads (one
    //! command buffer each, submitted in order), or through a draw list bound
    //! twice (recorded, then replayed). A frame's flush may have a fault
    //! injected (a creation, the staging upload or the scatter fails); the
    //! flush must then fail, and its retry must lose nothing. The manager
    //! also moves between two devices (`recreate`), one with another offset
    //! alignment.
    use std::collections::{HashMap, HashSet};

    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Create(Frequency),
        Free(Frequency, usize),
        Set {
            which: usize,
            report: usize,
            seed: u32,
        },
        /// One member on several instances through a batch, in one `set_all`.
        Batch {
            whiches: Vec<usize>,
            report: usize,
            seed: u32,
        },
        /// Writes by position through an `InstanceList` (repeats allowed);
        /// with `free`, an instance is freed between the list and the write,
        /// which the list then refuses, writing nothing.
        Listed {
            whiches: Vec<usize>,
            report: usize,
            seed: u32,
            free: Option<usize>,
        },
        /// The flush's span fraction: 0 makes every slot's flush one whole
        /// range, 2 none, between the two by share.
        Density(u8),
        Register,
        Frame {
            draws: Vec<(usize, usize, usize, usize)>,
            late: Vec<Op>,
            mode: u8,
            fault: Option<(u8, u8)>,
        },
        Recreate,
    }

    fn freq() -> impl Strategy<Value = Frequency> {
        prop_oneof![Just(Frequency::View), Just(Frequency::Material), Just(Frequency::Object)]
    }

    /// Operations that may happen anywhere, also between a flush and the draws.
    fn plain() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => freq().prop_map(Op::Create),
            1 => (freq(), any::<usize>()).prop_map(|(f, i)| Op::Free(f, i)),
            6 => (any::<usize>(), any::<usize>(), any::<u32>())
                .prop_map(|(which, report, seed)| Op::Set { which, report, seed }),
            2 => (prop::collection::vec(any::<usize>(), 1..24), any::<usize>(), any::<u32>())
                .prop_map(|(whiches, report, seed)| Op::Batch { whiches, report, seed }),
            2 => (
                prop::collection::vec(any::<usize>(), 1..24),
                any::<usize>(),
                any::<u32>(),
                prop::option::weighted(0.25, any::<usize>()),
            )
                .prop_map(|(whiches, report, seed, free)| Op::Listed { whiches, report, seed, free }),
            1 => (0..4u8).prop_map(Op::Density),
            2 => Just(Op::Register),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            11 => plain(),
            3 => (
                prop::collection::vec((any::<usize>(), any::<usize>(), any::<usize>(), any::<usize>()), 1..12),
                prop::collection::vec(plain(), 0..5),
                0..3u8,
                prop::option::weighted(0.3, (0..4u8, 0..3u8)),
            )
                .prop_map(|(draws, late, mode, fault)| Op::Frame { draws, late, mode, fault }),
            1 => Just(Op::Recreate),
        ]
    }

    fn site(s: u8) -> freqbuf::fault::FaultSite {
        [
            freqbuf::fault::FaultSite::Create,
            freqbuf::fault::FaultSite::Upload,
            freqbuf::fault::FaultSite::Scatter,
        ][s as usize % 3]
    }

    struct World {
        /// The device the manager is on now.
        h: &'static freqbuf::Headless,
        m: Manager,
        rig: Rig,
        model: Model,
        shaders: Vec<freqbuf::ShaderId>,
        live: [Vec<InstanceId>; 4],
        /// Every (name, kind) some registered shader reports.
        reports: Vec<scene::Report>,
    }

    impl World {
        fn pick(&self, f: Frequency, i: usize) -> Option<InstanceId> {
            match f {
                Frequency::Frame => Some(InstanceId::FRAME),
                _ => self.live[f.index()].get(i % self.live[f.index()].len().max(1)).copied(),
            }
        }

        fn set(&mut self, which: usize, report: usize, seed: u32) {
            let rep = self.reports[report % self.reports.len()];
            let p = self.m.param(rep.name).unwrap();
            let Some(id) = self.pick(p.frequency(), which) else {
                return;
            };
            let words = (0..rep.kind.words()).map(|k| scene::word(rep.kind, seed, k)).collect::<Vec<_>>();
            scene::set(&mut self.m, id, p, rep.kind, &words).unwrap();
            self.model.values.insert((id, rep.name), words);
        }

        /// Writes one member on the instances `whiches` pick (repeats
        /// included: the last value written wins) through one batch.
        fn set_batch(&mut self, whiches: &[usize], report: usize, seed: u32) {
            let rep = self.reports[report % self.reports.len()];
            let p = self.m.param(rep.name).unwrap();
            let mut items = Vec::new();
            for (k, &which) in whiches.iter().enumerate() {
                let Some(id) = self.pick(p.frequency(), which) else { return };
                let seed = seed.wrapping_add(k as u32 * 7919);
                items.push((
                    id,
                    (0..rep.kind.words()).map(|w| scene::word(rep.kind, seed, w)).collect::<Vec<_>>(),
                ));
            }
            scene::set_batch(&mut self.m, p, rep.kind, &items).unwrap();
            for (id, words) in items {
                self.model.values.insert((id, rep.name), words);
            }
        }

        /// A batch by position in an `InstanceList` of the picked instances;
        /// a free after the list makes it stale, and the write changes nothing.
        fn set_listed(&mut self, whiches: &[usize], report: usize, seed: u32, free: Option<usize>) {
            let rep = self.reports[report % self.reports.len()];
            let p = self.m.param(rep.name).unwrap();
            let Some(ids) = whiches.iter().map(|&w| self.pick(p.frequency(), w)).collect::<Option<Vec<_>>>()
            else {
                return;
            };
            let list = self.m.instance_list(ids.iter().copied()).unwrap();
            // The frame is one instance, never freed.
            let free = free.filter(|_| p.frequency() != Frequency::Frame);
            if let Some(i) = free {
                self.apply(Op::Free(p.frequency(), i));
            }
            let items = (0..ids.len())
                .map(|k| {
                    let seed = seed.wrapping_add(k as u32 * 7919);
                    (k, (0..rep.kind.words()).map(|w| scene::word(rep.kind, seed, w)).collect::<Vec<_>>())
                })
                .collect::<Vec<_>>();
            let written = scene::set_batch_in(&mut self.m, p, rep.kind, &list, &items);
            if free.is_some() {
                assert!(matches!(written, Err(freqbuf::Error::StaleInstanceList)), "{written:?}");
                return;
            }
            written.unwrap();
            // Repeats: the last write to an instance is what it holds.
            for (k, words) in items {
                self.model.values.insert((ids[k], rep.name), words);
            }
        }

        fn register(&mut self) {
            if let Some(s) = scene::SHADERS.get(self.shaders.len()) {
                let id = self.rig.register(&self.h.device, &mut self.m, s);
                self.shaders.push(id);
                self.reports.extend(s.reports.iter().copied());
            }
        }

        fn apply(&mut self, op: Op) {
            match op {
                Op::Create(f) => {
                    let id = match f {
                        Frequency::View => InstanceId::from(self.m.create_view()),
                        Frequency::Material => InstanceId::from(self.m.create_material()),
                        _ => InstanceId::from(self.m.create_object()),
                    };
                    self.live[f.index()].push(id);
                }
                Op::Free(f, i) => {
                    if self.live[f.index()].is_empty() {
                        return;
                    }
                    let n = self.live[f.index()].len();
                    let id = self.live[f.index()].swap_remove(i % n);
                    self.m.free(id).unwrap();
                    self.model.forget(id);
                }
                Op::Set { which, report, seed } => self.set(which, report, seed),
                Op::Batch { whiches, report, seed } => self.set_batch(&whiches, report, seed),
                Op::Listed { whiches, report, seed, free } => self.set_listed(&whiches, report, seed, free),
                Op::Density(d) => self.m.set_span_fraction([0.0, 0.25, 0.75, 2.0][d as usize % 4]),
                Op::Register => self.register(),
                Op::Frame { .. } | Op::Recreate => unreachable!("frames and moves are not nested"),
            }
        }

        /// Per slot, the block size every registered shader's draws need.
        fn slot_sizes(&self) -> HashMap<freqbuf::SlotId, u32> {
            self.m.registry().slots().map(|(id, l)| (id, l.size())).collect()
        }

        /// Whether the last flush put everything `d` reads on the GPU.
        fn drawable(
            &self,
            d: &Draw,
            flushed: &HashSet<InstanceId>,
            sizes: &HashMap<freqbuf::SlotId, u32>,
        ) -> bool {
            let reg = self.m.registry();
            reg[d.shader()].used_resources().filter(|r| r.block.is_some()).all(|r| {
                let slot = reg.slot_at(r.binding).unwrap();
                let id = d.instance(reg[slot].frequency()).unwrap();
                let fits = sizes.get(&slot).is_some_and(|&s| s >= r.block.as_ref().unwrap().size);
                fits && (id == InstanceId::FRAME || flushed.contains(&id))
            })
        }
    }

    fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
        static THIRD: std::sync::OnceLock<Option<freqbuf::Headless>> = std::sync::OnceLock::new();
        let third = THIRD.get_or_init(|| gpu::device_with(wgpu::Features::empty(), |_| {}));
        let (Some(h), Some(other), Some(third)) =
            (gpu::device(), gpu::adapter_limits_device(), third.as_ref())
        else {
            return Ok(());
        };
        let mut w = World {
            h,
            m: Manager::new(&h.device, SlotPlan::default()),
            rig: Rig::new(&h.device, 16),
            model: Model::default(),
            shaders: Vec::new(),
            live: Default::default(),
            reports: Vec::new(),
        };
        w.register();
        for op in ops {
            let (draws, late, mode, fault) = match op {
                Op::Frame { draws, late, mode, fault } => (draws, late, mode, fault),
                Op::Recreate => {
                    // In turn: the adapter-limits device, a device of a new
                    // wgpu Instance, and back to the first.
                    w.h = if std::ptr::eq(w.h, h) {
                        other
                    } else if std::ptr::eq(w.h, other) {
                        third
                    } else {
                        h
                    };
                    w.m.recreate(&w.h.device).unwrap();
                    w.rig = w.rig.moved(&w.h.device, &mut w.m, 16);
                    continue;
                }
                op => {
                    w.apply(op);
                    continue;
                }
            };
            if let Some((s, n)) = fault {
                freqbuf::fault::fail_nth(site(s), n.into());
            }
            let flushed = w.m.flush(&w.h.queue);
            let fired = fault.is_some() && !freqbuf::fault::disarm();
            match flushed {
                Ok(()) => prop_assert!(!fired, "a fault fired and the flush returned Ok"),
                Err(e) => {
                    prop_assert!(fired, "flush failed without a fault: {}", e);
                    w.m.take_stats();
                    // The retry moves everything the failed flush did not.
                    w.m.flush(&w.h.queue).unwrap();
                }
            }
            let stats = w.m.take_stats();
            prop_assert!(stats.total().upload_calls <= w.m.registry().slots().len() as u64, "{:?}", stats);
            let snapshot = w.model.clone();
            let flushed: HashSet<InstanceId> = w.live.iter().flatten().copied().collect();
            let sizes = w.slot_sizes();
            // Whatever happens after the flush must not reach these draws.
            for op in late {
                w.apply(op);
            }
            let mut batch = Vec::new();
            for (s, v, mat, o) in draws {
                let shader = w.shaders[s % w.shaders.len()];
                let picked = [(Frequency::View, v), (Frequency::Material, mat), (Frequency::Object, o)]
                    .map(|(f, i)| w.pick(f, i));
                if picked.iter().any(Option::is_none) {
                    continue;
                }
                batch.push(picked.into_iter().flatten().fold(Draw::new(shader), Draw::with));
            }
            if batch.is_empty() {
                continue;
            }
            let expect = |w: &World, d: &Draw| snapshot.expect(&w.m, w.rig.pipelines[&d.shader()].1, d);
            if mode > 0 {
                // Prepared binding and draw lists take drawable draws only; a
                // list also refuses a handle created since the flush that
                // the shader does not read (it resolves every handle once).
                let given = |d: &Draw| {
                    [Frequency::View, Frequency::Material, Frequency::Object]
                        .into_iter()
                        .filter_map(|f| d.instance(f))
                        .all(|id| flushed.contains(&id))
                };
                batch.retain(|d| w.drawable(d, &flushed, &sizes) && (mode == 1 || given(d)));
                if batch.is_empty() {
                    continue;
                }
            }
            match mode {
                1 => {
                    // Two threads, each with its own binder, pass and command buffer.
                    w.m.prepare(&batch).unwrap();
                    let seen = w.rig.try_run_prepared(w.h, &w.m, &batch, 2);
                    for (d, rec) in batch.iter().zip(seen) {
                        prop_assert_eq!(rec.unwrap(), expect(&w, d), "prepared draw {:?}", d);
                    }
                }
                2 => {
                    let mut list = w.m.draw_list(&batch).unwrap();
                    for round in ["recorded", "replayed"] {
                        let seen = w.rig.try_run_list(w.h, &mut w.m, &mut list, &batch).unwrap();
                        for (d, rec) in batch.iter().zip(seen) {
                            prop_assert_eq!(rec, expect(&w, d), "{} list draw {:?}", round, d);
                        }
                    }
                }
                _ => {
                    let seen = w.rig.try_run(w.h, &mut w.m, &batch);
                    for (d, rec) in batch.iter().zip(seen) {
                        match rec {
                            Ok(rec) => {
                                prop_assert!(
                                    w.drawable(d, &flushed, &sizes),
                                    "draw {:?} should have been refused",
                                    d
                                );
                                prop_assert_eq!(rec, expect(&w, d), "draw {:?}", d);
                            }
                            Err(Error::NotFlushed(_)) => {
                                prop_assert!(!w.drawable(d, &flushed, &sizes), "draw {:?} was refused", d)
                            }
                            Err(e) => prop_assert!(false, "draw {:?}: {}", d, e),
                        }
                    }
                }
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, max_shrink_iters: 256, ..ProptestConfig::default() })]
        #[test]
        fn draws_always_see_the_reference_values(ops in prop::collection::vec(op(), 1..60)) {
            run(ops)?;
        }
    }
}

#[test]
fn set_array_and_whole_array_params() {
    let h = device_or_skip!();
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 2);
    let lights = rig.register(&h.device, &mut m, &LIGHTS);
    let (v, o) = (m.create_view(), m.create_object());
    let whole = m.param("lights").unwrap();
    assert_eq!((whole.count(), whole.stride()), (4, 16));
    assert!(matches!(m.view(v).set(whole, &[0f32; 4]), Err(Error::Param(_))));
    let mut raw = vec![0u8; 64];
    for i in 0..4 {
        raw[i * 16..i * 16 + 16].copy_from_slice(bytemuck::cast_slice(&[
            i as f32,
            1.0,
            2.0,
            10.0 + i as f32,
        ]));
    }
    m.view(v).set_bytes(whole, &raw).unwrap();
    let p2 = m.param("lights[2].position").unwrap();
    m.view(v).set(p2, &[7.0f32, 8.0, 9.0]).unwrap();
    m.flush(&h.queue).unwrap();
    let rec = &rig.run(h, &mut m, &[Draw::new(lights).view(v).object(o)])[0];
    let got = rec[1..17].iter().map(|&w| f32::from_bits(w)).collect::<Vec<_>>();
    assert_eq!(got, [0.0, 1.0, 2.0, 10.0, 1.0, 1.0, 2.0, 11.0, 7.0, 8.0, 9.0, 12.0, 3.0, 1.0, 2.0, 13.0]);
    let _ = Kind::F32;
}

#[test]
fn switching_to_a_shader_without_a_view_group_keeps_later_groups_right() {
    let h = device_or_skip!();
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 4);
    let full = rig.register(&h.device, &mut m, &FULL);
    let prefix = rig.register(&h.device, &mut m, &PREFIX);
    let (v, mat, o) = (m.create_view(), m.create_material(), m.create_object());
    let vp = m.param("view_proj").unwrap();
    m.view(v).set(vp, &[[5.0f32; 4]; 4]).unwrap();
    m.material(mat).set_by_name("roughness", &0.5f32).unwrap();
    m.flush(&h.queue).unwrap();
    let seen = rig.run(
        h,
        &mut m,
        &[Draw::new(full).view(v).material(mat).object(o), Draw::new(prefix).view(v).material(mat).object(o)],
    );
    assert_eq!(f32::from_bits(seen[1][2]), 0.5, "{:?}", seen[1]);
}

#[test]
fn ids_and_params_of_another_manager_are_errors_not_panics() {
    let h = device_or_skip!();
    let mut big = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 1);
    rig.register(&h.device, &mut big, &FULL);
    rig.register(&h.device, &mut big, &PREFIX);
    let tint = big.param("tint").unwrap();
    let mut small = Manager::new(&h.device, SlotPlan::default());
    small.register_wgsl("obj.wgsl", "@group(3) @binding(0) var<uniform> world: mat4x4<f32>;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return world[0]; }").unwrap();
    let o = small.create_object();
    // Slot 3 exists in neither order nor size in `small`: an error, nothing written.
    assert!(small.object(o).set(tint, &[1.0f32; 4]).is_err());
    let foreign = freqbuf::ShaderId::clone(&rig.pipelines.keys().copied().max().unwrap());
    assert!(matches!(small.pipeline_layout(foreign), Err(Error::UnknownShader(_))));
    assert!(matches!(small.create_shader_module(foreign), Err(Error::UnknownShader(_))));
    let mut binder = freqbuf::Binder::new();
    let mut enc = h.device.create_command_encoder(&Default::default());
    let mut pass = enc.begin_compute_pass(&Default::default());
    assert!(matches!(binder.bind(&mut small, &mut pass, &Draw::new(foreign)), Err(Error::UnknownShader(_))));
    // A draw that leaves out an instance its shader needs.
    let own = small.registry().shaders().next().unwrap().0;
    small.flush(&h.queue).unwrap();
    let err = binder.bind(&mut small, &mut pass, &Draw::new(own)).unwrap_err();
    assert!(matches!(err, Error::MissingInstance { frequency: Frequency::Object, .. }), "{err}");
}

#[test]
fn scatter_moves_long_and_short_ranges_to_the_right_place() {
    let Some(h) = gpu::adapter_limits_device() else {
        return;
    };
    for strategy in [freqbuf::FlushStrategy::Scatter, freqbuf::FlushStrategy::Copies] {
        let mut m = Manager::with_strategy(&h.device, SlotPlan::default(), strategy);
        // This slot is a third dirty: keep its ranges, which is what this test moves.
        m.set_span_fraction(2.0);
        let mut rig = Rig::new(&h.device, 200);
        let prefix = rig.register(&h.device, &mut m, &PREFIX);
        let (id, tint, world) = (m.param("id").unwrap(), m.param("tint").unwrap(), m.param("world").unwrap());
        let mat = m.create_material();
        let objs = (0..200).map(|_| m.create_object()).collect::<Vec<_>>();
        m.flush(&h.queue).unwrap();
        m.take_stats();
        let mut expect = vec![(0u32, [0.0f32; 4]); objs.len()];
        // Objects 20..70 change entirely: with a small stride their spans touch
        // and coalesce into one long range. Every 7th other object changes its id only.
        for (i, &o) in objs.iter().enumerate() {
            if (20..70).contains(&i) {
                let t = [i as f32, 1.0, 2.0, 3.0];
                m.object(o).set(world, &[[i as f32 + 0.5; 4]; 4]).unwrap();
                m.object(o).set(id, &(i as u32 + 1)).unwrap();
                m.object(o).set(tint, &t).unwrap();
                expect[i] = (i as u32 + 1, t);
            } else if i % 7 == 0 {
                m.object(o).set(id, &(i as u32 * 10)).unwrap();
                expect[i].0 = i as u32 * 10;
            }
        }
        m.flush(&h.queue).unwrap();
        let s = m.take_stats();
        let object_slot = s.slot(id.slot());
        if strategy == freqbuf::FlushStrategy::Scatter {
            assert_eq!(object_slot.dispatches, 1, "{s:?}");
        } else {
            assert!(object_slot.copy_commands > 1, "{s:?}");
        }
        let draws = objs.iter().map(|&o| Draw::new(prefix).material(mat).object(o)).collect::<Vec<_>>();
        let seen = rig.run(h, &mut m, &draws);
        for (i, rec) in seen.iter().enumerate() {
            assert_eq!(rec[3], expect[i].0, "{strategy:?} id of object {i}");
            assert_eq!(&rec[4..8], &expect[i].1.map(f32::to_bits), "{strategy:?} tint of object {i}");
        }
    }
}
