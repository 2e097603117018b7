//! What the pipeline log holds (`log.rs` writes and replays it): one entry
//! per pipeline built, the file's form, and what a replay did.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::effect::types::LoggedTargets;

/// One pipeline a run built: its effect's name and the defs it was given
/// other values for, its pass (`technique.pass`), the flags that were on,
/// and the attachments of a render pipeline.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LoggedPipeline {
    /// The effect's name as loaded (for an [`Effects::with_defs`](crate::Effects::with_defs) copy, its base's).
    pub effect: String,
    /// The pass, `technique.pass`.
    pub pass: String,
    /// The flags on, by name.
    pub flags: Vec<String>,
    /// The `[defs]` an [`Effects::with_defs`](crate::Effects::with_defs) copy gave other values, by
    /// name (`true`, `4`, `-1`); empty for the effect as loaded.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub defs: BTreeMap<String, String>,
    /// A render pipeline's attachments; `None` for a compute pipeline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<LoggedTargets>,
}

/// What [`Effects::replay_pipeline_log`](crate::Effects::replay_pipeline_log) did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayReport {
    /// Pipelines the log named and the library built (or had built).
    pub built: usize,
    /// Entries the library no longer has, each with why: the warnings to
    /// show (an effect renamed, a pass, flag or def gone, a pass that no
    /// longer exists under its flags, attachments the application no longer
    /// gives).
    pub skipped: Vec<(LoggedPipeline, String)>,
}

/// The log as a file holds it (`[[pipeline]]` tables).
#[derive(Serialize, Deserialize)]
pub(in crate::effect) struct LogFile {
    #[serde(default)]
    pub(in crate::effect) pipeline: Vec<LoggedPipeline>,
}
