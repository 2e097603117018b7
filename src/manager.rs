//! `Manager`: the runtime. It owns the registry, one slot (`slot.rs`) per shared
//! uniform slot, the instances, the bind group layouts and bind groups, and the
//! uploader. Data flows one way: values are set into slot shadows, `flush`
//! uploads the dirty bytes, and the [`Binder`] binds what each draw needs.

use std::collections::HashMap;

use smallvec::SmallVec;

use crate::bind::{
    BindTarget, Binder, Bound, CachedGroup, Draw, ShaderBinding, Variant, VariantEntry, VariantId,
    uniform_entry,
};
use crate::error::{Error, ParamError, ParamErrorKind};
use crate::instance::{InstanceId, Instances, MaterialId, ObjectId, PENDING, ViewId};
use crate::limits::{self, DeviceCaps};
use crate::name::parse_path;
use crate::param::{Param, Uniform, type_name};
use crate::plan::{BindingPoint, Frequency, SlotPlan};
use crate::reflect::{ResourceKind, ShaderReflection, ShaderSource};
use crate::registry::{Registry, ShaderId, SlotId, closest};
use crate::resources::{self, InstanceResources, Placeholders};
use crate::scope;
use crate::slot::Slot;
use crate::stats::FrameStats;
use crate::upload::{FlushStrategy, Uploader};

/// Options for [`Manager::with_options`].
#[derive(Clone, Debug, Default)]
pub struct ManagerOptions {
    /// How packed dirty ranges reach the slot buffers.
    pub strategy: FlushStrategy,
}

/// Shared, frequency-sorted uniform slots for every registered shader.
///
/// Per frame: set values through [`Manager::frame`], [`Manager::view`],
/// [`Manager::material`] and [`Manager::object`]; call [`Manager::flush`] once;
/// then encode draws with a [`Binder`]. A draw sees the values as they were at
/// the last flush before its submission, or is refused with
/// [`Error::NotFlushed`].
///
/// Bad input is an error, never a panic: shaders beyond the device's limits,
/// unknown or ambiguous names, wrong value types and resources that do not fit
/// their binding are refused, and a failed call changes nothing.
///
/// ```no_run
/// use freqbuf::{Error, Manager, ParamErrorKind, SlotPlan};
/// # fn f(device: &wgpu::Device) -> Result<(), Error> {
/// let mut fb = Manager::new(device, SlotPlan::default());
/// fb.register_wgsl(
///     "mat.wgsl",
///     "struct MatA { color: vec4<f32> }
///      struct MatB { color: vec4<f32>, rough: f32 }
///      @group(2) @binding(0) var<uniform> mat_a: MatA;
///      @group(2) @binding(1) var<uniform> mat_b: MatB;
///      @fragment fn fs() -> @location(0) vec4<f32> { return mat_a.color + mat_b.color * mat_b.rough; }",
/// )?;
/// // Two blocks declare `color`: the bare name is ambiguous, a qualified one is not.
/// assert!(matches!(fb.param("color").unwrap_err().kind, ParamErrorKind::Ambiguous { .. }));
/// let color = fb.param("mat_b.color")?;
/// let m = fb.create_material();
/// fb.material(m).set(color, &[1.0f32, 0.5, 0.2, 1.0])?;
/// // A value of the wrong type is refused and nothing is written.
/// assert!(fb.material(m).set(color, &1.0f32).is_err());
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Manager {
    device: wgpu::Device,
    /// The registry's tag, read on every draw.
    registry_tag: u32,
    caps: DeviceCaps,
    registry: Registry,
    align: u32,
    slots: Vec<Slot>,
    variants: Vec<Variant>,
    variant_index: HashMap<(u32, Vec<wgpu::BindGroupLayoutEntry>), VariantId>,
    shaders: Vec<ShaderBinding>,
    /// Per shader, its own block size for each uniform slot, in the order of its
    /// groups' variants' `uniforms`: a draw waits for the flush that makes the
    /// slot's GPU copy at least this large. Cold data, apart from `shaders`.
    needs: Vec<SmallVec<[u32; 8]>>,
    views: Instances<ViewId>,
    materials: Instances<MaterialId>,
    objects: Instances<ObjectId>,
    resources: [Vec<InstanceResources>; 4],
    placeholders: Placeholders,
    /// One-entry layouts to check resources against, by binding type.
    probes: HashMap<wgpu::BindingType, wgpu::BindGroupLayout>,
    uploader: Uploader,
    stats: FrameStats,
    /// Change counter: slot buffer replacements and resource changes take the next value.
    epoch: u64,
    serial: u64,
}

impl Manager {
    /// A manager for `device` with the given plan and default options.
    ///
    /// Limits (offset alignment, uniform binding size) are read from `device.limits()`.
    pub fn new(device: &wgpu::Device, plan: SlotPlan) -> Self {
        Self::with_options(device, plan, ManagerOptions::default())
    }

    /// A manager with explicit options.
    pub fn with_options(device: &wgpu::Device, plan: SlotPlan, options: ManagerOptions) -> Self {
        let caps = DeviceCaps::new(device);
        let limits = &caps.limits;
        let registry =
            Registry::with_limit(plan, limits.max_uniform_buffer_binding_size.min(u32::MAX as u64) as u32);
        Self {
            device: device.clone(),
            registry_tag: registry.tag(),
            registry,
            align: limits.min_uniform_buffer_offset_alignment,
            slots: Vec::new(),
            variants: Vec::new(),
            variant_index: HashMap::new(),
            shaders: Vec::new(),
            needs: Vec::new(),
            views: Instances::new(),
            materials: Instances::new(),
            objects: Instances::new(),
            resources: Default::default(),
            placeholders: Placeholders::default(),
            probes: HashMap::new(),
            uploader: Uploader::new(options.strategy, limits.clone()),
            stats: FrameStats::default(),
            epoch: 0,
            serial: 0,
            caps,
        }
    }

