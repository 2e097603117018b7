//! Flush under large legal loads: slots that would pass `max_buffer_size` are
//! typed errors that lose nothing, and packed uploads larger than a storage
//! binding are cut into chunks.

use crate::common;

use common::gpu;
use common::scene::{Rig, TWO_BLOCKS};
use freqbuf::{Draw, Error, FlushStrategy, Frequency, Manager, SlotPlan};

fn fill(m: &mut Manager, n: u32, salt: u32) -> Vec<freqbuf::ObjectId> {
    let (a, b) = (m.param("a").unwrap(), m.param("b").unwrap());
    (0..n)
        .map(|i| {
            let o = m.create_object();
            set_object(m, o, a, b, i, salt);
            o
        })
        .collect()
}

fn set_object(
    m: &mut Manager,
    o: freqbuf::ObjectId,
    a: freqbuf::Param,
    b: freqbuf::Param,
    i: u32,
    salt: u32,
) {
    let words = |k: u32| (0..56).map(|w| i * 1000 + w * 7 + k + salt).collect::<Vec<u32>>();
    m.object(o).set_bytes(a, bytemuck::cast_slice(&words(1))).unwrap();
    m.object(o).set_bytes(b, bytemuck::cast_slice(&words(2))).unwrap();
}

fn expect(i: u32, salt: u32) -> Vec<u32> {
    vec![
        TWO_BLOCKS.tag,
        i * 1000 + 1 + salt,
        i * 1000 + 55 * 7 + 1 + salt,
        i * 1000 + 2 + salt,
        i * 1000 + 55 * 7 + 2 + salt,
    ]
}

/// Draws every `step`-th object (and the last) and checks what it saw.
fn check(h: &freqbuf::Headless, m: &mut Manager, objs: &[freqbuf::ObjectId], step: usize, salt: u32) {
    let mut picks = (0..objs.len()).step_by(step).collect::<Vec<_>>();
    picks.push(objs.len() - 1);
    let mut rig = Rig::new(&h.device, picks.len() as u32);
    let shader = rig.register(&h.device, m, &TWO_BLOCKS);
    m.flush(&h.queue).unwrap();
    let draws = picks.iter().map(|&i| Draw::new(shader).object(objs[i])).collect::<Vec<_>>();
    let seen = rig.run(h, m, &draws);
    for (&i, rec) in picks.iter().zip(&seen) {
        let full = expect(i as u32, salt);
        assert_eq!(&rec[..], &full[..rec.len()], "object {i}");
    }
}

/// Registers the two-block shader, fills and flushes 2,000 objects, then
/// rewrites every one and flushes again; returns the objects and that flush's stats.
fn rewrite_all(h: &freqbuf::Headless, m: &mut Manager) -> (Vec<freqbuf::ObjectId>, freqbuf::FrameStats) {
    let mut rig = Rig::new(&h.device, 1);
    rig.register(&h.device, m, &TWO_BLOCKS);
    let objs = fill(m, 2000, 0);
    m.flush(&h.queue).unwrap();
    let (a, b) = (m.param("a").unwrap(), m.param("b").unwrap());
    for (i, &o) in objs.iter().enumerate() {
        set_object(m, o, a, b, i as u32, 5);
    }
    m.take_stats();
    m.flush(&h.queue).unwrap();
    (objs, m.take_stats())
}

#[test]
fn uploads_larger_than_a_storage_binding_are_cut_into_chunks() {
    // A 64 KiB storage binding gives 16 KiB chunks; 2,000 objects of 2 x 224 dirty bytes are 896,000 bytes.
    let Some(h) = gpu::device_with_limits(|l| l.max_storage_buffer_binding_size = 64 << 10) else { return };
    for strategy in [FlushStrategy::Scatter, FlushStrategy::Copies, FlushStrategy::Auto] {
        let mut m = Manager::with_strategy(&h.device, SlotPlan::default(), strategy);
        // Everything is dirty: keep the ranges, whose chunking this test checks.
        m.set_span_fraction(2.0);
        // Rewrite everything: no growth this time, every range goes through the chunks.
        let (objs, s) = rewrite_all(&h, &mut m);
        let chunks = s.shared.upload_calls;
        assert!(chunks >= 896_000 / (16 << 10), "{strategy:?}: {chunks} chunks, {s:?}");
        assert_eq!(s.total().bytes_uploaded - s.shared.bytes_uploaded, 896_000, "{strategy:?}");
        check(&h, &mut m, &objs, 11, 5);
    }
}

