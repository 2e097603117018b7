//! The pipeline cache: a render or compute pipeline per (pass, flags,
//! targets), with the pass's render state and the permutation's layout.

use crate::effect::library::Effects;
use crate::effect::pipeline::job::{Built, Job, JobKind};
use crate::effect::types::{FlagSet, PassId, Targets};
use crate::error::{EffectError, EffectErrorKind};
use freqbuf::Error;
use freqbuf::Manager;
use freqbuf::ShaderId;

impl Effects {
    /// Checks that `pass` and `flags` (a material's) are of one effect: a
    /// pass of another effect is [`EffectErrorKind::OtherEffect`], naming
    /// both effects and both families (a material of another family would
    /// be drawn from another family's slot).
    pub(crate) fn same_effect(&self, pass: PassId, flags: FlagSet) -> Result<(), EffectError> {
        self.checked(pass.effect, "pass")?;
        self.checked(flags.effect, "flag set")?;
        if pass.effect == flags.effect {
            return Ok(());
        }
        let (p, f) = (self.effect(pass.effect), self.effect(flags.effect));
        Err(EffectError {
            file: p.name.clone(),
            location: None,
            kind: Box::new(EffectErrorKind::OtherEffect {
                pass: self.pass(pass).name.clone(),
                effect: p.name.clone(),
                family: p.family.clone(),
                flags_effect: f.name.clone(),
                flags_family: f.family.clone(),
            }),
        })
    }

    /// Checks that `pass` and `flags` are of one effect of this library, and
    /// drops modules and pipelines made on a device the manager left.
    pub(in crate::effect) fn prepare(
        &mut self,
        manager: &Manager,
        pass: PassId,
        flags: FlagSet,
    ) -> Result<(), EffectError> {
        self.same_effect(pass, flags)?;
        let (p, effect) = (self.pass(pass), self.effect(pass.effect));
        if !p.exists_under(flags.bits) {
            return Err(EffectError {
                file: effect.name.clone(),
                location: None,
                kind: Box::new(EffectErrorKind::PassNeedsFlags {
                    pass: p.name.clone(),
                    requires: p.requires.join("+"),
                    flags: effect.describe(flags.bits),
                }),
            });
        }
        self.pipelines.follow_device(manager);
        Ok(())
    }

    /// The render pipeline of `pass` with `flags` for `targets`: the pass's
    /// shader ([`Effects::pass_shader`], registered on first use) and its render
    /// state, built once per (pass, flags, targets) and cached.
    pub fn render_pipeline(
        &mut self,
        manager: &mut Manager,
        pass: PassId,
        flags: FlagSet,
        targets: &Targets,
    ) -> Result<(ShaderId, &wgpu::RenderPipeline), EffectError> {
        let (shader, job) = self.job(manager, pass, flags, Some(targets))?;
        if let Some(job) = job {
            self.run(manager, job)?;
        }
        let pipeline = self.pipelines.render((pass, shader), targets).expect("built above or cached");
        Ok((shader, pipeline))
    }

    /// The compute pipeline of a compute pass with `flags`, built once and cached.
    pub fn compute_pipeline(
        &mut self,
        manager: &mut Manager,
        pass: PassId,
        flags: FlagSet,
    ) -> Result<(ShaderId, &wgpu::ComputePipeline), EffectError> {
        let (shader, job) = self.job(manager, pass, flags, None)?;
        if let Some(job) = job {
            self.run(manager, job)?;
        }
        Ok((shader, self.pipelines.compute((pass, shader)).expect("built above or cached")))
    }

    pub(in crate::effect) fn register_error(&self, flags: FlagSet, e: Error) -> EffectError {
        let effect = self.effect(flags.effect);
        EffectError {
            file: effect.source_file.clone(),
            location: None,
            kind: Box::new(EffectErrorKind::Register {
                flags: effect.describe(flags.bits),
                source: Box::new(e),
            }),
        }
    }

    pub(in crate::effect) fn wrong_kind(&self, pass: PassId, wanted: &'static str) -> EffectError {
        let effect = self.effect(pass.effect);
        EffectError {
            file: effect.name.clone(),
            location: None,
            kind: Box::new(EffectErrorKind::WrongKind { pass: self.pass(pass).name.clone(), wanted }),
        }
    }
}

impl Effects {
    /// The job for `pass`'s pipeline under `flags` (for `targets`, a render
    /// pass), with the pass's shader; no job when the pipeline is cached.
    /// Cost on a hit: a hash lookup, with nothing cloned.
    pub(in crate::effect) fn job(
        &mut self,
        manager: &mut Manager,
        pass: PassId,
        flags: FlagSet,
        targets: Option<&Targets>,
    ) -> Result<(ShaderId, Option<Job>), EffectError> {
        let bits = self.checked(flags.effect, "flag set")?.on_device(flags.bits, manager);
        let flags = FlagSet { bits, ..flags };
        self.prepare(manager, pass, flags)?;
        let shader = self.pass_shader(manager, pass, flags)?;
        let key = (pass, shader);
        let render = self.pass(pass).vertex.is_some();
        let cached = match targets {
            Some(t) if render => self.pipelines.render(key, t).is_some(),
            None if !render => self.pipelines.compute(key).is_some(),
            _ => return Err(self.wrong_kind(pass, if render { "compute" } else { "render" })),
        };
        if cached {
            return Ok((shader, None));
        }
        let fail = |this: &Self, e: Error| this.register_error(flags, e);
        let layout = manager.pipeline_layout(shader).map_err(|e| fail(self, e))?.clone();
        let stages = [0, 1, 2].map(|stage| self.stage_shader(shader, stage));
        let mut module = |stage: usize| self.pipelines.module(manager, stages[stage]).cloned();
        let kind = match targets {
            Some(t) => {
                let (vs, fs) = (module(0), module(1));
                let (vs, fs) = (vs.map_err(|e| fail(self, e))?, fs.map_err(|e| fail(self, e))?);
                JobKind::Render { targets: t.clone(), vs, fs }
            }
            None => JobKind::Compute { module: module(2).map_err(|e| fail(self, e))? },
        };
        let p = self.pass(pass).clone();
        Ok((shader, Some(Job { pass, flags, shader, p, layout, kind })))
    }

    /// Keeps a built pipeline in the cache, counted as built.
    pub(in crate::effect) fn keep(&mut self, job: Job, built: Built) {
        self.stats.pipelines += 1;
        let targets = match &job.kind {
            JobKind::Render { targets, .. } => Some(targets),
            JobKind::Compute { .. } => None,
        };
        self.pipelines.mark_used(job.pass, job.flags.bits, targets);
        let key = (job.pass, job.shader);
        match (job.kind, built) {
            (JobKind::Render { targets, .. }, Built::Render(pipeline)) => {
                self.pipelines.keep_render(key, targets, pipeline);
            }
            (JobKind::Compute { .. }, Built::Compute(pipeline)) => {
                self.pipelines.keep_compute(key, pipeline);
            }
            _ => unreachable!("a job builds its own kind"),
        }
    }

    /// Builds `job` here and keeps it.
    pub(in crate::effect) fn run(&mut self, manager: &Manager, job: Job) -> Result<(), EffectError> {
        let built = job
            .build(&manager.creator(), self.pipelines.cache())
            .map_err(|e| self.register_error(job.flags, e))?;
        self.keep(job, built);
        Ok(())
    }
}
