//! Effects: techniques made of passes with render state, flag permutations
//! composed with naga_oil, the whole-effect check, render and compute
//! pipelines.
//!
//! Use an effect when shaders come in flag permutations or need render state
//! kept beside them; register plain shaders with [`freqbuf::Manager`] directly
//! otherwise. Permutations are ordinary registered shaders: they share the
//! manager's slots with every other shader.

mod cache_file;
mod check;
mod compose;
mod constraints;
mod defs;
mod file;
mod job;
mod library;
mod load;
mod log;
mod modules;
#[cfg(not(target_arch = "wasm32"))]
mod parallel;
mod parse;
mod passes;
mod permutations;
mod pipeline;
mod pipelines;
mod suggest;
mod tested_names;
mod types;
mod warm;
mod wesl;
mod with_defs;

pub use cache_file::{CacheLoad, PipelineCacheFile};
pub use check::SUGGEST_WITHIN;
pub use constraints::FlagRules;
pub use file::{Blend, Compare, Cull, DepthState};
pub use library::{EXHAUSTIVE_COMBINATIONS, Effects};
pub use log::{LoggedPipeline, ReplayReport};
pub use suggest::{SuggestedRule, Suggestions};
pub use types::{
    CheckReport, Effect, EffectId, EffectStats, FlagSet, LoggedTargets, Pass, PassId, Passes, Targets,
};
pub use warm::{WarmProgress, WarmReport};
pub use with_defs::DefValue;
