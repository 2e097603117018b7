//! The queue's kept lists across devices and pipelines: a list kept from
//! one device is not used on another (pipelines compare by wgpu id, and ids
//! repeat across Instances), and indirect runs never span two pipelines.

use crate::common;
use crate::queue::{COLUMNS_STORAGE, TOML, encode_columns};

use common::gpu;
use freqbuf::{Manager, SlotPlan};
use freqbuf_effects::{Effects, Geometry, Materials, QueueItem, RenderQueue};

/// Red and green materials, four objects in columns, queued in pass `t.opaque`.
fn columns(fx: &mut Effects, fb: &mut Manager, mats: &mut Materials, rq: &mut RenderQueue) {
    let e = fx.add("q.effect.toml", TOML, COLUMNS_STORAGE).unwrap();
    let opaque = fx.technique(e, "t").unwrap().next().unwrap();
    let red = mats.create(fx, fb, e, &[]).unwrap();
    let green = mats.create(fx, fb, e, &[]).unwrap();
    mats.set(fb, red, "color", &[0.2f32, 0.0, 0.0, 1.0]).unwrap();
    mats.set(fb, green, "color", &[0.0f32, 0.4, 0.0, 1.0]).unwrap();
    let x = fb.param("o.x").unwrap();
    for k in 0..4 {
        let object = fb.create_object();
        fb.object(object).set(x, &(-1.0f32 + 0.5 * k as f32)).unwrap();
        let item = QueueItem {
            pass: opaque,
            material: [red, green][k % 2],
            view: None,
            object: Some(object),
            geometry: Geometry::vertices(0..6),
            depth: 0.0,
        };
        rq.insert(fx, mats, item).unwrap();
    }
}

/// A bin drawn from a kept list (and kept indirect arguments) on one
/// device, then after `recreate` onto devices of new wgpu Instances: the
/// list is made again there and every column is read back.
#[test]
fn kept_lists_are_made_again_after_recreate_on_a_new_instance() {
    let features = wgpu::Features::INDIRECT_FIRST_INSTANCE;
    let devices = [0; 3].map(|_| gpu::device_with(features, |_| {}));
    let [Some(a), Some(b), Some(c)] = &devices else { return };
    let (r, g) = (0xff00_0033u32, 0xff00_6600u32);
    for indirect in [false, true] {
        let mut fb = Manager::new(&a.device, SlotPlan::default());
        let (mut fx, mut mats, mut rq) = (Effects::new(), Materials::new(), RenderQueue::new());
        columns(&mut fx, &mut fb, &mut mats, &mut rq);
        for made in [0, 1, 0] {
            let (stats, seen) = encode_columns(a, &mut fx, &mut fb, &mats, &mut rq, indirect);
            assert_eq!((stats.lists_made, seen.as_slice()), (made, &[r, g, r, g][..]));
        }
        for h in [b, c] {
            fb.recreate(&h.device).unwrap();
            mats.recreate();
            let (stats, seen) = encode_columns(h, &mut fx, &mut fb, &mats, &mut rq, indirect);
            assert_eq!(stats.lists_made, 1, "indirect {indirect}: a list of another device is made again");
            assert_eq!(seen, [r, g, r, g], "indirect {indirect}");
            let (stats, seen) = encode_columns(h, &mut fx, &mut fb, &mats, &mut rq, indirect);
            assert_eq!((stats.lists_made, seen.as_slice()), (0, &[r, g, r, g][..]));
        }
    }
}

/// Two effects with a pass of one name, one with `color_write = false`,
/// queued into one bin: indirect runs draw what `Order::Listed` draws.
#[test]
fn indirect_runs_draw_what_listed_draws_across_render_states() {
    let Some(h) = gpu::device() else { return };
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let (mut fx, mut mats, mut rq) = (Effects::new(), Materials::new(), RenderQueue::new());
    columns(&mut fx, &mut fb, &mut mats, &mut rq);
    let hidden = TOML.replace("  name = \"opaque\"\n", "  name = \"opaque\"\n  color_write = false\n");
    let e = fx.add("hidden.effect.toml", &hidden, COLUMNS_STORAGE).unwrap();
    let pass = fx.technique(e, "t").unwrap().next().unwrap();
    let m = mats.create(&mut fx, &mut fb, e, &[]).unwrap();
    mats.set(&mut fb, m, "color", &[1.0f32, 1.0, 1.0, 1.0]).unwrap();
    let x = fb.param_in("q", "o.x").unwrap_or_else(|_| fb.param("o.x").unwrap());
    for k in 0..4 {
        let object = fb.create_object();
        fb.object(object).set(x, &(-1.0f32 + 0.5 * k as f32)).unwrap();
        let geometry = Geometry::vertices(0..6);
        let item = QueueItem { pass, material: m, view: None, object: Some(object), geometry, depth: 0.0 };
        rq.insert(&fx, &mats, item).unwrap();
    }
    let (r, g) = (0xff00_0033u32, 0xff00_6600u32);
    for indirect in [false, false, true, true] {
        let (_, seen) = encode_columns(h, &mut fx, &mut fb, &mats, &mut rq, indirect);
        assert_eq!(seen, [r, g, r, g], "indirect {indirect}: the hidden pass writes no colour");
    }
}
