//! Device flags: an effect's `BINDLESS` is on where the device has binding
//! arrays and off elsewhere, materials never name it, and the whole-effect
//! check takes each setting as its own layout set (a slab in one, a uniform
//! block in the other, at one point).

use crate::common;

use common::gpu;
use freqbuf::{Binder, BindingPoint, Draw, Headless, Manager, Registry, SlotPlan};
use freqbuf_effects::{Effects, Targets};

fn path(name: &str) -> String {
    format!("{}/tests/effects/{name}", env!("CARGO_MANIFEST_DIR"))
}

const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;
const N: u32 = 24;

/// Draws `N` objects, object `i` with material `i % 5`, one texel each;
/// returns whether the slab form was registered and what each texel saw.
fn draw(h: &Headless) -> (bool, Vec<[f32; 4]>) {
    let mut fb = Manager::with_downlevel(&h.device, SlotPlan::default(), h.downlevel);
    let mut fx = Effects::new();
    let id = fx.load(path("bindless.effect.toml")).unwrap();
    let pass = fx.technique(id, "t").unwrap().next().unwrap();
    let flags = fx.flags(id, &[]).unwrap();
    let targets = Targets::color(FORMAT);
    let (shader, pipeline) = fx.render_pipeline(&mut fb, pass, flags, &targets).unwrap();
    let pipeline = pipeline.clone();
    let slot = fb.registry().slot_at(BindingPoint::new(2, 0)).unwrap();
    let slab = fb.registry()[slot].slab().is_some();
    let color = fb.param("color").unwrap();
    let materials = (0..5)
        .map(|k| {
            let m = fb.create_material();
            fb.material(m).set(color, &[k as f32, 1.0, 2.0 * k as f32, 1.0]).unwrap();
            m
        })
        .collect::<Vec<_>>();
    let scale = fb.param("scale").unwrap();
    let draws = (0..N)
        .map(|i| {
            let o = fb.create_object();
            fb.object(o).set(scale, &[1.0, 1.0, 1.0, 1.0 + i as f32]).unwrap();
            Draw::new(shader).object(o).material(materials[i as usize % 5])
        })
        .collect::<Vec<_>>();
    fb.flush(&h.queue).unwrap();
    let mut list = fb.draw_list(&draws).unwrap();
    fb.flush(&h.queue).unwrap();
    let target = gpu::target(h, FORMAT, (N, 1));
    let view = target.create_view(&Default::default());
    let mut enc = h.device.create_command_encoder(&Default::default());
    {
        let mut rpass = gpu::color_pass(&mut enc, &view);
        rpass.set_pipeline(&pipeline);
        Binder::new()
            .bind_list(&mut fb, &mut rpass, &mut list, |p, i, first| {
                p.set_viewport(i as f32, 0.0, 1.0, 1.0, 0.0, 1.0);
                p.draw(0..3, first..first + 1)
            })
            .unwrap();
    }
    let words = gpu::read_texture(h, enc, &target, 16);
    (slab, words.chunks(4).map(|c| [0, 1, 2, 3].map(|k| f32::from_bits(c[k]))).collect())
}

#[test]
fn the_device_sets_bindless_and_both_settings_draw_the_same_values() {
    let Some(h) = gpu::device() else { return };
    if !gpu::renders_to(h, FORMAT) {
        return;
    }
    let Some(plain) = gpu::device_with_limits(|_| {}) else { return };
    let model = (0..N)
        .map(|i| (i, (i % 5) as f32))
        .map(|(i, k)| [k, 1.0, 2.0 * k, 1.0 + i as f32])
        .collect::<Vec<_>>();
    let (slab, seen) = draw(&plain);
    assert!(!slab, "no binding arrays: the uniform block");
    assert_eq!(seen, model);
    let arrays = wgpu::Features::TEXTURE_BINDING_ARRAY
        | wgpu::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING;
    if !h.device.features().contains(arrays) {
        return gpu::skip_unoffered(h, "TEXTURE_BINDING_ARRAY");
    }
    let (slab, seen) = draw(h);
    assert!(slab, "binding arrays: the slab");
    assert_eq!(seen, model);
}

#[test]
fn each_device_setting_is_checked_as_its_own_layout_set_and_materials_cannot_name_it() {
    let mut fx = Effects::new();
    let id = fx.load(path("bindless.effect.toml")).unwrap();
    let registry = Registry::new(SlotPlan::default());
    let report = fx.check(&registry, id, None).unwrap();
    assert_eq!((report.permutations, report.exhaustive), (2, true), "BINDLESS on and off, no conflict");
    let err = fx.flags(id, &["BINDLESS"]).unwrap_err();
    assert_eq!(
        format!("{:#}", freqbuf::Report(&err)),
        "cannot use bindless: flag `BINDLESS` of effect `bindless` is set by the device (`device_flags`), not by materials"
    );
    let bad = "source = \"bindless.wgsl\"\nflags = [\"BINDLESS\"]\n[device_flags]\nBINDLESS = \"arrays\"\n";
    let dir = std::env::temp_dir().join(format!("freqbuf-device-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(path("bindless.wgsl"), dir.join("bindless.wgsl")).unwrap();
    std::fs::write(dir.join("bad.effect.toml"), bad).unwrap();
    let err = Effects::new().load(dir.join("bad.effect.toml")).unwrap_err();
    let text = format!("{:#}", freqbuf::Report(&err));
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        text.ends_with("device flag `BINDLESS` needs `arrays`, which is not one of: binding_arrays"),
        "{text}"
    );
}
