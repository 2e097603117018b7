//! The pipeline cache: a render or compute pipeline per (pass, flags,
//! targets), with the pass's render state and the permutation's layout.

use super::library::Effects;
use super::types::{FlagSet, PassId, Targets};
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
    fn prepare(&mut self, manager: &Manager, pass: PassId, flags: FlagSet) -> Result<(), EffectError> {
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
        self.follow_device(manager);
        Ok(())
    }

    /// Drops the modules, pipelines and pipeline cache of a device `manager`
    /// left (`Manager::recreate`).
    pub(super) fn follow_device(&mut self, manager: &Manager) {
        if self.device != manager.device_serial() {
            self.modules.clear();
            self.render.clear();
            self.compute.clear();
            self.pipeline_cache = None;
            self.device = manager.device_serial();
        }
    }

    fn module(&mut self, manager: &Manager, shader: ShaderId) -> Result<&wgpu::ShaderModule, Error> {
        Ok(match self.modules.entry(shader) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(manager.create_shader_module(shader)?),
        })
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
        self.prepare(manager, pass, flags)?;
        let shader = self.pass_shader(manager, pass, flags)?;
        if self.pass(pass).vertex.is_none() {
            return Err(self.wrong_kind(pass, "render"));
        }
        // The hit is the per-draw path: no clone of the pass or the targets there.
        let key = (pass, shader);
        let cached = self.render.get(&key).and_then(|list| list.iter().position(|(t, _)| t == targets));
        let at = match cached {
            Some(at) => at,
            None => {
                let p = self.pass(pass).clone();
                let vertex = p.vertex.clone().expect("checked above");
                let fail = |this: &Self, e: Error| this.register_error(flags, e);
                let (vs, fs) = (self.stage_shader(shader, 0), self.stage_shader(shader, 1));
                let module = match self.module(manager, vs) {
                    Ok(m) => m.clone(),
                    Err(e) => return Err(fail(self, e)),
                };
                let fs_module = match self.module(manager, fs) {
                    Ok(m) => m.clone(),
                    Err(e) => return Err(fail(self, e)),
                };
                let layout = manager.pipeline_layout(shader).map_err(|e| fail(self, e))?;
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
                let pipeline_cache = self.pipeline_cache.as_ref();
                let pipeline = manager
                    .scoped(what, |device| {
                        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                            label: Some(&p.name),
                            layout: Some(layout),
                            vertex: wgpu::VertexState {
                                module: &module,
                                entry_point: Some(&vertex),
                                compilation_options: Default::default(),
                                buffers: &buffers,
                            },
                            fragment: p.fragment.as_deref().map(|fs| wgpu::FragmentState {
                                module: &fs_module,
                                entry_point: Some(fs),
                                compilation_options: Default::default(),
                                targets: &color,
                            }),
                            primitive: wgpu::PrimitiveState {
                                cull_mode: p.cull.to_wgpu(),
                                ..Default::default()
                            },
                            depth_stencil,
                            multisample: wgpu::MultisampleState {
                                count: targets.samples,
                                ..Default::default()
                            },
                            multiview_mask: None,
                            cache: pipeline_cache,
                        })
                    })
                    .map_err(|e| fail(self, e))?;
                self.stats.pipelines += 1;
                self.used.insert((pass.effect.index, pass.index, flags.bits));
                let list = self.render.entry(key).or_default();
                list.push((targets.clone(), pipeline));
                list.len() - 1
            }
        };
        Ok((shader, &self.render[&key][at].1))
    }

    /// The compute pipeline of a compute pass with `flags`, built once and cached.
    pub fn compute_pipeline(
        &mut self,
        manager: &mut Manager,
        pass: PassId,
        flags: FlagSet,
    ) -> Result<(ShaderId, &wgpu::ComputePipeline), EffectError> {
        self.prepare(manager, pass, flags)?;
        let shader = self.pass_shader(manager, pass, flags)?;
        let p = self.pass(pass).clone();
        let Some(entry) = p.compute.clone() else {
            return Err(self.wrong_kind(pass, "compute"));
        };
        let key = (pass, shader);
        if !self.compute.contains_key(&key) {
            let fail = |this: &Self, e: Error| this.register_error(flags, e);
            let module = match self.module(manager, self.stage_shader(shader, 2)) {
                Ok(m) => m.clone(),
                Err(e) => return Err(fail(self, e)),
            };
            let layout = manager.pipeline_layout(shader).map_err(|e| fail(self, e))?;
            let what = || format!("{}: compute pipeline", p.name);
            let pipeline_cache = self.pipeline_cache.as_ref();
            let pipeline = manager
                .scoped(what, |device| {
                    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some(&p.name),
                        layout: Some(layout),
                        module: &module,
                        entry_point: Some(&entry),
                        compilation_options: Default::default(),
                        cache: pipeline_cache,
                    })
                })
                .map_err(|e| fail(self, e))?;
            self.stats.pipelines += 1;
            self.used.insert((pass.effect.index, pass.index, flags.bits));
            self.compute.insert(key, pipeline);
        }
        Ok((shader, &self.compute[&key]))
    }

    fn register_error(&self, flags: FlagSet, e: Error) -> EffectError {
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

    fn wrong_kind(&self, pass: PassId, wanted: &'static str) -> EffectError {
        let effect = self.effect(pass.effect);
        EffectError {
            file: effect.name.clone(),
            location: None,
            kind: Box::new(EffectErrorKind::WrongKind { pass: self.pass(pass).name.clone(), wanted }),
        }
    }
}
