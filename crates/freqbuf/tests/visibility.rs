//! The visibility rule under every order of operations: a draw bound after a
//! create, a free and re-create, or a register that the GPU copy does not
//! reflect yet gets `Error::NotFlushed` or the values of the last flush, never
//! another instance's bytes and never a wgpu panic.

use crate::common;

use common::gpu;
use common::scene::{Kind, Report, Rig, TestShader};
use freqbuf::{Draw, Error, Frequency, Manager, SlotPlan};

const fn r(name: &'static str, kind: Kind) -> Report {
    Report { name, kind }
}

/// `Object` at 16 bytes: stride 256 at WebGPU's default alignment.
const SMALL: TestShader = TestShader {
    tag: 11,
    wgsl: r#"
struct Object { slot: u32, a: u32, b: u32, c: u32 }
@group(3) @binding(0) var<uniform> object: Object;
@compute @workgroup_size(1) fn main() { begin(11u); put(object.slot); put(object.a); }
"#,
    reports: &[r("slot", Kind::U32), r("a", Kind::U32)],
};

/// The same block grown to 336 bytes: stride 512.
const GROWN: TestShader = TestShader {
    tag: 12,
    wgsl: r#"
struct ObjectGrown { slot: u32, a: u32, b: u32, c: u32, _pad0: array<vec4<f32>, 19>, d: vec4<f32> }
@group(3) @binding(0) var<uniform> object: ObjectGrown;
@compute @workgroup_size(1) fn main() { begin(12u); put(object.slot); put(object.a); put4(object.d); }
"#,
    reports: &[r("slot", Kind::U32), r("a", Kind::U32), r("d", Kind::Vec4)],
};

macro_rules! device_or_skip {
    () => {
        match gpu::device() {
            Some(h) => h,
            None => return,
        }
    };
}

#[test]
fn a_register_that_changes_the_stride_never_shows_another_objects_values() {
    let h = device_or_skip!();
    for objects in [6u32, 10, 40] {
        let mut m = Manager::new(&h.device, SlotPlan::default());
        let mut rig = Rig::new(&h.device, 2 * objects);
        let small = rig.register(&h.device, &mut m, &SMALL);
        let (slot, a) = (m.param("slot").unwrap(), m.param("a").unwrap());
        let objs = (0..objects)
            .map(|i| {
                let o = m.create_object();
                m.object(o).set(slot, &i).unwrap();
                m.object(o).set(a, &(100 + i)).unwrap();
                o
            })
            .collect::<Vec<_>>();
        m.flush(&h.queue).unwrap();
        assert_eq!(m.slot_stride(slot.slot()), Some(256));
        let grown = rig.register(&h.device, &mut m, &GROWN);
        assert_eq!(m.slot_stride(slot.slot()), Some(512));
        // No flush yet: the old shader sees the last flush's values, the new one waits.
        let draws = objs.iter().map(|&o| Draw::new(small).object(o)).collect::<Vec<_>>();
        for (i, rec) in rig.try_run(h, &mut m, &draws).into_iter().enumerate() {
            let i = i as u32;
            match rec {
                Ok(rec) => assert_eq!(rec, [11, i, 100 + i], "object {i} of {objects}"),
                Err(e) => assert!(matches!(e, Error::NotFlushed(Frequency::Object)), "{e}"),
            }
        }
        let err = rig.try_run(h, &mut m, &[Draw::new(grown).object(objs[1])]).remove(0).unwrap_err();
        assert!(matches!(err, Error::NotFlushed(Frequency::Object)), "{err}");
        m.flush(&h.queue).unwrap();
        let draws = objs.iter().flat_map(|&o| [Draw::new(small).object(o), Draw::new(grown).object(o)]);
        let seen = rig.run(h, &mut m, &draws.collect::<Vec<_>>());
        for (i, pair) in seen.chunks(2).enumerate() {
            let i = i as u32;
            assert_eq!(pair[0], [11, i, 100 + i], "after the flush, object {i} of {objects}");
            assert_eq!(pair[1], [12, i, 100 + i, 0, 0, 0, 0], "after the flush, object {i} of {objects}");
        }
    }
}

#[test]
fn an_instance_created_after_the_last_flush_cannot_be_drawn() {
    let h = device_or_skip!();
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 4);
    let small = rig.register(&h.device, &mut m, &SMALL);
    let a = m.param("a").unwrap();
    let first = m.create_object();
    m.object(first).set(a, &111u32).unwrap();
    m.flush(&h.queue).unwrap();
    m.free_object(first).unwrap();
    // Reuses index 0, whose GPU bytes still hold 111.
    let second = m.create_object();
    m.object(second).set(a, &222u32).unwrap();
    let err = rig.try_run(h, &mut m, &[Draw::new(small).object(second)]).remove(0).unwrap_err();
    assert!(matches!(err, Error::NotFlushed(Frequency::Object)), "{err}");
    // A brand-new index inside the GPU capacity waits for the flush too.
    let third = m.create_object();
    let err = rig.try_run(h, &mut m, &[Draw::new(small).object(third)]).remove(0).unwrap_err();
    assert!(matches!(err, Error::NotFlushed(Frequency::Object)), "{err}");
    m.flush(&h.queue).unwrap();
    let seen = rig.run(h, &mut m, &[Draw::new(small).object(second), Draw::new(small).object(third)]);
    assert_eq!(seen, [vec![11, 0, 222], vec![11, 0, 0]]);
}
