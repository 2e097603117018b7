//! Pipelines as jobs: what one pipeline needs is gathered on the library's
//! thread (the pass's shader registered, its modules and layout made), the
//! pipeline is built on any thread (wgpu's device is shared across threads
//! on native; the shader compiles there), and the library keeps it
//! (`Effects::job`, `keep` and `run`, in `request.rs`). `render_pipeline`
//! runs one job in place; `build.rs` runs many on worker threads as they
//! are made (`Effects::warm`, the log's replay).

use freqbuf::{Creator, Error, ShaderId};

use crate::effect::types::{FlagSet, Pass, PassId, Targets};

/// One pipeline to build.
pub(in crate::effect) struct Job {
    pub(in crate::effect) pass: PassId,
    pub(in crate::effect) flags: FlagSet,
    pub(in crate::effect) shader: ShaderId,
    pub(in crate::effect) p: Pass,
    pub(in crate::effect) layout: wgpu::PipelineLayout,
    pub(in crate::effect) kind: JobKind,
}

/// What a job builds: a render pipeline from two modules for its targets,
/// or a compute pipeline.
pub(in crate::effect) enum JobKind {
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

/// Hands each job `produce` makes to the builders, once per pipeline.
pub(in crate::effect) struct Jobs<'a> {
    keys: Vec<JobKey>,
    send: &'a mut dyn FnMut(Job),
}

impl<'a> Jobs<'a> {
    pub(in crate::effect) fn new(send: &'a mut dyn FnMut(Job)) -> Self {
        Self { keys: Vec::new(), send }
    }

    /// Queues `job` for building, unless a job of the same pipeline was
    /// queued before (a log may name a pipeline twice).
    pub(in crate::effect) fn push(&mut self, job: Job) {
        let key = job.key();
        if !self.keys.contains(&key) {
            self.keys.push(key);
            (self.send)(job);
        }
    }
}

/// A job's result, with the job (it goes into the cache afterwards).
pub(in crate::effect) type Done = (Job, Result<Built, Error>);
