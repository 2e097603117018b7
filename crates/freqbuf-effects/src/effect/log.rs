//! The pipeline log: which (effect, pass, flags) a run built pipelines for,
//! saved at exit and replayed at the next start-up, so that the pipelines
//! the application really uses are ready before its first frame (Bevy
//! issue 10871's ask). Use it instead of [`Effects::warm`] where an effect
//! allows more combinations than the application ever draws.

use serde::{Deserialize, Serialize};

use super::library::Effects;
use super::types::{FlagSet, PassId, Targets};
use crate::error::{EffectError, EffectErrorKind};
use freqbuf::Manager;

/// One pipeline a run built: its effect's name, its pass (`technique.pass`)
/// and the flags that were on.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LoggedPipeline {
    /// The effect's name, as [`Effect::name`](super::Effect::name) gives it.
    pub effect: String,
    /// The pass, `technique.pass`.
    pub pass: String,
    /// The flags on, by name.
    pub flags: Vec<String>,
}

/// What [`Effects::replay_pipeline_log`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayReport {
    /// Pipelines the log named and the library built (or had built).
    pub built: usize,
    /// Entries the library no longer has, each with why: the warnings to
    /// show (an effect renamed, a pass or flag gone, a pass that no longer
    /// exists under its flags).
    pub skipped: Vec<(LoggedPipeline, String)>,
}

/// The log as a file holds it (`[[pipeline]]` tables).
#[derive(Serialize, Deserialize)]
struct LogFile {
    #[serde(default)]
    pipeline: Vec<LoggedPipeline>,
}

impl Effects {
    /// Every pipeline built so far, once per (effect, pass, flags), in order.
    /// Cost: one pass over what was built.
    pub fn pipeline_log(&self) -> Vec<LoggedPipeline> {
        self.pipelines
            .used()
            .map(|&(effect, pass, bits)| {
                let e = &self.effects[effect as usize];
                LoggedPipeline {
                    effect: e.name.clone(),
                    pass: e.passes[pass as usize].name.clone(),
                    flags: e.flags_on(bits).into_iter().map(str::to_owned).collect(),
                }
            })
            .collect()
    }

    /// [`Effects::pipeline_log`] as TOML text, to save at exit.
    pub fn pipeline_log_toml(&self) -> String {
        toml::to_string(&LogFile { pipeline: self.pipeline_log() }).expect("strings serialize")
    }

    /// Builds the pipelines a saved log names (the TOML of
    /// [`Effects::pipeline_log_toml`]), each for the targets `targets` gives
    /// its entry (the application knows its passes' attachments), and
    /// returns what it built and what it skipped. Entries of effects not
    /// loaded, or of passes and flags they no longer have, are skipped with
    /// the reason (a log outlives edits), never an error; malformed text is
    /// an error naming `file`, and so is a pipeline wgpu refuses. Cost: what
    /// building each pipeline costs; nothing for those already built.
    pub fn replay_pipeline_log(
        &mut self,
        manager: &mut Manager,
        file: &str,
        text: &str,
        targets: impl Fn(&LoggedPipeline) -> Targets,
    ) -> Result<ReplayReport, EffectError> {
        let log: LogFile = toml::from_str(text).map_err(|e| EffectError {
            file: file.to_owned(),
            location: None,
            kind: Box::new(EffectErrorKind::Toml(e.to_string())),
        })?;
        let mut report = ReplayReport::default();
        for entry in log.pipeline {
            match self.logged(&entry) {
                Ok((pass, flags)) => {
                    self.build(manager, pass, flags, &targets(&entry))?;
                    report.built += 1;
                }
                Err(why) => report.skipped.push((entry, why)),
            }
        }
        Ok(report)
    }

    /// The pass and flags a log entry names, or why the library has none.
    fn logged(&self, entry: &LoggedPipeline) -> Result<(PassId, FlagSet), String> {
        let Some((effect, e)) = self.effects.iter().enumerate().rev().find(|(_, e)| e.name == entry.effect)
        else {
            return Err(format!("no effect `{}` is loaded", entry.effect));
        };
        let Some(index) = e.passes.iter().position(|p| p.name == entry.pass) else {
            return Err(format!("effect `{}` has no pass `{}`", entry.effect, entry.pass));
        };
        let id = super::types::EffectId { library: self.tag, index: effect as u32 };
        let names = entry.flags.iter().map(String::as_str).collect::<Vec<_>>();
        let flags = self.flags(id, &names).map_err(|e| crate::error::chain(&e))?;
        let pass = PassId { effect: id, index: index as u32 };
        if !self.pass(pass).exists_under(flags.bits) {
            return Err(format!("pass `{}` does not exist with {}", entry.pass, e.describe(flags.bits)));
        }
        Ok((pass, flags))
    }

    /// A pass's pipeline under `flags`: render passes for `targets`,
    /// compute passes as they are.
    pub(super) fn build(
        &mut self,
        manager: &mut Manager,
        pass: PassId,
        flags: FlagSet,
        targets: &Targets,
    ) -> Result<(), EffectError> {
        if self.pass(pass).vertex.is_some() {
            self.render_pipeline(manager, pass, flags, targets).map(drop)
        } else {
            self.compute_pipeline(manager, pass, flags).map(drop)
        }
    }
}
