//! Reflection of arbitrary WGSL text: an error or a reflection, never a panic
//! that escapes freqbuf, an abort or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    quiet();
    if let Ok(s) = freqbuf::reflect::ShaderReflection::new("fuzz.wgsl", freqbuf::reflect::ShaderSource::Wgsl(text)) {
        let mut r = freqbuf::Registry::new(freqbuf::SlotPlan::default());
        let _ = r.add(s);
    }
});

/// freqbuf catches naga's panics; silence the hook so that only escaping ones abort.
fn quiet() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}
