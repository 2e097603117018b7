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
///
/// It also asserts that the error's own message, and that of every freqbuf
/// error in its chain, is a sentence that says what failed
/// ([`says_what_failed`]), not a bare name or site.
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    // A kind is the middle of a sentence (`validation error`), not its start.
    let kind = e.is::<freqbuf::error::ReflectErrorKind>() || e.is::<freqbuf::error::LayoutErrorKind>();
    assert!(kind || says_what_failed(&text), "`{text}` does not say what failed");
    let mut source = e.source();
    while let Some(s) = source {
        let own = s.to_string();
        let ours = s.is::<freqbuf::Error>()
            || s.is::<freqbuf::error::ReflectError>()
            || s.is::<freqbuf::ParamError>();
        assert!(!ours || says_what_failed(&own), "`{own}` (in `{text}`) does not say what failed");
        text = format!("{text}: {own}");
        source = s.source();
    }
    text
}

/// Whether a one-level error message is a sentence: outside its backquoted
/// names it has a verb, so it says what failed (`cannot use parameter `x``)
/// rather than only naming the item (`parameter `x``, `a.wgsl:3:5`).
pub fn says_what_failed(message: &str) -> bool {
    const VERBS: &[&str] = &[
        "cannot", "is", "are", "was", "were", "has", "have", "does", "do", "needs", "belongs", "lacks",
        "refused", "holds", "fit", "fits", "exists", "closes", "declare", "changes", "depends", "uses",
        "reads", "takes", "gives", "panicked", "differs", "overlap", "rejected",
    ];
    message
        .split('`')
        .step_by(2)
        .flat_map(|outside| outside.split(|c: char| !c.is_ascii_alphabetic()))
        .any(|word| VERBS.contains(&word))
}

/// freqbuf-derive's README (what the registry shows), compiled as a doc
/// test here: it needs freqbuf, and a dev-dependency of the proc-macro
/// crate on freqbuf built wgpu a second time in every `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../../freqbuf-derive/README.md")]
struct DeriveReadme;
