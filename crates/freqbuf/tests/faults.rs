//! Fault injection: a flush whose staging upload, scatter or object
//! creation fails keeps every range it did not move dirty, so the next flush
//! moves it and no value is lost.

use crate::common;

use common::gpu;
use common::scene::{Rig, TWO_BLOCKS};
use freqbuf::fault::FaultSite;
use freqbuf::{Draw, FlushStrategy, Manager, SlotPlan};

fn set(m: &mut Manager, o: freqbuf::ObjectId, i: u32, salt: u32) {
    let (a, b) = (m.param("a").unwrap(), m.param("b").unwrap());
    let words = |k: u32| (0..56).map(|w| i * 1000 + w * 7 + k + salt).collect::<Vec<u32>>();
    m.object(o).set_bytes(a, bytemuck::cast_slice(&words(1))).unwrap();
    m.object(o).set_bytes(b, bytemuck::cast_slice(&words(2))).unwrap();
}

fn expect(i: u32, salt: u32) -> Vec<u32> {
    vec![
        TWO_BLOCKS.tag,
        i * 1000 + 1 + salt,
        i * 1000 + 386 + salt,
        i * 1000 + 2 + salt,
        i * 1000 + 387 + salt,
    ]
}

/// For each site and step: a flush that fails there, then one that succeeds,
/// and every object reads its last values.
#[test]
fn a_failed_flush_keeps_what_it_did_not_move_dirty() {
    // A 1 MiB storage binding cuts the 2,100 objects' 940,800 dirty bytes into
    // four 256 KiB chunks, so a fault can land on the first chunk or a later
    // one, and still lets the scatter pass bind the 1 MiB object buffers.
    let Some(h) = gpu::device_with_limits(|l| l.max_storage_buffer_binding_size = 1 << 20) else { return };
    let cases = [
        (FaultSite::Upload, 0),
        (FaultSite::Upload, 2),
        (FaultSite::Scatter, 0),
        (FaultSite::Scatter, 2),
        (FaultSite::Create, 0),
        (FaultSite::Create, 1),
    ];
    for strategy in [FlushStrategy::Scatter, FlushStrategy::Copies] {
        for (salt, &(site, n)) in cases.iter().enumerate() {
            let salt = salt as u32 + 1;
            let mut m = Manager::with_strategy(&h.device, SlotPlan::default(), strategy);
            m.set_span_fraction(2.0);
            let mut rig = Rig::new(&h.device, 220);
            let shader = rig.register(&h.device, &mut m, &TWO_BLOCKS);
            let mut objs = (0..2000).map(|_| m.create_object()).collect::<Vec<_>>();
            objs.iter().enumerate().for_each(|(i, &o)| set(&mut m, o, i as u32, 0));
            m.flush(&h.queue).unwrap();
            // New objects past the buffers' 2,048: the faulted flush also grows them.
            objs.extend((0..100).map(|_| m.create_object()));
            objs.iter().enumerate().for_each(|(i, &o)| set(&mut m, o, i as u32, salt));
            freqbuf::fault::fail_nth(site, n);
            let failed = m.flush(&h.queue);
            let fired = !freqbuf::fault::disarm();
            if strategy == FlushStrategy::Copies && site == FaultSite::Scatter {
                assert!(failed.is_ok() && !fired, "copies never scatter");
            } else {
                let err = failed.expect_err(&format!("{strategy:?} {site:?} {n}"));
                assert!(common::chain(&err).contains("injected fault"), "{err}");
            }
            m.flush(&h.queue).unwrap();
            // Every tenth object: the record buffer must fit the small storage binding.
            let picks = (0..objs.len()).step_by(10).collect::<Vec<_>>();
            let draws = picks.iter().map(|&i| Draw::new(shader).object(objs[i])).collect::<Vec<_>>();
            let seen = rig.run(&h, &mut m, &draws);
            for (&i, rec) in picks.iter().zip(&seen) {
                assert_eq!(rec, &expect(i as u32, salt), "{strategy:?} {site:?} {n}: object {i}");
            }
        }
    }
}
