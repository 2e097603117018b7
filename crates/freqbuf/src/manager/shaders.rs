//! Registering shaders, their layouts and modules, and moving to a new device.

use super::Manager;
use crate::binding::ShaderBinding;
use crate::device::limits::{self, DeviceCaps};
use crate::device::scope;
use crate::errors::Error;
use crate::id::ShaderId;
use crate::reflect::{ShaderReflection, ShaderSource};
use crate::slot::array::Addressing;
use crate::upload::Uploader;

impl Manager {
    /// Registers a shader: merges its uniform blocks into the slots and builds its
    /// bind group and pipeline layouts. Values already set are kept, also when
    /// the shader grows a slot.
    ///
    /// The shader is checked against the device's limits and features before any
    /// wgpu object is created, and the objects are created inside error scopes.
    /// On error nothing changes. Cost: a naga validation, and a layout per new
    /// binding combination.
    pub fn register(&mut self, shader: ShaderReflection) -> Result<ShaderId, Error> {
        let shader = self.registry.planned(shader).sized_arrays(|c| self.caps.table_len(c));
        let checked = limits::check_shader(&shader, &self.caps)?;
        let draft = self.registry.draft(&shader)?;
        let prepared = self.layouts.prepare(&self.device, &shader, &self.caps, checked)?;
        // Everything that can fail has passed: commit.
        let id = self.registry.commit(shader, draft);
        self.sync_slots();
        self.layouts.commit(prepared, &self.registry, id);
        Ok(id)
    }

    /// Reflects and registers WGSL source in one step.
    pub fn register_wgsl(&mut self, name: &str, source: &str) -> Result<ShaderId, Error> {
        self.register(ShaderReflection::new(name, ShaderSource::Wgsl(source))?)
    }

    /// Moves the manager to a new device, after the old one was lost.
    ///
    /// Every slot buffer is rebuilt from its CPU shadow at the next
    /// [`Manager::flush`] (until then draws are [`Error::NotFlushed`]); bind
    /// group layouts, pipeline layouts and the flush pipeline are recreated
    /// now. Values, instances, shader ids and params stay valid.
    ///
    /// The application recreates what it owns: its pipelines (with
    /// [`Manager::pipeline_layout`], which now returns the new layouts), and the
    /// textures, samplers and storage buffers it had set on instances, which
    /// belonged to the old device: they are dropped here, placeholders stand in
    /// until they are set again. On error (the new device cannot hold the
    /// registered shaders) nothing changes.
    pub fn recreate(&mut self, device: &wgpu::Device) -> Result<(), Error> {
        let caps = DeviceCaps::new(device, self.caps.downlevel);
        // Array slots keep their addressing: shader modules and pipelines depend on it.
        let moved = self.slots.iter().find(|s| {
            s.addressing() != Addressing::Dynamic && caps.array_addressing(s.size()) != s.addressing()
        });
        if let Some(slot) = moved {
            let user = self.registry[slot.id()].users()[0];
            return Err(Error::Unsupported {
                shader: self.registry[user].name().to_owned(),
                what: format!(
                    "the new device addresses array slot {} differently (a storage buffer or uniform \
                     batches of another length); register the shaders on a new Manager",
                    slot.binding()
                ),
            });
        }
        for (_, shader) in self.registry.shaders() {
            limits::check_shader(shader, &caps)?;
        }
        // The registry follows the device: later registrations meet its limit.
        self.registry.check_uniform_limit(caps.max_uniform())?;
        let layouts = self.layouts.recreate(device, &self.registry)?;
        // Everything new exists: switch over.
        self.layouts.install(layouts);
        self.groups.reset();
        self.replacements += 1;
        let align = caps.limits.min_uniform_buffer_offset_alignment;
        for slot in &mut self.slots {
            slot.reset_gpu(align);
        }
        self.instances.clear_resources();
        self.device = device.clone();
        self.device_serial = crate::id::Counter::DeviceSerial.next();
        // The flush settings are the application's: only the device-bound state goes.
        let span_fraction = self.uploader.span_fraction;
        self.uploader = Uploader::new(self.uploader.strategy, caps.limits.clone());
        self.uploader.span_fraction = span_fraction;
        self.registry.set_uniform_limit(caps.max_uniform());
        self.caps = caps;
        Ok(())
    }

    /// Creates a `wgpu::ShaderModule` from the shader's validated module (no
    /// reparse); on a device without vertex storage, with its array slots
    /// rewritten as batched uniform arrays.
    ///
    /// Cost: a clone of the naga module and wgpu's shader creation, inside error scopes.
    pub fn create_shader_module(&self, shader: ShaderId) -> Result<wgpu::ShaderModule, Error> {
        let batched = self.shader(shader)?.batched.as_ref();
        let reflection = &self.registry[shader];
        let module = batched.unwrap_or(reflection.module()).clone();
        let what = || format!("{}: shader module", reflection.name());
        scope::scoped(&self.device, what, || {
            self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(reflection.name()),
                source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(module)),
            })
        })
    }

    /// The pipeline layout to build the shader's pipelines with.
    pub fn pipeline_layout(&self, shader: ShaderId) -> Result<&wgpu::PipelineLayout, Error> {
        Ok(&self.shader(shader)?.pipeline_layout)
    }

    /// The bind group layouts of the shader by group index, empty groups included.
    pub fn bind_group_layouts(&self, shader: ShaderId) -> Result<Vec<(u32, &wgpu::BindGroupLayout)>, Error> {
        Ok(self.layouts.group_layouts(self.shader(shader)?))
    }

    fn shader(&self, shader: ShaderId) -> Result<&ShaderBinding, Error> {
        self.layouts
            .shader(shader)
            .filter(|_| self.registry.owns(shader))
            .ok_or(Error::UnknownShader(shader.index()))
    }
}
