//! `Effects::warm`: every pipeline an effect can need, built before the
//! first frame instead of on the draw that first needs it (the stall
//! renderers see when a new material appears); and the `wgpu::PipelineCache`
//! every pipeline is built with, so that the next start builds them faster.

use crate::effect::library::{EXHAUSTIVE_COMBINATIONS, Effects};
use crate::effect::reports::{WarmProgress, WarmReport};
use crate::effect::types::{EffectId, FlagSet, PassId, Targets};
use crate::error::EffectError;
use freqbuf::Manager;

impl Effects {
    /// Builds every pipeline from now on with `cache` (`None`: without one),
    /// a `wgpu::PipelineCache` of `manager`'s device: made by the
    /// application on a device with `wgpu::Features::PIPELINE_CACHE` from
    /// the data a previous run saved (`PipelineCache::get_data`), so that
    /// [`Effects::warm`] at start-up compiles little. A manager moved to
    /// another device (`Manager::recreate`) drops the cache with the
    /// pipelines; give the new device's cache again. Cost: none per draw.
    pub fn set_pipeline_cache(&mut self, manager: &Manager, cache: Option<wgpu::PipelineCache>) {
        self.pipelines.follow_device(manager);
        self.pipelines.set_cache(cache);
    }

    /// Builds the pipeline of every pass of effect `id` under every flag
    /// combination its constraints allow (the combinations the whole-effect
    /// check composes; above [`EXHAUSTIVE_COMBINATIONS`] of them, its sample),
    /// render passes for `targets` and compute passes as they are. A later
    /// [`Effects::render_pipeline`] or [`Effects::compute_pipeline`] with
    /// those flags is then a cache hit; a pass that needs flags a
    /// combination lacks (`requires`) is skipped there.
    ///
    /// Cost: per combination not warmed yet, a composition and a
    /// registration on this thread, while the pipelines made so far build on
    /// the other cores ([`Effects::warm_with`] picks the threads and reports
    /// progress); nothing for what is cached. On error, every pipeline of
    /// the combinations before the failing one is still built and kept, and
    /// the first failure (in combination order) is returned.
    pub fn warm(
        &mut self,
        manager: &mut Manager,
        id: EffectId,
        targets: &Targets,
    ) -> Result<WarmReport, EffectError> {
        self.warm_with(manager, id, targets, 0, &mut |_| {})
    }

    /// [`Effects::warm`] on `threads` threads (0: one per core; on the web,
    /// always this one), this one among them, calling `progress` on this
    /// thread after each pipeline is built (from when every combination is
    /// composed, so that the total is known).
    pub fn warm_with(
        &mut self,
        manager: &mut Manager,
        id: EffectId,
        targets: &Targets,
        threads: usize,
        progress: &mut dyn FnMut(WarmProgress),
    ) -> Result<WarmReport, EffectError> {
        let effect = self.checked(id, "effect id")?;
        // The flags the source tests, and those that decide which passes exist.
        let deciding = effect.passes.iter().fold(effect.tested, |bits, p| bits | p.deciding());
        let (combos, exhaustive) = effect.rules.combinations(deciding, EXHAUSTIVE_COMBINATIONS);
        let passes = effect.passes.len() as u32;
        let mut report = WarmReport { permutations: combos.len(), exhaustive, pipelines: 0 };
        self.build_streamed(manager, threads, progress, |fx, manager, jobs| {
            for bits in combos {
                let flags = FlagSet { effect: id, bits };
                for index in 0..passes {
                    let pass = PassId { effect: id, index };
                    if fx.pass(pass).exists_under(bits) {
                        let render = fx.pass(pass).vertex.is_some().then_some(targets);
                        if let Some(job) = fx.job(manager, pass, flags, render)?.1 {
                            jobs.push(job);
                        }
                        report.pipelines += 1;
                    }
                }
            }
            Ok(())
        })?;
        Ok(report)
    }
}
