//! The render queue: sorted order, back to front in blending passes, bind
//! counts against submission order, and bins that move only what changed.

use crate::common;

use common::gpu;
use freqbuf::{Binder, Manager, SlotPlan};
use freqbuf_effects::{Effects, Geometry, Materials, Order, QueueContext, QueueItem, RenderQueue, Targets};

pub(crate) const TOML: &str = "source = \"q.wgsl\"\nflags = [\"A\"]\n[[technique]]\nname = \"t\"\n  [[technique.pass]]\n  name = \"opaque\"\n  vertex = \"vs\"\n  fragment = \"fs\"\n  [[technique.pass]]\n  name = \"glass\"\n  vertex = \"vs\"\n  fragment = \"fs\"\n  blend = \"additive\"\n";
const WGSL: &str = "struct M { color: vec4<f32> }\nstruct O { pos: vec4<f32> }\n@group(2) @binding(0) var<uniform> m: M;\n@group(3) @binding(0) var<uniform> o: O;\n@vertex fn vs() -> @builtin(position) vec4<f32> { return o.pos; }\n@fragment fn fs() -> @location(0) vec4<f32> {\n#ifdef A\n    return m.color * 2.0;\n#else\n    return m.color;\n#endif\n}\n";

#[test]
fn the_queue_sorts_by_pipeline_material_and_object_and_blending_passes_back_to_front() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let e = fx.add("q.effect.toml", TOML, WGSL).unwrap();
    let mut mats = Materials::new();
    let plain =
        [mats.create(&mut fx, &mut fb, e, &[]).unwrap(), mats.create(&mut fx, &mut fb, e, &[]).unwrap()];
    let flagged = mats.create(&mut fx, &mut fb, e, &["A"]).unwrap();
    let [opaque, glass] = {
        let p = fx.technique(e, "t").unwrap().collect::<Vec<_>>();
        [p[0], p[1]]
    };
    let mut rq = RenderQueue::new();
    let mut ids = Vec::new();
    // Submitted interleaved: material 0, flagged, material 1, ...
    let materials = [plain[0], flagged, plain[1]];
    for i in 0..12 {
        let object = fb.create_object();
        let item = QueueItem {
            pass: opaque,
            material: materials[i % 3],
            view: None,
            object: Some(object),
            geometry: Geometry::vertices(0..3),
            depth: 0.0,
        };
        ids.push((rq.insert(&fx, &mats, item.clone()).unwrap(), item));
    }
    let (order, _) = rq.order("t.opaque");
    // Grouped by pipeline first (the flagged permutation is another pipeline), then material.
    let material_of = |id| ids.iter().find(|(i, _)| *i == id).unwrap().1.material;
    let runs = order.windows(2).filter(|w| material_of(w[0]) != material_of(w[1])).count();
    assert_eq!(runs, 2, "three materials, each drawn in one run");

    // Blending pass: farther first, whatever the submission order.
    let depths = [5.0f32, 20.0, 10.0, 1.0];
    let mut panes = Vec::new();
    for d in depths {
        let item = QueueItem {
            pass: glass,
            material: plain[0],
            view: None,
            object: Some(fb.create_object()),
            geometry: Geometry::vertices(0..3),
            depth: d,
        };
        panes.push(rq.insert(&fx, &mats, item).unwrap());
    }
    let (order, _) = rq.order("t.glass");
    assert_eq!(order, [panes[1], panes[2], panes[0], panes[3]]);

    // Encoding: the queue binds each material once; submission order rebinds per draw.
    fb.flush(&h.queue).unwrap();
    let targets = Targets::color(wgpu::TextureFormat::Rgba8Unorm);
    let view = gpu::texture(
        h,
        wgpu::TextureFormat::Rgba8Unorm,
        wgpu::Extent3d { width: 4, height: 4, depth_or_array_layers: 1 },
        wgpu::TextureUsages::RENDER_ATTACHMENT,
    )
    .create_view(&Default::default());
    let mut binds = Vec::new();
    for sorted in [true, false] {
        fb.take_stats();
        let mut enc = h.device.create_command_encoder(&Default::default());
        let mut pass = gpu::color_pass(&mut enc, &view);
        let mut binder = Binder::new();
        let stats = if sorted {
            rq.encode(
                "t.opaque",
                Order::Sorted,
                &mut QueueContext {
                    effects: &mut fx,
                    manager: &mut fb,
                    materials: &mats,
                    targets: &targets,
                    pass: &mut pass,
                    binder: &mut binder,
                },
            )
            .unwrap()
        } else {
            rq.encode(
                "t.opaque",
                Order::Queued,
                &mut QueueContext {
                    effects: &mut fx,
                    manager: &mut fb,
                    materials: &mats,
                    targets: &targets,
                    pass: &mut pass,
                    binder: &mut binder,
                },
            )
            .unwrap()
        };
        drop(pass);
        h.queue.submit([enc.finish()]);
        assert_eq!(stats.draws, 12);
        binds.push((stats.pipelines, fb.stats().shared.set_bind_group_calls));
    }
    // Sorted: 2 pipelines; the empty groups 0 and 1 once, 3 material groups,
    // 12 object offsets. Submission order: the pipeline changes around every
    // flagged item, and the material group on every draw.
    assert_eq!(binds[0], (2, 2 + 3 + 12));
    assert_eq!(binds[1], (9, 2 + 12 + 12));
}