#[test]
fn a_scatter_table_of_ranges_of_one_length_names_only_their_destinations() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::with_strategy(&h.device, SlotPlan::default(), FlushStrategy::Scatter);
    // Half dirty: keep the ranges, whose table this test checks.
    m.set_span_fraction(2.0);
    let mut rig = Rig::new(&h.device, 1);
    rig.register(&h.device, &mut m, &TWO_BLOCKS);
    let objs = fill(&mut m, 2001, 0);
    m.flush(&h.queue).unwrap();
    let (a, b) = (m.param("a").unwrap(), m.param("b").unwrap());
    // Every other object: 1,001 ranges of 224 bytes in each of the two slots.
    for i in (0..2001).step_by(2) {
        set_object(&mut m, objs[i], a, b, i as u32, 9);
    }
    m.take_stats();
    m.flush(&h.queue).unwrap();
    let s = m.take_stats();
    assert_eq!(s.total().bytes_uploaded - s.shared.bytes_uploaded, 2 * 1001 * 224, "{s:?}");
    // Per slot a 16-byte header and 4 bytes a range, besides the alignment
    // before a table; pairs of words took (1,001 + 2) x 8 bytes a slot.
    let align = h.device.limits().min_storage_buffer_offset_alignment as u64;
    let tables = s.shared.bytes_uploaded;
    assert!((2 * (16 + 4 * 1001)..=2 * (16 + 4 * 1001) + 2 * align).contains(&tables), "{tables}: {s:?}");
    // Ranges of several lengths (a range cut at a chunk's end) keep pairs:
    // `uploads_larger_than_a_storage_binding_are_cut_into_chunks` reads those back.
    check(h, &mut m, &objs, 2, 9);
}

#[test]
fn a_mostly_dirty_slot_is_one_upload_of_its_span() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let (objs, s) = rewrite_all(h, &mut m);
    let object = s.slot(m.param("a").unwrap().slot());
    // One write of the span, no staging, copies or dispatches.
    assert_eq!((object.upload_calls, object.copy_commands, object.dispatches), (1, 0, 0), "{s:?}");
    assert_eq!(s.shared.upload_calls, 0, "{s:?}");
    check(h, &mut m, &objs, 11, 5);
}

#[test]
fn the_reference_case_of_300_000_objects_with_two_blocks_flushes() {
    // At WebGPU's defaults: 134 MB of dirty bytes in one flush, past the 128 MiB storage binding.
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 1);
    rig.register(&h.device, &mut m, &TWO_BLOCKS);
    let objs = fill(&mut m, 300_000, 3);
    m.flush(&h.queue).unwrap();
    check(h, &mut m, &objs, 997, 3);
}

#[test]
fn a_slot_past_max_buffer_size_is_an_error_that_loses_nothing() {
    // 1 MiB buffers hold 4,096 objects at stride 256.
    let Some(h) = gpu::device_with_limits(|l| l.max_buffer_size = 1 << 20) else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 1);
    rig.register(&h.device, &mut m, &TWO_BLOCKS);
    let mut objs = fill(&mut m, 4000, 0);
    m.flush(&h.queue).unwrap();
    let more = fill(&mut m, 200, 0);
    // An old object changes in the same flush that fails for the new ones.
    let (a, b) = (m.param("a").unwrap(), m.param("b").unwrap());
    set_object(&mut m, objs[10], a, b, 10, 9);
    let err = m.flush(&h.queue).unwrap_err();
    assert_eq!(
        err.to_string(),
        "slot @group(3) @binding(0) needs 4200 instances of 256 bytes, over max_buffer_size (1048576 bytes); instances past the limit stay unflushed"
    );
    assert!(matches!(err, Error::SlotTooLarge { instances: 4200, .. }));
    let mut rig = Rig::new(&h.device, 2);
    let shader = rig.register(&h.device, &mut m, &TWO_BLOCKS);
    let _ = m.flush(&h.queue);
    let seen =
        rig.try_run(&h, &mut m, &[Draw::new(shader).object(objs[10]), Draw::new(shader).object(more[150])]);
    assert_eq!(seen[0].as_ref().unwrap(), &expect(10, 9), "the old object's change was flushed");
    assert!(matches!(seen[1], Err(Error::NotFlushed(Frequency::Object))), "{:?}", seen[1]);
    // Freeing and reusing indices keeps the slot under the limit.
    for o in more {
        m.free_object(o).unwrap();
    }
    objs.truncate(4000);
    check(&h, &mut m, &objs, 397, 0);
}

