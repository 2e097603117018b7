//! Helpers shared by the integration tests.
#![allow(dead_code, reason = "each test binary uses part of the helpers")]
#![allow(unreachable_pub, reason = "helpers are `pub` for the binaries that include them, not an API")]

pub mod gpu;
pub mod rules;
pub mod scene;