#[test]
fn bins_move_only_what_changed_and_an_item_changed_twice_is_drawn_once() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let e = fx.add("q.effect.toml", TOML, WGSL).unwrap();
    let mut mats = Materials::new();
    let m = mats.create(&mut fx, &mut fb, e, &[]).unwrap();
    let glass = fx.technique(e, "t").unwrap().nth(1).unwrap();
    let mut rq = RenderQueue::new();
    let mut items = Vec::new();
    for i in 0..200 {
        let item = QueueItem {
            pass: glass,
            material: m,
            view: None,
            object: Some(fb.create_object()),
            geometry: Geometry::vertices(0..3),
            depth: i as f32,
        };
        // Changed again before the queue ever sorted: still one entry.
        let id = rq.insert(&fx, &mats, item.clone()).unwrap();
        rq.update(&fx, &mats, id, QueueItem { depth: i as f32 + 0.5, ..item.clone() }).unwrap();
        items.push((id, item));
    }
    let (order, stats) = rq.order("t.glass");
    assert_eq!(order.len(), 200);
    assert_eq!((stats.full_sorts, stats.moved), (1, 0));
    // One item moves: removed and inserted by binary search, no sort.
    let (id, item) = &items[7];
    rq.update(&fx, &mats, *id, QueueItem { depth: 1000.0, ..item.clone() }).unwrap();
    let (order, stats) = rq.order("t.glass");
    assert_eq!((stats.full_sorts, stats.moved), (0, 2));
    assert_eq!(order[0], *id, "now the farthest");
    assert!(rq.remove(items[8].0).unwrap());
    assert_eq!(rq.order("t.glass").0.len(), 199);
    assert!(!rq.remove(items[8].0).unwrap(), "removed already");
    // An id of another queue, equal in index and generation, is refused and
    // moves nothing of this queue.
    let mut other = RenderQueue::new();
    let foreign = other.insert(&fx, &mats, items[0].1.clone()).unwrap();
    let e = rq.remove(foreign).unwrap_err();
    assert_eq!(common::chain(&e), "cannot use the queue item: the handle belongs to another store");
    assert!(rq.update(&fx, &mats, foreign, items[0].1.clone()).is_err());
    assert_eq!(rq.order("t.glass").0.len(), 199);
}