#[test]
fn a_4_kib_storage_binding_flushes_by_scatter_within_it() {
    // The chunk floor once was 4 KiB of data alone: the scatter's bind group
    // then exceeded a 4 KiB binding and every flush failed.
    let Some(h) = gpu::device_with_limits(|l| l.max_storage_buffer_binding_size = 4 << 10) else { return };
    for strategy in [FlushStrategy::Scatter, FlushStrategy::Auto] {
        let mut m = Manager::with_strategy(&h.device, SlotPlan::default(), strategy);
        m.set_span_fraction(2.0);
        let (objs, s) = rewrite_all(&h, &mut m);
        assert!(s.shared.upload_calls >= 896_000 / 1024, "{strategy:?}: {s:?}");
        check(&h, &mut m, &objs, 199, 5);
    }
}

#[test]
fn instances_below_max_buffer_size_flush_when_later_ones_do_not_fit() {
    // 1 MiB buffers hold 4,096 objects at stride 256; the first flush sees 5,000.
    let Some(h) = gpu::device_with_limits(|l| l.max_buffer_size = 1 << 20) else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 3);
    let shader = rig.register(&h.device, &mut m, &TWO_BLOCKS);
    let objs = fill(&mut m, 5000, 0);
    let err = m.flush(&h.queue).unwrap_err();
    assert!(matches!(err, Error::SlotTooLarge { instances: 5000, .. }), "{err}");
    let draws = [10, 4095, 4096].map(|i| Draw::new(shader).object(objs[i]));
    let seen = rig.try_run(&h, &mut m, &draws);
    assert_eq!(seen[0].as_ref().unwrap(), &expect(10, 0));
    assert_eq!(seen[1].as_ref().unwrap(), &expect(4095, 0), "the last instance that fits");
    assert!(matches!(seen[2], Err(Error::NotFlushed(Frequency::Object))), "{:?}", seen[2]);
}

/// `flush_into` records the flush into the application's encoder: the
/// growth copies of the first flush and the chunks of the second (each with
/// its own staging buffer, since nothing is submitted between them) reach
/// draws recorded after it in the same encoder, with one submit.
#[test]
fn a_flush_into_the_frame_encoder_reaches_the_draws_after_it() {
    let Some(h) = gpu::device_with_limits(|l| l.max_storage_buffer_binding_size = 64 << 10) else { return };
    for strategy in [FlushStrategy::Scatter, FlushStrategy::Copies, FlushStrategy::Auto] {
        let mut m = Manager::with_strategy(&h.device, SlotPlan::default(), strategy);
        m.set_span_fraction(2.0);
        let picks = (0..2000).step_by(97).chain([1999]).collect::<Vec<usize>>();
        let mut rig = Rig::new(&h.device, picks.len() as u32);
        let shader = rig.register(&h.device, &mut m, &TWO_BLOCKS);
        let (a, b) = (m.param("a").unwrap(), m.param("b").unwrap());
        // Salt 0: new objects, so the slot grows in this flush; salt 5: all rewritten.
        let objs = fill(&mut m, 2000, 0);
        for salt in [0, 5] {
            if salt != 0 {
                for (i, &o) in objs.iter().enumerate() {
                    set_object(&mut m, o, a, b, i as u32, salt);
                }
            }
            m.take_stats();
            let draws = picks.iter().map(|&i| Draw::new(shader).object(objs[i])).collect::<Vec<_>>();
            let seen = rig.run_flushed_into(&h, &mut m, &draws);
            for (&i, rec) in picks.iter().zip(&seen) {
                let full = expect(i as u32, salt);
                assert_eq!(&rec[..], &full[..rec.len()], "{strategy:?}, salt {salt}, object {i}");
            }
            if salt != 0 {
                let chunks = m.take_stats().shared.upload_calls;
                assert!(chunks > 1, "{strategy:?}: {chunks} chunks");
            }
        }
    }
}

/// Two `flush_into`s before either encoder is submitted: the second never
/// writes the staging buffer the first encoder's copies read, so each
/// encoder's draws see the values of the flush recorded in it.
#[test]
fn a_second_flush_before_the_first_encoder_is_submitted_does_not_corrupt_it() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::with_strategy(&h.device, SlotPlan::default(), FlushStrategy::Copies);
    m.set_span_fraction(2.0);
    let picks = [0usize, 500, 998];
    // One record buffer: each encoder clears it first, and is read after its submit.
    let mut rig = Rig::new(&h.device, picks.len() as u32);
    let shader = rig.register(&h.device, &mut m, &TWO_BLOCKS);
    let objs = fill(&mut m, 1000, 0);
    m.flush(&h.queue).unwrap();
    let (a, b) = (m.param("a").unwrap(), m.param("b").unwrap());
    let draws = picks.iter().map(|&i| Draw::new(shader).object(objs[i])).collect::<Vec<_>>();
    let mut encoders = Vec::new();
    for salt in [3u32, 9] {
        // Every other object: many ranges per slot, so they go through staging.
        for (i, &o) in objs.iter().enumerate().step_by(2) {
            set_object(&mut m, o, a, b, i as u32, salt);
        }
        encoders.push(rig.record_flushed_into(h, &mut m, &draws));
    }
    for (k, (enc, outcomes)) in encoders.into_iter().enumerate() {
        h.queue.submit([enc.finish()]);
        let seen = rig.read(h, &draws, outcomes);
        let salt = [3, 9][k];
        for (&i, rec) in picks.iter().zip(&seen) {
            assert_eq!(&rec[..], &expect(i as u32, salt)[..rec.len()], "encoder {k}, object {i}");
        }
    }
}

