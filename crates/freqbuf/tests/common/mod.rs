//! Helpers shared by the integration tests.
#![allow(dead_code, reason = "each test binary uses part of the helpers")]
#![allow(unreachable_pub, reason = "helpers are `pub` for the binaries that include them, not an API")]

pub mod gpu;
pub mod modules;
pub mod rules;
pub mod scene;

/// An error's whole chain as anyhow prints it (`{:#}`): each level's own
/// message, then its sources, joined with `: ` (`messages.rs` checks that
/// the two agree).
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}