mod model {
    //! A bin settled by merging its changes in keeps exactly the order of a
    //! bin sorted from scratch, whatever mix of inserts, moves (several per
    //! item between settles) and removals comes before it.
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Insert(u8),
        Move(usize, u8),
        Remove(usize),
        Settle,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => any::<u8>().prop_map(Op::Insert),
            4 => (any::<usize>(), any::<u8>()).prop_map(|(i, d)| Op::Move(i, d)),
            1 => any::<usize>().prop_map(Op::Remove),
            1 => Just(Op::Settle),
        ]
    }

    /// Runs `ops` on a settled bin of 100 items; returns how many settles merged.
    fn run(ops: Vec<Op>) -> Result<u64, TestCaseError> {
        let Some(h) = gpu::device() else { return Ok(0) };
        let mut fb = Manager::new(&h.device, SlotPlan::default());
        let mut fx = Effects::new();
        let e = fx.add("q.effect.toml", TOML, WGSL).unwrap();
        let mut mats = Materials::new();
        let m = mats.create(&mut fx, &mut fb, e, &[]).unwrap();
        let glass = fx.technique(e, "t").unwrap().nth(1).unwrap();
        let mut rq = RenderQueue::new();
        // Few depths, so that ties fall back on the rest of the key.
        let item = |d: u8| QueueItem {
            pass: glass,
            material: m,
            view: None,
            object: None,
            geometry: Geometry::vertices(0..3),
            depth: f32::from(d % 16),
        };
        // Large enough that a few changes merge rather than sort.
        let mut live =
            (0..100u8).map(|d| rq.insert(&fx, &mats, item(d.wrapping_mul(37))).unwrap()).collect::<Vec<_>>();
        rq.order("t.glass");
        let mut merged = 0;
        for op in ops {
            match op {
                Op::Insert(d) => live.push(rq.insert(&fx, &mats, item(d)).unwrap()),
                Op::Move(i, d) if !live.is_empty() => {
                    rq.update(&fx, &mats, live[i % live.len()], item(d)).unwrap()
                }
                Op::Remove(i) if !live.is_empty() => {
                    assert!(rq.remove(live.swap_remove(i % live.len())).unwrap())
                }
                Op::Settle => {
                    let (settled, stats) = rq.order("t.glass");
                    merged += u64::from(stats.full_sorts == 0 && stats.moved > 0);
                    rq.resort_all();
                    let (sorted, _) = rq.order("t.glass");
                    prop_assert_eq!(settled.len(), live.len());
                    prop_assert_eq!(settled, sorted);
                }
                _ => {}
            }
        }
        Ok(merged)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        #[test]
        fn settled_order_equals_a_full_sort(ops in prop::collection::vec(op(), 1..200)) {
            run(ops)?;
        }
    }

    #[test]
    fn a_few_changes_are_merged_not_sorted() {
        if gpu::device().is_none() {
            return;
        }
        let ops = (0..40)
            .flat_map(|i| [Op::Move(i * 7, (i * 5) as u8), Op::Insert(i as u8), Op::Remove(i), Op::Settle]);
        assert_eq!(run(ops.collect()).unwrap(), 40);
    }
}

/// Each object draws the column `o.x` of a 4×1 target with its material's colour.
const COLUMNS: &str = "struct M { color: vec4<f32> }\nstruct O { x: f32 }\n@group(2) @binding(0) var<uniform> m: M;\n@group(3) @binding(0) var<uniform> o: O;\n@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {\n    let c = array(vec2(0.0, -1.0), vec2(1.0, -1.0), vec2(0.0, 1.0), vec2(0.0, 1.0), vec2(1.0, -1.0), vec2(1.0, 1.0));\n    return vec4(o.x + c[i].x * 0.5, c[i].y, 0.0, 1.0);\n}\n@fragment fn fs() -> @location(0) vec4<f32> {\n#ifdef A\n    return m.color * 2.0;\n#else\n    return m.color;\n#endif\n}\n";