    /// The reflection registry: shaders, merged slot layouts, bindings.
    #[inline]
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The byte distance between instances in a slot's buffer (`None` for a foreign id).
    pub fn slot_stride(&self, slot: SlotId) -> Option<u32> {
        self.slots.get(slot.index()).map(|s| s.stride)
    }

    /// The flush strategy in use.
    pub fn flush_strategy(&self) -> FlushStrategy {
        self.uploader.strategy
    }

    /// Changes the flush strategy (for comparing strategies on one scene).
    pub fn set_flush_strategy(&mut self, strategy: FlushStrategy) {
        self.uploader.strategy = strategy;
    }

    /// Registers a shader: merges its uniform blocks into the slots and builds its
    /// bind group and pipeline layouts. Values already set are kept, also when
    /// the shader grows a slot.
    ///
    /// The shader is checked against the device's limits and features before any
    /// wgpu object is created, and the objects are created inside error scopes.
    /// On error nothing changes. Cost: a naga validation, and a layout per new
    /// binding combination.
    pub fn register(&mut self, shader: ShaderReflection) -> Result<ShaderId, Error> {
        let name = shader.name().to_owned();
        let unsupported = |what: String| Error::Unsupported { shader: name.clone(), what };
        // Checks the registry cannot make: device features, binding types, group owners.
        let mut owners: HashMap<u32, Frequency> = HashMap::new();
        for r in shader.used_resources().filter(|r| r.kind != ResourceKind::Uniform) {
            resources::binding_type(&r.kind, r.sampled)
                .map_err(|e| unsupported(format!("`{}`: {e}", r.name)))?;
            if r.count > 1 && !self.caps.features.contains(wgpu::Features::TEXTURE_BINDING_ARRAY) {
                return Err(unsupported(format!(
                    "`{}` is a binding array of {}, and the device lacks Features::TEXTURE_BINDING_ARRAY",
                    r.name, r.count
                )));
            }
            if let Some(freq) = self.registry.plan().frequency(r.binding) {
                let existing = self
                    .variants
                    .iter()
                    .filter(|v| v.group == r.binding.group)
                    .find_map(|v| v.owner)
                    .or_else(|| owners.get(&r.binding.group).copied());
                if let Some(other) = existing.filter(|&o| o != freq) {
                    return Err(Error::Layout {
                        shader: name.clone(),
                        source: Box::new(crate::LayoutError {
                            binding: r.binding,
                            kind: crate::LayoutErrorKind::MixedGroup {
                                group: r.binding.group,
                                first: other,
                                second: freq,
                            },
                        }),
                    });
                }
                owners.insert(r.binding.group, freq);
            }
        }
        let visibility = limits::check(&shader, &self.caps)
            .map_err(|e| Error::Limit { shader: name.clone(), source: Box::new(e) })?;
        let prepared = self.prepare_layouts(&shader, &visibility)?;
        let id = self.registry.add(shader)?;
        self.sync_slots();
        let binding = self.commit_layouts(prepared);
        self.shaders.push(binding);
        Ok(id)
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
        let caps = DeviceCaps::new(device);
        for (_, shader) in self.registry.shaders() {
            limits::check(shader, &caps)
                .map_err(|e| Error::Limit { shader: shader.name().to_owned(), source: Box::new(e) })?;
        }
        let mut keys: Vec<_> = self.variant_index.iter().map(|(k, &v)| (v, k.clone())).collect();
        keys.sort_by_key(|(v, _)| v.0);
        let layouts = scope::scoped(
            device,
            || "bind group layouts on the new device".into(),
            || {
                keys.iter()
                    .map(|(_, (_, entries))| {
                        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                            label: Some("freqbuf group"),
                            entries,
                        })
                    })
                    .collect::<Vec<_>>()
            },
        )?;
        let pipeline_layouts = scope::scoped(
            device,
            || "pipeline layouts on the new device".into(),
            || {
                self.registry
                    .shaders()
                    .zip(&self.shaders)
                    .map(|((_, reflection), binding)| {
                        let groups = binding
                            .groups
                            .iter()
                            .map(|&(_, v)| Some(&layouts[v.0 as usize]))
                            .collect::<Vec<_>>();
                        device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                            label: Some(reflection.name()),
                            bind_group_layouts: &groups,
                            immediate_size: 0,
                        })
                    })
                    .collect::<Vec<_>>()
            },
        )?;
        // Everything new exists: switch over.
        for (variant, layout) in self.variants.iter_mut().zip(layouts) {
            variant.layout = layout;
            variant.cache.clear();
        }
        for (binding, layout) in self.shaders.iter_mut().zip(pipeline_layouts) {
            binding.pipeline_layout = layout;
            binding.ready = false;
        }
        let align = caps.limits.min_uniform_buffer_offset_alignment;
        for slot in &mut self.slots {
            slot.reset_gpu(align);
        }
        self.align = align;
        for table in &mut self.resources {
            for r in table.iter_mut() {
                r.items.clear();
            }
        }
        self.epoch += 1;
        self.device = device.clone();
        self.uploader = Uploader::new(self.uploader.strategy, caps.limits.clone());
        self.caps = caps;
        self.placeholders = Placeholders::default();
        self.probes.clear();
        Ok(())
    }

    /// Reflects and registers WGSL source in one step.
    pub fn register_wgsl(&mut self, name: &str, source: &str) -> Result<ShaderId, Error> {
        let shader = ShaderReflection::new(name, ShaderSource::Wgsl(source))?;
        self.register(shader)
    }

    /// Creates a `wgpu::ShaderModule` from the shader's validated module (no reparse).
    ///
    /// Cost: a clone of the naga module and wgpu's shader creation, inside error scopes.
    pub fn create_shader_module(&self, shader: ShaderId) -> Result<wgpu::ShaderModule, Error> {
        self.shader(shader)?;
        let reflection = &self.registry[shader];
        let what = || format!("{}: shader module", reflection.name());
        scope::scoped(&self.device, what, || {
            self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(reflection.name()),
                source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(reflection.module().clone())),
            })
        })
    }

    /// The pipeline layout to build the shader's pipelines with.
    pub fn pipeline_layout(&self, shader: ShaderId) -> Result<&wgpu::PipelineLayout, Error> {
        Ok(&self.shader(shader)?.pipeline_layout)
    }

    /// The bind group layouts of the shader by group index, empty groups included.
    pub fn bind_group_layouts(&self, shader: ShaderId) -> Result<Vec<(u32, &wgpu::BindGroupLayout)>, Error> {
        let groups = &self.shader(shader)?.groups;
        Ok(groups.iter().map(|&(g, v)| (g, &self.variants[v.0 as usize].layout)).collect())
    }

    fn shader(&self, shader: ShaderId) -> Result<&ShaderBinding, Error> {
        if !self.registry.owns(shader) {
            return Err(Error::UnknownShader(shader.index()));
        }
        self.shaders.get(shader.index()).ok_or(Error::UnknownShader(shader.index()))
    }

    /// Checks that `bound` fits a binding of type `ty` by building a one-entry
    /// bind group inside error scopes. Returns wgpu's complaint, if any.
    ///
    /// Cost: one bind group creation (and a layout the first time per type).
    fn probe(&mut self, ty: wgpu::BindingType, bound: &resources::Bound) -> Result<(), String> {
        let text = |e: Error| match e {
            Error::Wgpu { message, .. } => message,
            e => e.to_string(),
        };
        if !self.probes.contains_key(&ty) {
            let visibility = match ty {
                wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: false },
                    ..
                } => wgpu::ShaderStages::COMPUTE,
                _ => wgpu::ShaderStages::FRAGMENT,
            };
            let entry = wgpu::BindGroupLayoutEntry { binding: 0, visibility, ty, count: None };
            let layout = scope::scoped(
                &self.device,
                || "resource check layout".into(),
                || {
                    self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                        label: Some("freqbuf check"),
                        entries: &[entry],
                    })
                },
            )
            .map_err(text)?;
            self.probes.insert(ty, layout);
        }
        let resource = match bound {
            resources::Bound::Texture(v) => wgpu::BindingResource::TextureView(v),
            resources::Bound::Sampler(s) => wgpu::BindingResource::Sampler(s),
            resources::Bound::Buffer(b) => b.as_entire_binding(),
        };
        let layout = &self.probes[&ty];
        scope::scoped(&self.device, String::new, || {
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("freqbuf check"),
                layout,
                entries: &[wgpu::BindGroupEntry { binding: 0, resource }],
            })
        })
        .map(drop)
        .map_err(text)
    }

    /// Resolves a name or path (`view_proj`, `lights[3].color`, `GMRTs[2]`) to a
    /// [`Param`], once. Unknown names get suggestions.
    pub fn param(&self, name: &str) -> Result<Param, ParamError> {
        let (slot, resolved) = self.registry.resolve(name, None)?;
        Ok(Param::new(slot, self.registry[slot].frequency(), &resolved))
    }

    /// Creates a view instance; its values start at zero.
    pub fn create_view(&mut self) -> ViewId {
        let (k, i) = self.views.insert();
        self.init_instance(Frequency::View, i);
        k
    }

    /// Creates a material instance; its values start at zero and its textures are placeholders.
    pub fn create_material(&mut self) -> MaterialId {
        let (k, i) = self.materials.insert();
        self.init_instance(Frequency::Material, i);
        k
    }

    /// Creates an object instance; its values start at zero.
    pub fn create_object(&mut self) -> ObjectId {
        let (k, i) = self.objects.insert();
        self.init_instance(Frequency::Object, i);
        k
    }

    /// Frees a view; its slot space is reused by the next view created.
    pub fn free_view(&mut self, v: ViewId) -> Result<(), Error> {
        self.free(InstanceId::View(v))
    }

    /// Frees a material, dropping its textures and samplers.
    pub fn free_material(&mut self, m: MaterialId) -> Result<(), Error> {
        self.free(InstanceId::Material(m))
    }

    /// Frees an object.
    pub fn free_object(&mut self, o: ObjectId) -> Result<(), Error> {
        self.free(InstanceId::Object(o))
    }

    /// Frees any instance; freeing twice (or the frame) is [`Error::StaleHandle`].
    pub fn free(&mut self, id: InstanceId) -> Result<(), Error> {
        let f = id.frequency();
        let index = match id {
            InstanceId::Frame => None,
            InstanceId::View(k) => self.views.remove(k),
            InstanceId::Material(k) => self.materials.remove(k),
            InstanceId::Object(k) => self.objects.remove(k),
        }
        .ok_or(Error::StaleHandle(f))?;
        if let Some(r) = self.resources[f as usize].get_mut(index as usize) {
            if !r.items.is_empty() {
                r.items.clear();
                self.epoch += 1;
                r.epoch = self.epoch;
            }
        }
        Ok(())
    }

    /// Live instances of a frequency (the frame counts as one).
    pub fn instance_count(&self, frequency: Frequency) -> usize {
        match frequency {
            Frequency::Frame => 1,
            Frequency::View => self.views.len(),
            Frequency::Material => self.materials.len(),
            Frequency::Object => self.objects.len(),
        }
    }

    /// The frame instance, to set values on.
    #[inline]
    pub fn frame(&mut self) -> InstanceMut<'_> {
        InstanceMut { manager: self, id: InstanceId::Frame }
    }

    /// A view instance, to set values on.
    #[inline]
    pub fn view(&mut self, v: ViewId) -> InstanceMut<'_> {
        InstanceMut { manager: self, id: InstanceId::View(v) }
    }

    /// A material instance, to set values, textures and samplers on.
    #[inline]
    pub fn material(&mut self, m: MaterialId) -> InstanceMut<'_> {
        InstanceMut { manager: self, id: InstanceId::Material(m) }
    }

    /// An object instance, to set values on.
    #[inline]
    pub fn object(&mut self, o: ObjectId) -> InstanceMut<'_> {
        InstanceMut { manager: self, id: InstanceId::Object(o) }
    }

    /// Any instance, to set values on.
    #[inline]
    pub fn instance(&mut self, id: impl Into<InstanceId>) -> InstanceMut<'_> {
        InstanceMut { manager: self, id: id.into() }
    }

    /// Uploads the dirty bytes of every slot: at most one upload call per slot,
    /// and work proportional to the dirty bytes, not to the instance count.
    /// Also makes slots and instances created since the last flush usable.
    ///
    /// Draws submitted after this call see the values set before it.
    pub fn flush(&mut self, queue: &wgpu::Queue) -> Result<(), Error> {
        self.views.mark_flushed();
        self.materials.mark_flushed();
        self.objects.mark_flushed();
        let highs = Frequency::ALL.map(|f| self.high(f));
        self.uploader.flush(&self.device, queue, &mut self.slots, highs, &mut self.stats, &mut self.epoch)
    }

    /// Statistics since the last call of `take_stats`.
    #[inline]
    pub fn stats(&self) -> &FrameStats {
        &self.stats
    }

    /// Returns the statistics gathered since the last call and starts new ones.
    pub fn take_stats(&mut self) -> FrameStats {
        let fresh = FrameStats { slots: vec![Default::default(); self.slots.len()], ..Default::default() };
        std::mem::replace(&mut self.stats, fresh)
    }

    fn index_of(&self, id: InstanceId) -> Result<u32, Error> {
        match id {
            InstanceId::Frame => Some(0),
            InstanceId::View(k) => self.views.get(k),
            InstanceId::Material(k) => self.materials.get(k),
            InstanceId::Object(k) => self.objects.get(k),
        }
        .ok_or(Error::StaleHandle(id.frequency()))
    }

    fn high(&self, f: Frequency) -> u32 {
        match f {
            Frequency::Frame => 1,
            Frequency::View => self.views.high(),
            Frequency::Material => self.materials.high(),
            Frequency::Object => self.objects.high(),
        }
    }

    fn init_instance(&mut self, f: Frequency, index: u32) {
        let high = self.high(f);
        for slot in self.slots.iter_mut().filter(|s| s.frequency == f) {
            slot.reserve(high);
            slot.clear_instance(index);
        }
    }

    /// Creates runtime slots for new registry slots and grows changed ones.
    fn sync_slots(&mut self) {
        for (id, layout) in self.registry.slots() {
            let high = self.high(layout.frequency());
            match self.slots.get_mut(id.index()) {
                // Bind groups keep the GPU layout until the next flush re-lays the buffer.
                Some(slot) => {
                    slot.grow_block(layout.size());
                }
                None => {
                    let mut slot =
                        Slot::new(id, layout.binding(), layout.frequency(), layout.size(), self.align);
                    slot.reserve(high);
                    self.slots.push(slot);
                }
            }
        }
    }

    /// Bind group layouts and the pipeline layout for a shader not registered
    /// yet: they depend only on its own bindings, so they are created (inside
    /// error scopes) before anything is committed.
    fn prepare_layouts(
        &self,
        shader: &ShaderReflection,
        visibility: &[wgpu::ShaderStages],
    ) -> Result<Prepared, Error> {
        let mut groups: Vec<PreparedGroup> = Vec::new();
        let mut others = visibility.iter();
        for r in shader.used_resources() {
            let BindingPoint { group, binding } = r.binding;
            if groups.last().is_none_or(|g| g.group != group) {
                groups.push(PreparedGroup { group, ..Default::default() });
            }
            let g = groups.last_mut().expect("pushed above");
            if r.kind == ResourceKind::Uniform {
                g.layout_entries.push(uniform_entry(binding));
                g.entries.push(PreEntry::Uniform(r.binding, r.block.as_ref().map_or(0, |b| b.size)));
            } else {
                let ty = resources::binding_type(&r.kind, r.sampled).expect("checked in register");
                let count = std::num::NonZeroU32::new(r.count).filter(|_| r.count > 1);
                let visibility = *others.next().expect("a visibility per non-uniform binding");
                g.layout_entries.push(wgpu::BindGroupLayoutEntry { binding, visibility, ty, count });
                g.entries.push(PreEntry::Resource { binding, ty, count: r.count });
            }
        }
        // Fill gaps with empty groups: wgpu-core does not rebind the groups after
        // a gap when the previous pipeline had a layout there (a Vulkan layout
        // compatibility break), so later groups would read stale descriptors.
        // An empty layout makes the difference visible to it. `limits::check`
        // bounded the group indices by `max_bind_groups`.
        let max = groups.last().map_or(0, |g| g.group + 1);
        for g in 0..max {
            if !groups.iter().any(|b| b.group == g) {
                groups.push(PreparedGroup { group: g, ..Default::default() });
            }
        }
        groups.sort_by_key(|g| g.group);
        let what = || format!("{}: bind group layouts", shader.name());
        scope::scoped(&self.device, what, || {
            for g in &mut groups {
                let key = (g.group, std::mem::take(&mut g.layout_entries));
                if !self.variant_index.contains_key(&key) {
                    g.layout = Some(self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                        label: Some("freqbuf group"),
                        entries: &key.1,
                    }));
                }
                g.layout_entries = key.1;
            }
        })?;
        let layouts = groups
            .iter()
            .map(|g| {
                Some(g.layout.as_ref().unwrap_or_else(|| {
                    &self.variants[self.variant_index[&(g.group, g.layout_entries.clone())].0 as usize].layout
                }))
            })
            .collect::<Vec<_>>();
        let what = || format!("{}: pipeline layout", shader.name());
        let pipeline_layout = scope::scoped(&self.device, what, || {
            self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(shader.name()),
                bind_group_layouts: &layouts,
                immediate_size: 0,
            })
        })?;
        Ok(Prepared { groups, pipeline_layout })
    }

    /// Turns prepared layouts into variants once the registry has the shader's slots.
    fn commit_layouts(&mut self, prepared: Prepared) -> ShaderBinding {
        let mut groups: SmallVec<[(u32, VariantId); 4]> = SmallVec::new();
        let mut needs = SmallVec::new();
        for g in prepared.groups {
            let entries = g
                .entries
                .iter()
                .map(|e| match *e {
                    PreEntry::Uniform(point, need) => {
                        needs.push(need);
                        let slot =
                            self.registry.slot_at(point).expect("registry made a slot for each used block");
                        VariantEntry::Uniform(slot)
                    }
                    PreEntry::Resource { binding, ty, count } => {
                        VariantEntry::Resource { binding, ty, count }
                    }
                })
                .collect::<Vec<_>>();
            let key = (g.group, g.layout_entries);
            let vid = match (self.variant_index.get(&key), g.layout) {
                (Some(&v), _) => v,
                (None, layout) => {
                    let layout = layout.expect("prepared for every new key");
                    let uniforms = entries
                        .iter()
                        .filter_map(|e| match e {
                            VariantEntry::Uniform(s) => Some(*s),
                            _ => None,
                        })
                        .collect();
                    let owner = entries.iter().find_map(|e| match e {
                        VariantEntry::Resource { binding, .. } => {
                            self.registry.plan().frequency(BindingPoint::new(g.group, *binding))
                        }
                        _ => None,
                    });
                    let v = VariantId(self.variants.len() as u32);
                    self.variants.push(Variant {
                        group: g.group,
                        layout,
                        entries,
                        uniforms,
                        owner,
                        cache: Vec::new(),
                    });
                    self.variant_index.insert(key, v);
                    v
                }
            };
            groups.push((g.group, vid));
        }
        self.needs.push(needs);
        ShaderBinding { groups, ready: false, pipeline_layout: prepared.pipeline_layout }
    }

    /// Binds what `draw` needs on `pass` (see [`Binder::bind`]). The hot path:
    /// no allocation, a few array lookups per group.
    #[inline]
    pub(crate) fn bind_draw<P: BindTarget>(
        &mut self,
        binder: &mut Binder,
        pass: &mut P,
        draw: &Draw,
        mask: u32,
    ) -> Result<(), Error> {
        let si = draw.shader.index();
        let groups = match self.shaders.get(si) {
            Some(s) if draw.shader.tag() == self.registry_tag => s.groups.len(),
            _ => return Err(Error::UnknownShader(si)),
        };
        let index = [
            0,
            dense(draw.view, &self.views),
            dense(draw.material, &self.materials),
            dense(draw.object, &self.objects),
        ];
        if !self.shaders[si].ready {
            self.check_ready(si, mask)?;
        }
        for k in 0..groups {
            let (group, vid) = self.shaders[si].groups[k];
            let v = &self.variants[vid.0 as usize];
            if mask & (1 << group) == 0 {
                continue;
            }
            let mut offsets = SmallVec::<[u32; 4]>::new();
            let mut stamp = 0;
            for &s in &v.uniforms {
                let slot = &self.slots[s.index()];
                let i = self.instance_index(index, slot.frequency, draw)?;
                // The GPU copy is laid out as of the last flush: its stride and capacity.
                if i >= slot.gpu_capacity {
                    return Err(Error::NotFlushed(slot.frequency));
                }
                offsets.push(i * slot.gpu_stride);
                stamp = stamp.max(slot.epoch);
            }
            let owner = match v.owner {
                Some(f) => {
                    let i = self.instance_index(index, f, draw)?;
                    let epoch = self.resources[f as usize].get(i as usize).map_or(0, |r| r.epoch);
                    stamp = stamp.max(epoch);
                    i
                }
                None => 0,
            };
            let serial = match v.cache.get(owner as usize) {
                Some(Some(c)) if c.stamp == stamp => c.serial,
                _ => self.rebuild_group(vid, owner, stamp)?,
            };
            let bound = &mut binder.bound[group as usize];
            if bound.serial == serial && same(&bound.offsets, &offsets) {
                continue;
            }
            let cached = self.variants[vid.0 as usize].cache[owner as usize].as_ref().expect("built above");
            pass.set_bind_group(group, &cached.group, &offsets);
            *bound = Bound { serial, offsets };
            self.stats.shared.set_bind_group_calls += 1;
        }
        Ok(())
    }

    /// Whether every slot's GPU copy holds the shader's whole block (a register
    /// after the last flush may have grown it). Once true it stays true: GPU
    /// block sizes only grow, until `recreate` clears the flags.
    #[cold]
    fn check_ready(&mut self, si: usize, mask: u32) -> Result<(), Error> {
        let shader = &self.shaders[si];
        let (mut k, mut all) = (0, true);
        for &(group, vid) in &shader.groups {
            for &s in &self.variants[vid.0 as usize].uniforms {
                let slot = &self.slots[s.index()];
                if self.needs[si][k] > slot.gpu_size {
                    if mask & (1 << group) != 0 {
                        return Err(Error::NotFlushed(slot.frequency));
                    }
                    all = false;
                }
                k += 1;
            }
        }
        self.shaders[si].ready = all;
        Ok(())
    }

    /// The dense index of the draw's instance of `f`, or why there is none.
    #[inline]
    fn instance_index(&self, index: [u32; 4], f: Frequency, draw: &Draw) -> Result<u32, Error> {
        match index[f as usize] {
            NOT_GIVEN => Err(Error::MissingInstance {
                shader: self.registry[draw.shader].name().to_owned(),
                frequency: f,
            }),
            FREED => Err(Error::StaleHandle(f)),
            NOT_FLUSHED => Err(Error::NotFlushed(f)),
            i => Ok(i),
        }
    }

    /// Builds the bind group of a variant for one owner; returns its serial.
    #[cold]
    fn rebuild_group(&mut self, vid: VariantId, owner: u32, stamp: u64) -> Result<u64, Error> {
        // The outer scope also covers the placeholders made on first use.
        let device = self.device.clone();
        let index = self.variants[vid.0 as usize].group;
        let what = move || format!("bind group for group {index}");
        let group =
            scope::scoped(&device, || "placeholder resources".into(), || self.build_group(vid, owner))
                .unwrap_or_else(Err)
                .map_err(|e| match e {
                    Error::Wgpu { message, .. } => Error::Wgpu { what: what(), message },
                    e => e,
                })?;
        self.serial += 1;
        self.stats.shared.bind_groups_created += 1;
        let cache = &mut self.variants[vid.0 as usize].cache;
        if cache.len() <= owner as usize {
            cache.resize_with(owner as usize + 1, || None);
        }
        cache[owner as usize] = Some(CachedGroup { group, stamp, serial: self.serial });
        Ok(self.serial)
    }

    fn build_group(&mut self, vid: VariantId, owner: u32) -> Result<wgpu::BindGroup, Error> {
        let v = &self.variants[vid.0 as usize];
        let group = v.group;
        // Resolve every resource first (placeholders need &mut), then borrow for the entries.
        let mut views: Vec<(u32, Vec<wgpu::TextureView>)> = Vec::new();
        let mut samplers: Vec<(u32, Vec<wgpu::Sampler>)> = Vec::new();
        let mut buffers: Vec<(u32, wgpu::Buffer)> = Vec::new();
        let owned = v.owner.and_then(|f| self.resources[f as usize].get(owner as usize));
        for e in &v.entries {
            let VariantEntry::Resource { binding, ty, count } = *e else {
                continue;
            };
            let point = BindingPoint::new(group, binding);
            match ty {
                wgpu::BindingType::Texture { .. } => {
                    let mut list = Vec::new();
                    for el in 0..count {
                        match owned.and_then(|r| r.get(point, el)) {
                            Some(resources::Bound::Texture(t)) => list.push(t.clone()),
                            _ => list.push(
                                self.placeholders.view(&self.device, ty).expect("texture type").clone(),
                            ),
                        }
                    }
                    views.push((binding, list));
                }
                wgpu::BindingType::Sampler(kind) => {
                    let mut list = Vec::new();
                    for el in 0..count {
                        match owned.and_then(|r| r.get(point, el)) {
                            Some(resources::Bound::Sampler(s)) => list.push(s.clone()),
                            _ => list.push(
                                self.placeholders
                                    .sampler(&self.device, kind == wgpu::SamplerBindingType::Comparison)
                                    .clone(),
                            ),
                        }
                    }
                    samplers.push((binding, list));
                }
                _ => match owned.and_then(|r| r.get(point, 0)) {
                    Some(resources::Bound::Buffer(b)) => buffers.push((binding, b.clone())),
                    _ => {
                        let name = self
                            .registry
                            .bindings()
                            .find(|b| b.resource.binding == point)
                            .map_or_else(String::new, |b| b.resource.name.clone());
                        return Err(Error::Unset { name, binding: point });
                    }
                },
            }
        }
        let view_refs: Vec<(u32, Vec<&wgpu::TextureView>)> =
            views.iter().map(|(b, l)| (*b, l.iter().collect())).collect();
        let sampler_refs: Vec<(u32, Vec<&wgpu::Sampler>)> =
            samplers.iter().map(|(b, l)| (*b, l.iter().collect())).collect();
        let mut entries = Vec::with_capacity(v.entries.len());
        for e in &v.entries {
            match *e {
                VariantEntry::Uniform(s) => {
                    let slot = &self.slots[s.index()];
                    let buffer = slot.buffer.as_ref().ok_or(Error::NotFlushed(slot.frequency))?;
                    entries.push(wgpu::BindGroupEntry {
                        binding: slot.binding.binding,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer,
                            offset: 0,
                            size: wgpu::BufferSize::new(slot.gpu_size.next_multiple_of(16) as u64),
                        }),
                    });
                }
                VariantEntry::Resource { binding, ty, count } => {
                    let resource = match ty {
                        wgpu::BindingType::Texture { .. } => {
                            let list =
                                &view_refs.iter().find(|(b, _)| *b == binding).expect("resolved above").1;
                            if count > 1 {
                                wgpu::BindingResource::TextureViewArray(list)
                            } else {
                                wgpu::BindingResource::TextureView(list[0])
                            }
                        }
                        wgpu::BindingType::Sampler(_) => {
                            let list =
                                &sampler_refs.iter().find(|(b, _)| *b == binding).expect("resolved above").1;
                            if count > 1 {
                                wgpu::BindingResource::SamplerArray(list)
                            } else {
                                wgpu::BindingResource::Sampler(list[0])
                            }
                        }
                        _ => buffers
                            .iter()
                            .find(|(b, _)| *b == binding)
                            .expect("resolved above")
                            .1
                            .as_entire_binding(),
                    };
                    entries.push(wgpu::BindGroupEntry { binding, resource });
                }
            }
        }
        let what = || format!("bind group for group {group}");
        scope::scoped(&self.device, what, || {
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("freqbuf group"),
                layout: &v.layout,
                entries: &entries,
            })
        })
    }
}

