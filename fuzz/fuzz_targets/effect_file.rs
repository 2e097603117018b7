//! Effect files as a user writes them: the input is a TOML effect file, its
//! WGSL source and any number of naga_oil modules, separated by NUL bytes.
//! The same texts are also files by name, for WESL effects (`source =
//! "fuzz.wesl"`, its imports `m0.wesl`…, `[packages]` folders of them): the
//! source is both `fuzz.wgsl` and `fuzz.wesl`, the `i`-th module `m{i}.wesl`.
//! The library loads them, checks every permutation, and builds each pass's
//! pipeline for no flags and for all flags on wgpu's noop backend (which
//! validates every call and panics on a validation error); materials take
//! the `[params]` defaults and auto constants bind the `[auto]` table.
//! Seeds: the examples' effects, joined the same way (see the README).
#![no_main]

use std::sync::OnceLock;

use freqbuf::{Headless, Manager, Registry, SlotPlan};
use freqbuf_effects::{AutoConstants, Effects, Materials, Targets};
use libfuzzer_sys::fuzz_target;

fn device() -> &'static Headless {
    static DEV: OnceLock<Headless> = OnceLock::new();
    DEV.get_or_init(|| Headless::noop().expect("the noop backend"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut parts = text.split('\0');
    let (Some(toml), Some(source)) = (parts.next(), parts.next()) else { return };
    let mut fx = Effects::new();
    let modules = parts.take(8).collect::<Vec<_>>();
    for (i, module) in modules.iter().enumerate() {
        let _ = fx.add_module(&format!("module{i}.wgsl"), module);
    }
    let names = (0..modules.len()).map(|i| format!("m{i}.wesl")).collect::<Vec<_>>();
    let mut files = vec![("fuzz.wgsl", source), ("fuzz.wesl", source)];
    files.extend(names.iter().map(String::as_str).zip(modules.iter().copied()));
    let Ok(effect) = fx.add_files("fuzz.effect.toml", toml, &files) else { return };
    let mut merged = Registry::new(SlotPlan::default());
    // Up to 2^6 compositions per input: enough to meet every check, few enough to keep the fuzzer fast.
    if fx.effect(effect).flags().len() <= 6 && fx.merge(&mut merged, effect, None).is_ok() {
        let _ = freqbuf_effects::validate_tables(&fx, effect, &merged, true);
    }
    let h = device();
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let names = fx.effect(effect).flags().to_vec();
    let all = names.iter().map(String::as_str).collect::<Vec<_>>();
    let techniques = fx.effect(effect).techniques().map(str::to_owned).collect::<Vec<_>>();
    let targets = Targets::color(wgpu::TextureFormat::Rgba8Unorm).with_depth(wgpu::TextureFormat::Depth32Float);
    for on in [&[][..], &all[..]] {
        let Ok(flags) = fx.flags(effect, on) else { continue };
        for t in &techniques {
            let Ok(passes) = fx.technique(effect, t) else { continue };
            for pass in passes {
                let _ = fx.render_pipeline(&mut fb, pass, flags, &targets).map(drop);
                let _ = fx.compute_pipeline(&mut fb, pass, flags).map(drop);
            }
        }
        let mut mats = Materials::new();
        let _ = mats.create(&mut fx, &mut fb, effect, on);
    }
    let mut auto = AutoConstants::new();
    let _ = auto.bind_effect(fb.registry(), fx.effect(effect));
    let _ = auto.update(&mut fb);
    let _ = fb.flush(&h.queue);
});