/// COLUMNS with object data in an array slot, read by instance index.
pub(crate) const COLUMNS_STORAGE: &str = "struct M { color: vec4<f32> }\nstruct O { x: f32 }\n@group(2) @binding(0) var<uniform> m: M;\n@group(3) @binding(0) var<storage, read> o: array<O>;\n@vertex fn vs(@builtin(vertex_index) i: u32, @builtin(instance_index) k: u32) -> @builtin(position) vec4<f32> {\n    let c = array(vec2(0.0, -1.0), vec2(1.0, -1.0), vec2(0.0, 1.0), vec2(0.0, 1.0), vec2(1.0, -1.0), vec2(1.0, 1.0));\n    return vec4(o[k].x + c[i].x * 0.5, c[i].y, 0.0, 1.0);\n}\n@fragment fn fs() -> @location(0) vec4<f32> {\n#ifdef A\n    return m.color * 2.0;\n#else\n    return m.color;\n#endif\n}\n";

/// Flushes, encodes pass `t.opaque` sorted into a 4×1 target (through its
/// list, or as indirect runs) and reads it back.
pub(crate) fn encode_columns(
    h: &freqbuf::Headless,
    fx: &mut Effects,
    fb: &mut Manager,
    mats: &Materials,
    rq: &mut RenderQueue,
    indirect: bool,
) -> (freqbuf_effects::QueueStats, Vec<u32>) {
    fb.flush(&h.queue).unwrap();
    let target = gpu::texture(
        h,
        wgpu::TextureFormat::Rgba8Unorm,
        wgpu::Extent3d { width: 4, height: 1, depth_or_array_layers: 1 },
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    );
    let view = target.create_view(&Default::default());
    let mut enc = h.device.create_command_encoder(&Default::default());
    let mut pass = gpu::color_pass(&mut enc, &view);
    let targets = Targets::color(wgpu::TextureFormat::Rgba8Unorm);
    let mut binder = Binder::new();
    let mut cx = QueueContext::new(fx, fb, mats, &targets, &mut pass, &mut binder);
    let stats = match indirect {
        true => rq.encode_indirect("t.opaque", &h.queue, &mut cx).unwrap(),
        false => rq.encode("t.opaque", Order::Listed, &mut cx).unwrap(),
    };
    drop(pass);
    (stats, gpu::read_texture(h, enc, &target, 4))
}

#[test]
fn a_sorted_bin_is_drawn_from_a_kept_draw_list_made_again_when_it_no_longer_holds() {
    let Some(h) = gpu::device() else { return };
    kept_list_steps(h, COLUMNS, false);
}

/// The same steps as multi-draw-indirect runs, with object data in an
/// array slot: the red and the green items are one run each (a material
/// bind between them), and every column is read back.
#[test]
fn a_sorted_bin_is_drawn_as_indirect_runs() {
    let Some(h) = gpu::device() else { return };
    assert!(h.device.features().contains(wgpu::Features::INDIRECT_FIRST_INSTANCE), "lavapipe has it");
    kept_list_steps(h, COLUMNS_STORAGE, true);
}

