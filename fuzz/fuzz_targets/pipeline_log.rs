//! Pipeline logs as they come back from disk: any text, replayed against the
//! effects example's `lit` effect (four flags, two passes) and a
//! `with_defs`-free library, on wgpu's noop backend (which validates every
//! call). Seeds: logs `pipeline_log_toml` wrote (`fuzz/seed_logs.sh`). A log
//! never panics the replay: malformed text is an error, and an entry is
//! built or skipped with its reason, one or the other for each.
#![no_main]

use std::sync::OnceLock;

use freqbuf::{Headless, Manager, SlotPlan};
use freqbuf_effects::{Effects, LoggedPipeline, Targets};
use libfuzzer_sys::fuzz_target;

fn device() -> &'static Headless {
    static DEV: OnceLock<Headless> = OnceLock::new();
    DEV.get_or_init(|| Headless::noop().expect("the noop backend"))
}

const TOML: &str = include_str!("../../examples/effects/lit.effect.toml");
const WGSL: &str = include_str!("../../examples/effects/lit.wgsl");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let h = device();
    let mut fx = Effects::new();
    fx.add("lit.effect.toml", TOML, WGSL).expect("the example loads");
    let mut fb = Manager::new(&h.device, SlotPlan::default());
    let targets = |_: &LoggedPipeline| {
        Targets::color(wgpu::TextureFormat::Rgba8Unorm).with_depth(wgpu::TextureFormat::Depth32Float)
    };
    if fx.replay_pipeline_log(&mut fb, "fuzz.toml", text, targets).is_ok() {
        // What was built is logged, and replays to the same pipelines, none skipped.
        let again = fx.pipeline_log_toml();
        let second = fx.replay_pipeline_log(&mut fb, "again.toml", &again, targets).expect("its own log");
        assert!(second.skipped.is_empty(), "{:?}", second.skipped);
        assert_eq!(second.built, fx.pipeline_log().len());
    }
});
