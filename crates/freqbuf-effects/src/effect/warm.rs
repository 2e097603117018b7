//! `Effects::warm`: every pipeline an effect can need, built before the
//! first frame instead of on the draw that first needs it (the stall
//! renderers see when a new material appears); and the `wgpu::PipelineCache`
//! every pipeline is built with, so that the next start builds them faster.

use super::library::{EXHAUSTIVE_FLAGS, Effects};
use super::types::{EffectId, FlagSet, PassId, Targets};
use crate::error::EffectError;
use freqbuf::Manager;

/// What [`Effects::warm`] built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarmReport {
    /// Flag combinations warmed: every one the constraints allow, or the
    /// whole-effect check's sample of them (`exhaustive` false).
    pub permutations: usize,
    /// Whether those are every allowed combination.
    pub exhaustive: bool,
    /// Pipelines in the cache for them afterwards (one per pass that exists
    /// under a combination), built now or earlier.
    pub pipelines: usize,
}

impl Effects {
    /// Builds every pipeline from now on with `cache` (`None`: without one),
    /// a `wgpu::PipelineCache` of `manager`'s device: made by the
    /// application on a device with `wgpu::Features::PIPELINE_CACHE` from
    /// the data a previous run saved (`PipelineCache::get_data`), so that
    /// [`Effects::warm`] at start-up compiles little. A manager moved to
    /// another device (`Manager::recreate`) drops the cache with the
    /// pipelines; give the new device's cache again. Cost: none per draw.
    pub fn set_pipeline_cache(&mut self, manager: &Manager, cache: Option<wgpu::PipelineCache>) {
        self.follow_device(manager);
        self.pipeline_cache = cache;
    }

    /// Builds the pipeline of every pass of effect `id` under every flag
    /// combination its constraints allow (the combinations the whole-effect
    /// check composes; above 2^[`EXHAUSTIVE_FLAGS`] of them, its sample),
    /// render passes for `targets` and compute passes as they are. A later
    /// [`Effects::render_pipeline`] or [`Effects::compute_pipeline`] with
    /// those flags is then a cache hit; a pass that needs flags a
    /// combination lacks (`requires`) is skipped there.
    ///
    /// Cost: per combination not warmed yet, a composition, a registration
    /// and a pipeline per pass; nothing for what is cached. Stops at the
    /// first error, with what was built before it kept.
    pub fn warm(
        &mut self,
        manager: &mut Manager,
        id: EffectId,
        targets: &Targets,
    ) -> Result<WarmReport, EffectError> {
        let effect = self.checked(id, "effect id")?;
        // The flags the source tests, and those that decide which passes exist.
        let deciding = effect.passes.iter().fold(effect.tested, |bits, p| bits | p.deciding());
        let (combos, exhaustive) = effect.rules.combinations(deciding, 1 << EXHAUSTIVE_FLAGS);
        let passes = effect.passes.len() as u32;
        let mut report = WarmReport { permutations: combos.len(), exhaustive, pipelines: 0 };
        for bits in combos {
            let flags = FlagSet { effect: id, bits };
            for index in 0..passes {
                let pass = PassId { effect: id, index };
                if self.pass(pass).exists_under(bits) {
                    self.build(manager, pass, flags, targets)?;
                    report.pipelines += 1;
                }
            }
        }
        Ok(report)
    }
}
