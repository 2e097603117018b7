//! Handles of another manager: params and shader ids carry their registry's
//! tag and are refused; nothing of the other manager is written or read.

use crate::common;

use common::gpu;
use common::scene::{FULL, LIGHTS, Rig};
use freqbuf::{Binder, Draw, Error, Manager, SlotPlan};

#[test]
fn params_and_shader_ids_of_another_manager_are_refused() {
    let Some(h) = gpu::device() else { return };
    let (mut a, mut b) =
        (Manager::new(&h.device, SlotPlan::default()), Manager::new(&h.device, SlotPlan::default()));
    let (mut rig_a, mut rig_b) = (Rig::new(&h.device, 1), Rig::new(&h.device, 1));
    let full_a = rig_a.register(&h.device, &mut a, &FULL);
    rig_a.register(&h.device, &mut a, &LIGHTS);
    let full_b = rig_b.register(&h.device, &mut b, &FULL);
    rig_b.register(&h.device, &mut b, &LIGHTS);
    // The same shaders give equal layouts, so only the tag tells the params apart.
    let (color_a, lights_a) = (a.param("color").unwrap(), a.param("lights").unwrap());
    let (mat, v) = (b.create_material(), b.create_view());
    let err = b.material(mat).set(color_a, &[1.0f32; 4]).unwrap_err();
    assert!(matches!(err, Error::Foreign("parameter")), "{err}");
    assert_eq!(err.to_string(), "this parameter belongs to another manager");
    assert!(matches!(b.view(v).get_bytes(lights_a), Err(Error::Foreign(_))));
    assert!(matches!(b.view(v).set_bytes(lights_a, &[0; 64]), Err(Error::Foreign(_))));
    // b's own param still works and nothing was written through a's.
    let color_b = b.param("color").unwrap();
    assert_eq!(b.material(mat).get_bytes(color_b).unwrap(), vec![0u8; 16]);
    assert_ne!(full_a, full_b);
    assert!(matches!(b.pipeline_layout(full_a), Err(Error::UnknownShader(_))));
    b.flush(&h.queue).unwrap();
    let mut enc = h.device.create_command_encoder(&Default::default());
    let mut pass = enc.begin_compute_pass(&Default::default());
    let err = Binder::new().bind(&mut b, &mut pass, &Draw::new(full_a)).unwrap_err();
    assert!(matches!(err, Error::UnknownShader(_)), "{err}");
}

/// Instance handles carry their manager's tag too: one of another manager is
/// refused by set, get, free, bind and draw lists, even where this manager
/// has a live instance at the same index, which keeps its values.
#[test]
fn instance_handles_of_another_manager_are_refused() {
    let Some(h) = gpu::device() else { return };
    let (mut a, mut b) =
        (Manager::new(&h.device, SlotPlan::default()), Manager::new(&h.device, SlotPlan::default()));
    let (mut rig_a, mut rig_b) = (Rig::new(&h.device, 1), Rig::new(&h.device, 1));
    rig_a.register(&h.device, &mut a, &FULL);
    let full_b = rig_b.register(&h.device, &mut b, &FULL);
    // The same creation order gives the same indices and generations in both.
    let (va, ma, oa) = (a.create_view(), a.create_material(), a.create_object());
    let (vb, mb, ob) = (b.create_view(), b.create_material(), b.create_object());
    assert_eq!((va.to_bits(), oa.to_bits()), (vb.to_bits(), ob.to_bits()));
    let id = b.param("id").unwrap();
    b.object(ob).set(id, &7u32).unwrap();
    let err = b.object(oa).set(id, &9u32).unwrap_err();
    assert!(matches!(err, Error::Foreign("instance handle")), "{err}");
    assert_eq!(err.to_string(), "this instance handle belongs to another manager");
    assert!(matches!(b.object(oa).get_bytes(id), Err(Error::Foreign(_))));
    assert!(matches!(b.free_object(oa), Err(Error::Foreign(_))));
    assert!(matches!(b.free_material(ma), Err(Error::Foreign(_))));
    // b's own object kept its value and is still live.
    assert_eq!(b.object(ob).get_bytes(id).unwrap(), 7u32.to_le_bytes());
    b.flush(&h.queue).unwrap();
    let foreign = Draw::new(full_b).view(va).material(mb).object(ob);
    assert!(matches!(b.draw_list(&[foreign]), Err(Error::Foreign(_))));
    let mut enc = h.device.create_command_encoder(&Default::default());
    let mut pass = enc.begin_compute_pass(&Default::default());
    let err = Binder::new().bind(&mut b, &mut pass, &foreign).unwrap_err();
    assert!(matches!(err, Error::Foreign("instance handle")), "{err}");
    let own = Draw::new(full_b).view(vb).material(mb).object(ob);
    Binder::new().bind(&mut b, &mut pass, &own).unwrap();
    assert_eq!(b.instance_count(freqbuf::Frequency::Object), 1);
}
