//! The pipeline log: which (effect, defs, pass, flags, attachments) a run
//! built pipelines for,
//! saved at exit and replayed at the next start-up, so that the pipelines
//! the application really uses are ready before its first frame (Bevy
//! issue 10871's ask). Use it instead of [`Effects::warm`] where an effect
//! allows more combinations than the application ever draws.

use std::collections::BTreeMap;

use crate::effect::library::Effects;
use crate::effect::pipeline::logged::{LogFile, LoggedPipeline, ReplayReport};
use crate::effect::source::with_defs::{changed_defs, def_kind, parse_value};
use crate::effect::types::{EffectId, FlagSet, LoggedTargets, PassId, Targets};
use crate::error::{EffectError, EffectErrorKind};
use freqbuf::Manager;

impl Effects {
    /// Every pipeline built so far, once per (effect, pass, flags,
    /// attachments), in order. Cost: one pass over what was built.
    pub fn pipeline_log(&self) -> Vec<LoggedPipeline> {
        self.pipelines
            .used()
            .map(|(effect, pass, bits, targets)| {
                let e = &self.catalog[*effect as usize];
                let (base, defs) = self.defs_given(*effect);
                LoggedPipeline {
                    effect: base.to_owned(),
                    pass: e.passes[*pass as usize].name.clone(),
                    flags: e.flags_on(*bits).into_iter().map(str::to_owned).collect(),
                    defs,
                    targets: targets.clone(),
                }
            })
            .collect()
    }

    /// The name of effect `index`'s base and the defs it was given other
    /// values for: its own name and none for an effect as loaded.
    fn defs_given(&self, index: u32) -> (&str, BTreeMap<String, String>) {
        let Some(base) = self.catalog.base_of(index) else {
            return (&self.catalog[index as usize].name, BTreeMap::new());
        };
        let (base, effect) = (&self.catalog[base as usize], &self.catalog[index as usize]);
        (&base.name, changed_defs(&effect.defs, &base.defs).map(|(name, v)| (name.to_owned(), v)).collect())
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
        self.replay_pipeline_log_with(manager, file, text, targets, 1, &mut |_| {})
    }

    /// [`Effects::replay_pipeline_log`] on `threads` threads (0: one per
    /// core; on the web, always this one), as [`Effects::warm_with`] builds:
    /// modules and layouts are made here while the pipelines made so far
    /// build on the other threads, and `progress` runs on this thread after
    /// each is built.
    pub fn replay_pipeline_log_with(
        &mut self,
        manager: &mut Manager,
        file: &str,
        text: &str,
        targets: impl Fn(&LoggedPipeline) -> Targets,
        threads: usize,
        progress: &mut dyn FnMut(crate::effect::reports::WarmProgress),
    ) -> Result<ReplayReport, EffectError> {
        let log: LogFile = toml::from_str(text).map_err(|e| EffectError {
            file: file.to_owned(),
            location: None,
            kind: Box::new(EffectErrorKind::Toml(e.to_string())),
        })?;
        let mut report = ReplayReport::default();
        self.build_streamed(manager, threads, progress, |fx, manager, jobs| {
            for entry in log.pipeline {
                let found = fx.logged(&entry).and_then(|(pass, flags)| {
                    let targets = targets(&entry);
                    match &entry.targets {
                        Some(logged) if *logged != LoggedTargets::of(&targets) => Err(format!(
                            "the application now gives attachments {:?}, the log has {logged:?}",
                            LoggedTargets::of(&targets)
                        )),
                        _ => Ok((pass, flags, targets)),
                    }
                });
                match found {
                    Ok((pass, flags, targets)) => {
                        let render = fx.pass(pass).vertex.is_some().then_some(&targets);
                        // Two entries of one pipeline: `jobs` builds it once.
                        if let Some(job) = fx.job(manager, pass, flags, render)?.1 {
                            jobs.push(job);
                        }
                        report.built += 1;
                    }
                    Err(why) => report.skipped.push((entry, why)),
                }
            }
            Ok(())
        })?;
        Ok(report)
    }

    /// The pass and flags a log entry names (making the effect's
    /// [`Effects::with_defs`] copy where it names defs), or why the library
    /// has none.
    fn logged(&mut self, entry: &LoggedPipeline) -> Result<(PassId, FlagSet), String> {
        let id = self.logged_effect(entry)?;
        let e = self.catalog.effect(id);
        let Some(index) = e.passes.iter().position(|p| p.name == entry.pass) else {
            return Err(format!("effect `{}` has no pass `{}`", entry.effect, entry.pass));
        };
        let names = entry.flags.iter().map(String::as_str).collect::<Vec<_>>();
        let flags = self.flags(id, &names).map_err(|e| crate::error::chain(&e))?;
        let pass = PassId { effect: id, index: index as u32 };
        if !self.pass(pass).exists_under(flags.bits) {
            let e = self.catalog.effect(id);
            return Err(format!("pass `{}` does not exist with {}", entry.pass, e.describe(flags.bits)));
        }
        Ok((pass, flags))
    }

    /// The effect a log entry names: the one loaded under its name, or that
    /// effect's copy with the entry's defs.
    fn logged_effect(&mut self, entry: &LoggedPipeline) -> Result<EffectId, String> {
        let Some(index) = self.catalog.iter().rposition(|e| e.name == entry.effect) else {
            return Err(format!("no effect `{}` is loaded", entry.effect));
        };
        let id = self.catalog.id(index as u32);
        if entry.defs.is_empty() {
            return Ok(id);
        }
        let base = &self.catalog[index].defs;
        let mut values = Vec::new();
        for (name, text) in &entry.defs {
            let Some((_, now)) = base.iter().find(|(n, _)| n == name) else {
                return Err(format!("effect `{}` has no def `{name}`", entry.effect));
            };
            let value = parse_value(now, text).ok_or_else(|| {
                format!(
                    "def `{name}` of effect `{}` is {}, and the log has `{text}`",
                    entry.effect,
                    def_kind(now)
                )
            })?;
            values.push((name.as_str(), value));
        }
        self.with_defs(id, &values).map_err(|e| crate::error::chain(&e))
    }
}
