//! Shared by `benches/frame.rs` and `examples/stress.rs`: the scene generator,
//! the baselines freqbuf is measured against, and the render target.
//!
//! Included with `#[path]` so that none of it is part of the library.
#![allow(dead_code, reason = "each bench and the stress example use part of it")]
#![allow(unreachable_pub, reason = "`pub` for the targets that include it, not an API")]

pub mod methods;
pub mod scene;