/// Frames of `flush_into`, each submitted and waited for: the staging buffer
/// is kept, so after the first frames no flush makes a buffer, and every
/// frame's draws see that frame's values (a staging write that landed before
/// the encoder's copies ran would show the next frame's). A frame whose
/// encoder is still unsubmitted at the next flush keeps its own values too.
#[test]
fn flushes_into_frame_encoders_keep_their_staging_buffer() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::with_strategy(&h.device, SlotPlan::default(), FlushStrategy::Copies);
    m.set_span_fraction(2.0);
    let picks = [0usize, 500, 998];
    let mut rig = Rig::new(&h.device, picks.len() as u32);
    let shader = rig.register(&h.device, &mut m, &TWO_BLOCKS);
    let objs = fill(&mut m, 1000, 0);
    m.flush(&h.queue).unwrap();
    let (a, b) = (m.param("a").unwrap(), m.param("b").unwrap());
    let draws = picks.iter().map(|&i| Draw::new(shader).object(objs[i])).collect::<Vec<_>>();
    let mut made = Vec::new();
    for salt in 1..=6u32 {
        for (i, &o) in objs.iter().enumerate().step_by(2) {
            set_object(&mut m, o, a, b, i as u32, salt);
        }
        m.take_stats();
        let seen = rig.run_flushed_into(h, &mut m, &draws);
        made.push(m.take_stats().total().staging_buffers_created);
        for (&i, rec) in picks.iter().zip(&seen) {
            assert_eq!(&rec[..], &expect(i as u32, salt)[..rec.len()], "frame {salt}, object {i}");
        }
    }
    assert!(made[2..].iter().all(|&n| n == 0), "staging buffers made per frame: {made:?}");
    // Held across the next flush, then submitted after it: still its own values.
    for (i, &o) in objs.iter().enumerate().step_by(2) {
        set_object(&mut m, o, a, b, i as u32, 7);
    }
    let (held, outcomes) = rig.record_flushed_into(h, &mut m, &draws);
    for (i, &o) in objs.iter().enumerate().step_by(2) {
        set_object(&mut m, o, a, b, i as u32, 8);
    }
    let (next, next_outcomes) = rig.record_flushed_into(h, &mut m, &draws);
    h.queue.submit([held.finish()]);
    let seen = rig.read(h, &draws, outcomes);
    for (&i, rec) in picks.iter().zip(&seen) {
        assert_eq!(&rec[..], &expect(i as u32, 7)[..rec.len()], "held encoder, object {i}");
    }
    h.queue.submit([next.finish()]);
    let seen = rig.read(h, &draws, next_outcomes);
    for (&i, rec) in picks.iter().zip(&seen) {
        assert_eq!(&rec[..], &expect(i as u32, 8)[..rec.len()], "next encoder, object {i}");
    }
}

/// wgpu's staging belt keeps every chunk it made, so after a burst the
/// uploader drops it (`upload/belt.rs`, `Trim`): a burst of 9 MB, 130
/// flushes of a few bytes (the belt is dropped at the end of a window),
/// then another burst into a new belt, each read back.
#[test]
fn uploads_after_the_staging_belt_let_a_burst_go_reach_the_gpu() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 1);
    rig.register(&h.device, &mut m, &TWO_BLOCKS);
    let objs = fill(&mut m, 20_000, 3);
    m.flush(&h.queue).unwrap();
    let (a, b) = (m.param("a").unwrap(), m.param("b").unwrap());
    for f in 0..130u32 {
        let i = f * 97 % 20_000;
        set_object(&mut m, objs[i as usize], a, b, i, 4);
        m.flush(&h.queue).unwrap();
        set_object(&mut m, objs[i as usize], a, b, i, 3);
        m.flush(&h.queue).unwrap();
    }
    check(h, &mut m, &objs, 613, 3);
    for (i, &o) in objs.iter().enumerate() {
        set_object(&mut m, o, a, b, i as u32, 9);
    }
    m.flush(&h.queue).unwrap();
    check(h, &mut m, &objs, 613, 9);
}
