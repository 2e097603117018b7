//! Reflection of arbitrary GLSL text for each stage.
#![no_main]

use freqbuf::naga::ShaderStage;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (u8, &str)| {
    quiet();
    let stage = match input.0 % 3 {
        0 => ShaderStage::Vertex,
        1 => ShaderStage::Fragment,
        _ => ShaderStage::Compute,
    };
    let source = freqbuf::reflect::ShaderSource::Glsl { source: input.1, stage };
    if let Ok(s) = freqbuf::reflect::ShaderReflection::new("fuzz.glsl", source) {
        let mut r = freqbuf::Registry::new(freqbuf::SlotPlan::default());
        let _ = r.add(s);
    }
});

fn quiet() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}
