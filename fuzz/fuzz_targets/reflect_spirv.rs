//! Reflection of arbitrary SPIR-V bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    quiet();
    if let Ok(s) = freqbuf::reflect::ShaderReflection::new("fuzz.spv", freqbuf::reflect::ShaderSource::SpirV(bytes)) {
        let mut r = freqbuf::Registry::new(freqbuf::SlotPlan::default());
        let _ = r.add(s);
    }
});

fn quiet() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}
