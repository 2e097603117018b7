//! The pipeline cache: a render or compute pipeline per (pass, flags,
//! targets), with the pass's render state and the permutation's layout.

use crate::effect::library::Effects;
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
