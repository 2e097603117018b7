//! Device loss loses nothing: a manager moves to a new device, rebuilds every
//! slot buffer from its CPU shadows, and draws see what they saw before.

use crate::common;

use common::gpu;
use common::scene::{self, FULL, LIGHTS, Model, Rig};
use freqbuf::{Draw, Error, Manager, SlotPlan};

#[test]
fn a_manager_moved_to_a_new_device_draws_the_same_values() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 16);
    let (full, lights) = (rig.register(&h.device, &mut m, &FULL), rig.register(&h.device, &mut m, &LIGHTS));
    let mut model = Model::default();
    let v = m.create_view();
    let mats = [m.create_material(), m.create_material()];
    let objs = (0..5).map(|_| m.create_object()).collect::<Vec<_>>();
    let mut draws = Vec::new();
    for (i, &o) in objs.iter().enumerate() {
        for (s, d) in [
            (&FULL, Draw::new(full).view(v).material(mats[i % 2]).object(o)),
            (&LIGHTS, Draw::new(lights).view(v).object(o)),
        ] {
            for (k, rep) in s.reports.iter().enumerate() {
                let p = m.param(rep.name).unwrap();
                let id = d.instance(p.frequency()).unwrap();
                let words = (0..rep.kind.words())
                    .map(|w| scene::word(rep.kind, (i * 31 + k) as u32, w))
                    .collect::<Vec<_>>();
                scene::set(&mut m, id, p, rep.kind, &words).unwrap();
                model.values.insert((id, rep.name), words);
            }
            draws.push(d);
        }
    }
    m.flush(&h.queue).unwrap();
    let before = rig.run(h, &mut m, &draws);

    // A fresh device from the same adapter, then one whose offset alignment differs.
    let fresh = gpu::device_with_limits(|_| {}).unwrap();
    let targets = [&fresh, gpu::adapter_limits_device().unwrap()];
    for (n, target) in targets.into_iter().enumerate() {
        m.recreate(&target.device).unwrap();
        let mut rig = Rig::new(&target.device, 16);
        rig.adopt(&target.device, &mut m, full, &FULL);
        rig.adopt(&target.device, &mut m, lights, &LIGHTS);
        let e = rig.try_run(target, &mut m, &draws[..1]).remove(0).unwrap_err();
        assert!(matches!(e, Error::NotFlushed(_)), "move {n}: {e}");
        m.flush(&target.queue).unwrap();
        let after = rig.run(target, &mut m, &draws);
        assert_eq!(after, before, "move {n}: every draw sees what it saw before");
        for (d, rec) in draws.iter().zip(&after) {
            let s = if d.shader() == full { &FULL } else { &LIGHTS };
            assert_eq!(rec, &model.expect(&m, s, d));
        }
    }
}

/// A device with a smaller uniform binding cannot hold a registered 32 KiB
/// block: `recreate` refuses and changes nothing, and a manager that moved
/// to a device checks later registrations against that device's limit.
#[test]
fn recreate_checks_blocks_against_the_new_devices_uniform_limit() {
    let Some(h) = gpu::device() else { return };
    const BIG: &str = "struct Big { v: array<vec4<f32>, 2048> }\n@group(1) @binding(0) var<uniform> big: Big;\n@fragment fn fs() -> @location(0) vec4<f32> { return big.v[7]; }\n";
    let mut m = Manager::new(&h.device, SlotPlan::default());
    m.register_wgsl("big.wgsl", BIG).unwrap();
    let small = gpu::device_with_limits(|l| l.max_uniform_buffer_binding_size = 16 << 10).unwrap();
    let e = m.recreate(&small.device).unwrap_err();
    assert!(common::chain(&e).contains("big.wgsl"), "{e}");
    assert!(common::chain(&e).contains("16384"), "{e}");
    // Nothing changed: the manager still draws on its own device.
    let v = m.create_view();
    m.flush(&h.queue).unwrap();
    assert!(m.pipeline_layout(m.registry().shaders().next().unwrap().0).is_ok());
    m.free_view(v).unwrap();

    // A manager with no large block moves, then meets the new device's limit.
    let mut m = Manager::new(&h.device, SlotPlan::default());
    m.recreate(&small.device).unwrap();
    let e = m.register_wgsl("big.wgsl", BIG).unwrap_err();
    assert!(common::chain(&e).contains("16384"), "{e}");
}

/// `set_span_fraction` is the application's setting: it holds across
/// `recreate` (it was reset to the default with the uploader).
#[test]
fn the_span_fraction_survives_recreate() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    m.register_wgsl(
        "o.wgsl",
        "struct O { world: mat4x4<f32> }
         @group(3) @binding(0) var<uniform> o: O;
         @vertex fn vs() -> @builtin(position) vec4<f32> { return o.world[0]; }",
    )
    .unwrap();
    let world = m.param("world").unwrap();
    let objs = (0..64).map(|_| m.create_object()).collect::<Vec<_>>();
    m.flush(&h.queue).unwrap();
    m.set_span_fraction(2.0); // never one span
    m.recreate(&h.device).unwrap();
    m.flush(&h.queue).unwrap();
    // 64 of every 256 bytes: a quarter of the span dirty, which the default (0.2) makes one span.
    for &o in &objs {
        m.object(o).set(world, &[[1.0f32; 4]; 4]).unwrap();
    }
    m.take_stats();
    m.flush(&h.queue).unwrap();
    assert_eq!(m.take_stats().total().whole_spans, 0, "the fraction set before recreate holds");
}
