//! What the integration tests of `freqbuf` and `freqbuf-effects` share: a
//! real device (`gpu`, which fails under `CI=true` where there is none),
//! one dispatch-and-read-back helper, the recording scene and its shared
//! shaders (`scene`), the rule set of generated blocks (`rules`) and the
//! module graph the layering test reads (`modules`). A dev-dependency of
//! both crates, never published: no library depends on it.
#![allow(
    missing_docs,
    missing_debug_implementations,
    reason = "test helpers: the non-obvious ones say what they do"
)]

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