fn kept_list_steps(h: &freqbuf::Headless, shader: &str, indirect: bool) {
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    let e = fx.add("q.effect.toml", TOML, shader).unwrap();
    let opaque = fx.technique(e, "t").unwrap().next().unwrap();
    let mut mats = Materials::new();
    let red = mats.create(&mut fx, &mut fb, e, &[]).unwrap();
    let green = mats.create(&mut fx, &mut fb, e, &[]).unwrap();
    mats.set(&mut fb, red, "color", &[0.2f32, 0.0, 0.0, 1.0]).unwrap();
    mats.set(&mut fb, green, "color", &[0.0f32, 0.4, 0.0, 1.0]).unwrap();
    let x = fb.param("o.x").unwrap();
    let mut rq = RenderQueue::new();
    let mut ids = Vec::new();
    for k in 0..4 {
        let object = fb.create_object();
        fb.object(object).set(x, &(-1.0f32 + 0.5 * k as f32)).unwrap();
        let material = [red, green][k % 2];
        let item = QueueItem {
            pass: opaque,
            material,
            view: None,
            object: Some(object),
            geometry: Geometry::vertices(0..6),
            depth: 0.0,
        };
        ids.push(rq.insert(&fx, &mats, item).unwrap());
    }
    // rgba8 words, little-endian: red 0.2 is 51, green 0.4 is 102 (0.8 doubled: 204).
    let (r, g, g2) = (0xff00_0033u32, 0xff00_6600u32, 0xff00_cc00u32);

    // A new bin is encoded draw by draw; unchanged at the next encode, through a
    // list made then; after that the list and its bind commands are replayed.
    let mut binds = Vec::new();
    for made in [0, 1, 0] {
        let (stats, seen) = encode_columns(h, &mut fx, &mut fb, &mats, &mut rq, indirect);
        assert_eq!((stats.lists_made, stats.draws), (made, 4));
        assert_eq!(seen, [r, g, r, g]);
        let taken = fb.take_stats().shared;
        binds.push(taken.set_bind_group_calls);
        if indirect && made == 0 && binds.len() > 1 {
            assert_eq!(taken.draw_calls, 2, "one call per material's run");
        }
    }
    assert_eq!(binds[1], binds[0], "the recording binds what per-draw binding does");
    assert_eq!(binds[2], binds[1], "a replay sets what the recording set");

    // New flags pick another shader for green's items: the list is made again.
    mats.set_flags(&mut fx, &mut fb, green, &["A"]).unwrap();
    let (stats, seen) = encode_columns(h, &mut fx, &mut fb, &mats, &mut rq, indirect);
    assert_eq!(stats.lists_made, 1);
    assert_eq!(seen, [r, g2, r, g2]);

    // Freeing an instance the queue never drew makes the manager refuse the
    // list (its indices could now name another handle): made again, once.
    let stranger = fb.create_object();
    fb.flush(&h.queue).unwrap();
    fb.free(stranger.into()).unwrap();
    let (stats, seen) = encode_columns(h, &mut fx, &mut fb, &mats, &mut rq, indirect);
    assert_eq!(stats.lists_made, 1);
    assert_eq!(seen, [r, g2, r, g2]);

    // A removed item is no longer drawn: draw by draw, then through a new list.
    assert!(rq.remove(ids[2]).unwrap());
    for made in [0, 1] {
        let (stats, seen) = encode_columns(h, &mut fx, &mut fb, &mats, &mut rq, indirect);
        assert_eq!((stats.lists_made, stats.draws), (made, 3));
        assert_eq!(seen, [r, g2, 0xff00_0000, g2], "column 2 keeps the clear colour");
    }
}

#[test]
fn encoding_a_pass_no_effect_has_is_an_error() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let mut fx = Effects::new();
    fx.add("q.effect.toml", TOML, WGSL).unwrap();
    let mats = Materials::new();
    let view = gpu::texture(
        h,
        wgpu::TextureFormat::Rgba8Unorm,
        wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: 1 },
        wgpu::TextureUsages::RENDER_ATTACHMENT,
    )
    .create_view(&Default::default());
    let mut enc = h.device.create_command_encoder(&Default::default());
    let mut pass = gpu::color_pass(&mut enc, &view);
    let targets = Targets::color(wgpu::TextureFormat::Rgba8Unorm);
    let mut binder = Binder::new();
    let mut cx = QueueContext {
        effects: &mut fx,
        manager: &mut fb,
        materials: &mats,
        targets: &targets,
        pass: &mut pass,
        binder: &mut binder,
    };
    let mut rq = RenderQueue::new();
    for order in [Order::Sorted, Order::Listed, Order::Queued] {
        let e = rq.encode("t.opaqe", order, &mut cx).unwrap_err();
        assert_eq!(
            common::chain(&e),
            "cannot encode pass `t.opaqe`: no loaded effect has a pass of that name; did you mean `t.opaque`?"
        );
    }
    // A known pass with nothing queued draws nothing.
    assert_eq!(rq.encode("t.glass", Order::Sorted, &mut cx).unwrap().draws, 0);
}
