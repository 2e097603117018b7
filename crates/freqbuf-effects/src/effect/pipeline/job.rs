//! Pipelines as jobs: what one pipeline needs is gathered on the library's
//! thread (the pass's shader registered, its modules and layout made), the
//! pipeline is built on any thread (wgpu's device is shared across threads
//! on native; the shader compiles there), and the library keeps it.
//! `render_pipeline` runs one job in place; `build.rs` runs many on
//! worker threads as they are made (`Effects::warm`, the log's replay).

use freqbuf::{Creator, Error, Manager, ShaderId};

use crate::effect::library::Effects;
use crate::effect::types::{FlagSet, Pass, PassId, Targets};
use crate::error::EffectError;

/// One pipeline to build.
pub(in crate::effect) struct Job {
    pub(in crate::effect) pass: PassId,
    pub(in crate::effect) flags: FlagSet,
    pub(in crate::effect) shader: ShaderId,
    p: Pass,
    layout: wgpu::PipelineLayout,
    kind: JobKind,
}

enum JobKind {
    Render { targets: Targets, vs: wgpu::ShaderModule, fs: wgpu::ShaderModule },
    Compute { module: wgpu::ShaderModule },
}

/// What tells two jobs of one pipeline apart from others: the pass, its
/// shader, and the targets of a render pass.
#[derive(Debug, PartialEq)]
pub(in crate::effect) struct JobKey(PassId, ShaderId, Option<Targets>);

impl Job {
    /// The pipeline it builds (a log may name one twice).
    pub(in crate::effect) fn key(&self) -> JobKey {
        let targets = match &self.kind {
            JobKind::Render { targets, .. } => Some(targets.clone()),
            JobKind::Compute { .. } => None,
        };
        JobKey(self.pass, self.shader, targets)
    }
}

/// A built pipeline, on its way into the library's cache.
pub(in crate::effect) enum Built {
    Render(wgpu::RenderPipeline),
    Compute(wgpu::ComputePipeline),
}

impl Job {
    /// Builds the pipeline, through the application's pipeline cache if any,
    /// on any thread. Cost: wgpu's pipeline creation, where the shaders compile.
    pub(in crate::effect) fn build(
        &self,
        creator: &Creator,
        cache: Option<&wgpu::PipelineCache>,
    ) -> Result<Built, Error> {
        let p = &self.p;
        match &self.kind {
            JobKind::Render { targets, vs, fs } => {
                let write = if p.color_write { wgpu::ColorWrites::ALL } else { wgpu::ColorWrites::empty() };
                let color = targets
                    .color
                    .iter()
                    .map(|&format| {
                        Some(wgpu::ColorTargetState { format, blend: p.blend.to_wgpu(), write_mask: write })
                    })
                    .collect::<Vec<_>>();
                let depth_stencil = targets.depth.map(|format| wgpu::DepthStencilState {
                    format,
                    depth_write_enabled: Some(p.depth.is_some_and(|d| d.write)),
                    depth_compare: Some(
                        p.depth.map_or(wgpu::CompareFunction::Always, |d| d.compare.to_wgpu()),
                    ),
                    stencil: Default::default(),
                    bias: Default::default(),
                });
                let buffers = targets.vertex_buffers.iter().cloned().map(Some).collect::<Vec<_>>();
                let what = || format!("{}: render pipeline", p.name);
                let pipeline = creator.scoped(what, |device| {
                    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                        label: Some(&p.name),
                        layout: Some(&self.layout),
                        vertex: wgpu::VertexState {
                            module: vs,
                            entry_point: p.vertex.as_deref(),
                            compilation_options: Default::default(),
                            buffers: &buffers,
                        },
                        fragment: p.fragment.as_deref().map(|entry| wgpu::FragmentState {
                            module: fs,
                            entry_point: Some(entry),
                            compilation_options: Default::default(),
                            targets: &color,
                        }),
                        primitive: wgpu::PrimitiveState { cull_mode: p.cull.to_wgpu(), ..Default::default() },
                        depth_stencil,
                        multisample: wgpu::MultisampleState { count: targets.samples, ..Default::default() },
                        multiview_mask: None,
                        cache,
                    })
                })?;
                Ok(Built::Render(pipeline))
            }
            JobKind::Compute { module } => {
                let what = || format!("{}: compute pipeline", p.name);
                let pipeline = creator.scoped(what, |device| {
                    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some(&p.name),
                        layout: Some(&self.layout),
                        module,
                        entry_point: p.compute.as_deref(),
                        compilation_options: Default::default(),
                        cache,
                    })
                })?;
                Ok(Built::Compute(pipeline))
            }
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
