//! Effects: techniques made of passes with render state, flag permutations
//! composed with naga_oil, the whole-effect check, render and compute
//! pipelines.
//!
//! Use an effect when shaders come in flag permutations or need render state
//! kept beside them; register plain shaders with [`freqbuf::Manager`] directly
//! otherwise. Permutations are ordinary registered shaders: they share the
//! manager's slots with every other shader.

mod build;
mod catalog;
mod compose;
mod library;
mod pipeline;
mod reports;
mod source;
mod types;

pub use build::check::SUGGEST_WITHIN;
pub use library::{EXHAUSTIVE_COMBINATIONS, Effects};
pub use pipeline::cache_file::{CacheLoad, PipelineCacheFile};
pub use pipeline::logged::{LoggedPipeline, ReplayReport};
pub use reports::{SuggestedRule, Suggestions, WarmProgress, WarmReport};
pub use source::constraints::FlagRules;
pub use source::defs::DefValue;
pub use source::file::{Blend, Compare, Cull, DepthState};
pub use types::{
    CheckReport, Effect, EffectId, EffectStats, FlagSet, LoggedTargets, Pass, PassId, Passes, Targets,
};
