//! # freqbuf-effects
//!
//! The layer above [`freqbuf`]'s shared slots: effects (techniques of passes
//! with render state, flag permutations composed with naga_oil, the
//! whole-effect check, pipelines), materials, auto constants and a render
//! queue. It uses only the core's public API: a permutation is an ordinary
//! shader registered with [`freqbuf::Manager`], and shares its slots with
//! every other shader.
//!
//! Data flows one way through the modules (all private; every item is
//! re-exported here, at one path): `effect` (files, composition, pipelines)
//! → `material` (named values and flags per material, auto constants) →
//! `queue` (sorted draws encoded through a [`freqbuf::Binder`]).

mod effect;
mod error;
mod material;
mod queue;
mod tag;

pub use effect::{
    Blend, CacheLoad, CheckReport, Compare, Cull, DefValue, DepthState, EXHAUSTIVE_COMBINATIONS, Effect,
    EffectId, EffectStats, Effects, FlagRules, FlagSet, LoggedPipeline, LoggedTargets, Pass, PassId, Passes,
    PipelineCacheFile, ReplayReport, SUGGEST_WITHIN, SuggestedRule, Suggestions, Targets, WarmProgress,
    WarmReport,
};
pub use error::{EffectError, EffectErrorKind, MaterialError, MaterialErrorKind};
pub use material::{AutoConstants, Camera, IntoColumns, IntoVec2, Materials, Semantic, validate_tables};
pub use queue::{Geometry, ItemId, Order, QueueContext, QueueItem, QueueStats, RenderQueue};

/// The workspace README's examples (the core's and this crate's), compiled
/// as doc tests here, where both crates are in scope.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;

/// The guide's pages with Rust examples, compiled as doc tests here, where
/// both crates are in scope.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/core.md")]
struct CoreGuideDoctests;

#[cfg(doctest)]
#[doc = include_str!("../../../docs/effects.md")]
struct EffectsGuideDoctests;

/// This crate's README (what the registry shows), compiled as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;
