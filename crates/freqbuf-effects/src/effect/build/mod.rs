//! From an effect to registered shaders: a flag combination composed (on
//! the shared composer, `../compose.rs`, or by WESL), the permutations kept, narrowing to a pass's entry
//! points, the whole-effect check (on threads when large) and the rules
//! that would exclude failing combinations. Needs a registry, not a device.

pub(super) mod check;
#[cfg(not(target_arch = "wasm32"))]
pub(super) mod parallel;
pub(super) mod passes;
pub(super) mod permutations;
pub(super) mod suggest;
