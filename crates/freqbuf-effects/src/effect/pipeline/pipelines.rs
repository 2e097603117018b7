//! The library's pipelines: the shader modules and the render and compute
//! pipelines it built, for the one device they belong to, the application's
//! `wgpu::PipelineCache` they were built with, and which (effect, pass,
//! flags) they were built for (the pipeline log). The part of [`Effects`](crate::effect::library::Effects)
//! that holds wgpu objects; composition and registration live elsewhere.

use std::collections::{BTreeSet, HashMap};

use freqbuf::{Error, Manager, ShaderId};

use crate::effect::types::{Bits, EffectId, LoggedTargets, PassId, Targets};

/// Pipelines by (pass, permutation); see the module's doc.
#[derive(Debug, Default)]
pub(in crate::effect) struct Pipelines {
    modules: HashMap<ShaderId, wgpu::ShaderModule>,
    /// One render pipeline per targets it was built for (usually one). The
    /// shader id names the manager and the flags, the pass its state and
    /// entry points: everything a pipeline is built from but the device.
    render: HashMap<(PassId, ShaderId), Vec<(Targets, wgpu::RenderPipeline)>>,
    compute: HashMap<(PassId, ShaderId), wgpu::ComputePipeline>,
    /// The manager's device serial the modules and pipelines were made for.
    device: u64,
    cache: Option<wgpu::PipelineCache>,
    /// (effect, pass, flags, attachments) of every pipeline built, in order.
    used: BTreeSet<(u32, u32, Bits, Option<LoggedTargets>)>,
}

impl Pipelines {
    /// Drops the modules, pipelines and cache of a device the manager left
    /// (`Manager::recreate`): they belong to it. Cost: a comparison.
    pub(in crate::effect) fn follow_device(&mut self, manager: &Manager) {
        if self.device != manager.device_serial() {
            self.modules.clear();
            self.render.clear();
            self.compute.clear();
            self.cache = None;
            self.device = manager.device_serial();
        }
    }

    /// The shader module of a registered shader, made once.
    pub(in crate::effect) fn module(
        &mut self,
        manager: &Manager,
        shader: ShaderId,
    ) -> Result<&wgpu::ShaderModule, Error> {
        Ok(match self.modules.entry(shader) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(manager.create_shader_module(shader)?),
        })
    }

    pub(in crate::effect) fn render(
        &self,
        key: (PassId, ShaderId),
        targets: &Targets,
    ) -> Option<&wgpu::RenderPipeline> {
        self.render.get(&key)?.iter().find(|(t, _)| t == targets).map(|(_, p)| p)
    }

    pub(in crate::effect) fn compute(&self, key: (PassId, ShaderId)) -> Option<&wgpu::ComputePipeline> {
        self.compute.get(&key)
    }

    pub(in crate::effect) fn keep_render(
        &mut self,
        key: (PassId, ShaderId),
        targets: Targets,
        pipeline: wgpu::RenderPipeline,
    ) {
        self.render.entry(key).or_default().push((targets, pipeline));
    }

    pub(in crate::effect) fn keep_compute(
        &mut self,
        key: (PassId, ShaderId),
        pipeline: wgpu::ComputePipeline,
    ) {
        self.compute.insert(key, pipeline);
    }

    /// Records a pipeline built for (effect, pass, flags) and, for a render
    /// pass, the attachments of `targets`, for the log.
    pub(in crate::effect) fn mark_used(&mut self, pass: PassId, bits: Bits, targets: Option<&Targets>) {
        self.used.insert((pass.effect.index, pass.index, bits, targets.map(LoggedTargets::of)));
    }

    /// (effect, pass, flags, attachments) of every pipeline built, in order.
    pub(in crate::effect) fn used(&self) -> impl Iterator<Item = &(u32, u32, Bits, Option<LoggedTargets>)> {
        self.used.iter()
    }

    /// The application's pipeline cache, of the device the pipelines are for.
    pub(in crate::effect) fn cache(&self) -> Option<&wgpu::PipelineCache> {
        self.cache.as_ref()
    }

    pub(in crate::effect) fn set_cache(&mut self, cache: Option<wgpu::PipelineCache>) {
        self.cache = cache;
    }

    /// Drops an effect's pipelines (its permutations changed).
    pub(in crate::effect) fn forget(&mut self, effect: EffectId) {
        self.render.retain(|k, _| k.0.effect != effect);
        self.compute.retain(|k, _| k.0.effect != effect);
    }
}