/// A shader's layouts, created before it is committed to the registry.
struct Prepared {
    groups: Vec<PreparedGroup>,
    pipeline_layout: wgpu::PipelineLayout,
}

/// One group of a prepared shader; `layout` is set when no variant has its entries yet.
#[derive(Default)]
struct PreparedGroup {
    group: u32,
    layout_entries: Vec<wgpu::BindGroupLayoutEntry>,
    entries: Vec<PreEntry>,
    layout: Option<wgpu::BindGroupLayout>,
}

/// A variant entry before the registry has assigned slot ids.
enum PreEntry {
    /// A uniform block at a binding point, with the shader's block size.
    Uniform(BindingPoint, u32),
    Resource {
        binding: u32,
        ty: wgpu::BindingType,
        count: u32,
    },
}

/// Slice equality without a call to `memcmp`, which costs more than the one to
/// four offsets a group has (it was 40% of the binder's time).
#[inline]
fn same(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Marks a frequency the draw gives no instance of.
const NOT_GIVEN: u32 = u32::MAX;
/// Marks an instance handle that was freed.
const FREED: u32 = u32::MAX - 1;
/// Marks an instance created after the last flush.
const NOT_FLUSHED: u32 = u32::MAX - 2;

/// The dense index of an optional handle, or [`NOT_GIVEN`] / [`FREED`] / [`NOT_FLUSHED`].
#[inline]
fn dense<K: slotmap::Key>(key: Option<K>, set: &Instances<K>) -> u32 {
    match key.map(|k| set.get_raw(k)) {
        None => NOT_GIVEN,
        Some(None) => FREED,
        Some(Some(i)) if i & PENDING == 0 => i,
        Some(Some(_)) => NOT_FLUSHED,
    }
}

/// One instance of a manager, borrowed to set values and resources on.
///
/// Every setter checks everything before it writes: on error the instance
/// holds exactly what it held before.
#[derive(Debug)]
pub struct InstanceMut<'a> {
    manager: &'a mut Manager,
    id: InstanceId,
}

impl InstanceMut<'_> {
    /// Sets a scalar, vector or matrix. Writing the value it already holds makes nothing dirty.
    ///
    /// Cost: a compare and copy of `size_of::<T::Gpu>()` bytes.
    #[inline]
    pub fn set<T: Uniform>(&mut self, param: Param, value: &T) -> Result<(), Error> {
        if param.count > 1 {
            return Err(self.param_error(param, ParamErrorKind::NeedsIndex { member: String::new() }));
        }
        self.check_type::<T>(param)?;
        let gpu = value.to_gpu();
        self.write(param, &[bytemuck::bytes_of(&gpu)])
    }

    /// Sets the first `values.len()` elements of a whole-array param.
    pub fn set_array<T: Uniform>(&mut self, param: Param, values: &[T]) -> Result<(), Error> {
        if values.len() > param.count as usize {
            return Err(self.param_error(
                param,
                ParamErrorKind::IndexOutOfRange {
                    member: String::new(),
                    index: values.len() as u32 - 1,
                    count: param.count,
                },
            ));
        }
        self.check_type::<T>(param)?;
        let gpu: SmallVec<[T::Gpu; 8]> = values.iter().map(Uniform::to_gpu).collect();
        let chunks: SmallVec<[&[u8]; 8]> = gpu.iter().map(bytemuck::bytes_of).collect();
        self.write(param, &chunks)
    }

    /// Sets raw bytes: one element (structs, padded matrices), or a whole array
    /// as laid out in the buffer (`count * stride` bytes).
    pub fn set_bytes(&mut self, param: Param, bytes: &[u8]) -> Result<(), Error> {
        if param.count > 1 {
            let expected = (param.count * param.stride) as usize;
            if bytes.len() != expected {
                return Err(
                    self.param_error(param, ParamErrorKind::SizeMismatch { expected, found: bytes.len() })
                );
            }
            let chunks: SmallVec<[&[u8]; 8]> =
                bytes.chunks(param.stride as usize).map(|c| &c[..param.elem_size as usize]).collect();
            return self.write(param, &chunks);
        }
        if bytes.len() != param.elem_size as usize {
            return Err(self.param_error(
                param,
                ParamErrorKind::SizeMismatch { expected: param.elem_size as usize, found: bytes.len() },
            ));
        }
        self.write(param, &[bytes])
    }

    /// Resolves `name` and sets it (a lookup per call; keep the [`Param`] for hot paths).
    pub fn set_by_name<T: Uniform>(&mut self, name: &str, value: &T) -> Result<(), Error> {
        let param = self.resolve(name)?;
        self.set(param, value)
    }

    /// The bytes of a param as the shadow holds them (what the next flush uploads).
    pub fn get_bytes(&self, param: Param) -> Result<Vec<u8>, Error> {
        self.check_param(param)?;
        let index = self.manager.index_of(self.id)?;
        let slot = &self.manager.slots[param.slot.index()];
        let bytes = slot.instance_bytes(index);
        let span = if param.count > 1 { param.count * param.stride } else { param.elem_size };
        let range = param.offset as usize..(param.offset + span) as usize;
        // A whole array's last element may end before its stride does.
        let end = range.end.min(bytes.len());
        Ok(bytes[range.start.min(end)..end].to_vec())
    }

    /// Sets a texture by name (`albedo_tex`, or `GMRTs[2]` for an element of a binding array).
    pub fn set_texture(&mut self, name: &str, view: &wgpu::TextureView) -> Result<(), Error> {
        self.set_resource(name, "texture", resources::Bound::Texture(view.clone()))
    }

    /// Sets a sampler by name.
    pub fn set_sampler(&mut self, name: &str, sampler: &wgpu::Sampler) -> Result<(), Error> {
        self.set_resource(name, "sampler", resources::Bound::Sampler(sampler.clone()))
    }

    /// Sets a storage buffer by name.
    pub fn set_buffer(&mut self, name: &str, buffer: &wgpu::Buffer) -> Result<(), Error> {
        self.set_resource(name, "storage", resources::Bound::Buffer(buffer.clone()))
    }

    fn resolve(&self, name: &str) -> Result<Param, Error> {
        let f = self.id.frequency();
        let (slot, r) = self.manager.registry.resolve(name, Some(f))?;
        Ok(Param::new(slot, f, &r))
    }

    fn param_error(&self, param: Param, kind: ParamErrorKind) -> Error {
        let layout = self.manager.registry.slots().nth(param.slot.index()).map(|(_, l)| l);
        let member = layout
            .and_then(|l| {
                l.members().iter().find(|m| {
                    m.member.offset <= param.offset && param.offset < m.member.offset + m.member.size
                })
            })
            .map_or_else(|| format!("offset {}", param.offset), |m| m.member.name.clone());
        let kind = match kind {
            ParamErrorKind::NeedsIndex { .. } => ParamErrorKind::NeedsIndex { member: member.clone() },
            ParamErrorKind::IndexOutOfRange { index, count, .. } => {
                ParamErrorKind::IndexOutOfRange { member: member.clone(), index, count }
            }
            k => k,
        };
        Error::Param(ParamError { name: member, kind })
    }

    fn check_param(&self, param: Param) -> Result<(), Error> {
        if !self.manager.registry.owns_slot(param.slot) {
            return Err(Error::Foreign("parameter"));
        }
        let wanted = self.id.frequency();
        if param.frequency != wanted {
            return Err(
                self.param_error(param, ParamErrorKind::WrongFrequency { wanted, actual: param.frequency })
            );
        }
        // A param of another manager could point past this slot's block.
        let end = param.offset + param.count.saturating_sub(1) * param.stride + param.elem_size;
        if end > self.manager.slots[param.slot.index()].size {
            return Err(self.param_error(param, ParamErrorKind::Unknown { suggestions: Vec::new() }));
        }
        Ok(())
    }

    #[inline]
    fn check_type<T: Uniform>(&self, param: Param) -> Result<(), Error> {
        if param.value != Some(T::TYPE) || std::mem::size_of::<T::Gpu>() != param.elem_size as usize {
            let expected = param.value.map_or_else(|| "a struct".to_owned(), |v| type_name(&v));
            return Err(self
                .param_error(param, ParamErrorKind::TypeMismatch { expected, found: type_name(&T::TYPE) }));
        }
        Ok(())
    }

    /// Writes elements at the param's offset and stride, after every check passed.
    #[inline]
    fn write(&mut self, param: Param, elements: &[&[u8]]) -> Result<(), Error> {
        self.check_param(param)?;
        let index = self.manager.index_of(self.id)?;
        let slot = &mut self.manager.slots[param.slot.index()];
        for (i, bytes) in elements.iter().enumerate() {
            slot.write(index, param.offset + i as u32 * param.stride, bytes);
        }
        Ok(())
    }

    fn set_resource(&mut self, name: &str, want: &'static str, bound: resources::Bound) -> Result<(), Error> {
        let err = |kind| Error::Param(ParamError { name: name.to_owned(), kind });
        let path = parse_path(name).map_err(err)?;
        if path.len() != 1 {
            return Err(err(ParamErrorKind::Malformed));
        }
        let seg = &path[0];
        let registry = &self.manager.registry;
        let Some(shared) = registry.bindings().find(|b| b.resource.name == seg.name) else {
            if registry.resolve(seg.name, None).is_ok() {
                return Err(err(ParamErrorKind::TypeMismatch {
                    expected: "a uniform value".into(),
                    found: want.into(),
                }));
            }
            let names = registry.bindings().map(|b| b.resource.name.as_str());
            return Err(err(ParamErrorKind::Unknown { suggestions: closest(seg.name, names) }));
        };
        let kind = match shared.resource.kind {
            ResourceKind::Texture { .. } => "texture",
            ResourceKind::Sampler { .. } => "sampler",
            ResourceKind::Storage { .. } => "storage",
            ref k => k.as_str(),
        };
        if kind != want {
            return Err(err(ParamErrorKind::TypeMismatch { expected: kind.into(), found: want.into() }));
        }
        let wanted = self.id.frequency();
        if shared.frequency != wanted {
            return Err(err(ParamErrorKind::WrongFrequency { wanted, actual: shared.frequency }));
        }
        let count = shared.resource.count;
        let element = match seg.index {
            None if count > 1 => {
                return Err(err(ParamErrorKind::NeedsIndex { member: seg.name.to_owned() }));
            }
            None => 0,
            Some(i) if count == 1 => {
                let _ = i;
                return Err(err(ParamErrorKind::NotAnArray { member: seg.name.to_owned() }));
            }
            Some(i) if i >= count => {
                return Err(err(ParamErrorKind::IndexOutOfRange {
                    member: seg.name.to_owned(),
                    index: i,
                    count,
                }));
            }
            Some(i) => i,
        };
        let point = shared.resource.binding;
        let ty = resources::binding_type(&shared.resource.kind, shared.resource.sampled)
            .expect("registered bindings have a type");
        let ty = match ty {
            wgpu::BindingType::Buffer { ty, has_dynamic_offset, .. } => wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset,
                min_binding_size: std::num::NonZeroU64::new(shared.resource.min_size as u64),
            },
            t => t,
        };
        let index = self.manager.index_of(self.id)? as usize;
        // wgpu's own validation judges the resource, on a one-entry bind group,
        // before anything changes; a mismatch would otherwise fail at draw time.
        self.manager.probe(ty, &bound).map_err(|message| {
            err(ParamErrorKind::Incompatible { expected: resources::describe(ty), message })
        })?;
        let table = &mut self.manager.resources[wanted as usize];
        if table.len() <= index {
            table.resize_with(index + 1, InstanceResources::default);
        }
        self.manager.epoch += 1;
        table[index].set(point, element, bound, self.manager.epoch);
        Ok(())
    }
}
