//! Bind group layouts generated from reflection, interned as *variants*.
//!
//! Each shader's bind group for group `g` has the layout of exactly the
//! bindings it uses in `g`. Shaders that use the same bindings share one
//! variant, so their bind groups are interchangeable and stay bound across
//! pipeline switches.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use smallvec::SmallVec;

use crate::device::limits::{self, Checked, DeviceCaps};
use crate::device::scope;
use crate::errors::Error;
use crate::id::{ShaderId, SlotId};
use crate::instance::table::TableKey;
use crate::reflect::ResourceClass;
use crate::reflect::ShaderReflection;
use crate::registry::Registry;
use crate::slot::plan::{BindingPoint, Frequency};
use crate::slot::shadow::Slot;

/// Index of a bind group layout variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct VariantId(pub(crate) u32);

/// One entry of a variant, in binding order.
#[derive(Clone, Debug)]
pub(crate) enum VariantEntry {
    /// A shared uniform slot (or a batched array slot), bound with a dynamic offset.
    Uniform(SlotId),
    /// An array slot in a storage buffer, bound whole.
    Array(SlotId),
    /// A texture, sampler or storage buffer owned by the group's instance,
    /// or a table (`table`: the family's, filled through a slab).
    Resource { binding: u32, ty: wgpu::BindingType, count: u32, table: Option<TableKey> },
}

/// A bind group layout shared by every shader that uses the same bindings in one group.
#[derive(Debug)]
pub(crate) struct Variant {
    pub(crate) group: u32,
    pub(crate) layout: wgpu::BindGroupLayout,
    pub(crate) entries: Vec<VariantEntry>,
    /// The uniform slots, in binding order (the order of dynamic offsets).
    pub(crate) uniforms: SmallVec<[SlotId; 4]>,
    /// The array slots in storage buffers: no offset, the draw's instance index.
    pub(crate) arrays: SmallVec<[SlotId; 2]>,
    /// A bit per entry of `arrays` that is a slab (found through another
    /// array's member, not the instance index): fixed at registration, so
    /// the bind path looks nothing up for the others.
    pub(crate) slabs: u32,
    /// The frequency whose instances own the non-uniform resources, if any.
    pub(crate) owner: Option<Frequency>,
    /// It binds a table: its groups are built from one value of the tables' epoch.
    pub(crate) tables: bool,
}

/// What a pass needs from a shader: its groups' variants and its pipeline layout.
#[derive(Debug)]
pub(crate) struct ShaderBinding {
    pub(crate) groups: SmallVec<[(u32, VariantId); 4]>,
    /// Every slot's GPU copy is known to hold the shader's blocks (checked once,
    /// on a cold path, against `needs`).
    /// Atomic so that binders with shared access on several threads can set it.
    pub(crate) ready: AtomicBool,
    pub(crate) pipeline_layout: wgpu::PipelineLayout,
    /// The module to create instead of the registered one: array slots
    /// rewritten as uniform batches for a device without vertex storage.
    pub(crate) batched: Option<naga::Module>,
    /// The shader's own block size per uniform slot, in the order of its
    /// groups' variants' `uniforms`: a draw waits for the flush that makes the
    /// slot's GPU copy at least this large.
    needs: SmallVec<[u32; 8]>,
}

/// Every variant and every registered shader's groups, by [`ShaderId`] index.
#[derive(Debug, Default)]
pub(crate) struct Layouts {
    pub(crate) variants: Vec<Variant>,
    /// A variant with each (group, layout entries), whose layout others reuse.
    index: HashMap<(u32, Vec<wgpu::BindGroupLayoutEntry>), VariantId>,
    /// Variants by layout entries and the slots they bind: two families with
    /// one layout at a group have one layout but two variants (two buffers).
    by_slots: HashMap<(u32, Vec<wgpu::BindGroupLayoutEntry>, Vec<SlotId>), VariantId>,
    pub(crate) shaders: Vec<ShaderBinding>,
}

/// A shader's layouts, created before it is committed to the registry.
#[derive(Debug)]
pub(crate) struct Prepared {
    groups: Vec<PreparedGroup>,
    pipeline_layout: wgpu::PipelineLayout,
    batched: Option<naga::Module>,
}

/// One group of a prepared shader; `layout` is set when no variant has its entries yet.
#[derive(Debug, Default)]
struct PreparedGroup {
    group: u32,
    layout_entries: Vec<wgpu::BindGroupLayoutEntry>,
    entries: Vec<PreEntry>,
    layout: Option<wgpu::BindGroupLayout>,
}

/// A variant entry before the registry has assigned slot ids.
#[derive(Debug)]
enum PreEntry {
    /// A uniform block at a binding point, with the shader's block size.
    Uniform(BindingPoint, u32),
    /// An array slot in a storage buffer.
    Array(BindingPoint),
    Resource {
        binding: u32,
        ty: wgpu::BindingType,
        count: u32,
    },
}

/// Layouts rebuilt on a new device, to install once all of them exist.
#[derive(Debug)]
pub(crate) struct Recreated {
    layouts: Vec<wgpu::BindGroupLayout>,
    pipeline_layouts: Vec<wgpu::PipelineLayout>,
}

impl Layouts {
    /// The shader's binding, if `shader` is registered.
    #[inline]
    pub(crate) fn shader(&self, shader: ShaderId) -> Option<&ShaderBinding> {
        self.shaders.get(shader.index())
    }

    /// The bind group layouts of a shader by group index, empty groups included.
    pub(crate) fn group_layouts<'a>(
        &'a self,
        shader: &ShaderBinding,
    ) -> Vec<(u32, &'a wgpu::BindGroupLayout)> {
        shader.groups.iter().map(|&(g, v)| (g, &self.variants[v.0 as usize].layout)).collect()
    }

    /// The group of each variant whose uniforms include `slot`.
    pub(crate) fn users_of(&self, slot: SlotId) -> impl Iterator<Item = VariantId> + '_ {
        self.variants
            .iter()
            .enumerate()
            .filter(move |(_, v)| v.uniforms.contains(&slot) || v.arrays.contains(&slot))
            .map(|(i, _)| VariantId(i as u32))
    }

    /// Bind group layouts and the pipeline layout for a shader not registered
    /// yet: they depend only on its own bindings, so they are created (inside
    /// error scopes) before anything is committed. `checked` holds one
    /// visibility per binding without a dynamic offset, from `limits::check`.
    pub(crate) fn prepare(
        &self,
        device: &wgpu::Device,
        shader: &ShaderReflection,
        caps: &DeviceCaps,
        checked: Checked,
    ) -> Result<Prepared, Error> {
        let mut groups: Vec<PreparedGroup> = Vec::new();
        let mut others = checked.visibility.iter();
        for r in shader.used_resources() {
            let BindingPoint { group, binding } = r.binding;
            if groups.last().is_none_or(|g| g.group != group) {
                groups.push(PreparedGroup { group, ..Default::default() });
            }
            let g = groups.last_mut().expect("pushed above");
            if caps.dynamic(r) {
                g.layout_entries.push(uniform_entry(binding));
                g.entries.push(PreEntry::Uniform(r.binding, r.block.as_ref().map_or(0, |b| b.size)));
            } else if r.is_array_slot() {
                let visibility = *others.next().expect("a visibility per binding without an offset");
                let ty = r.binding_type().expect("a storage buffer");
                g.layout_entries.push(wgpu::BindGroupLayoutEntry { binding, visibility, ty, count: None });
                g.entries.push(PreEntry::Array(r.binding));
            } else {
                let ty = r.binding_type().expect("the registry refuses unsupported kinds");
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
        scope::scoped(device, what, || {
            for g in &mut groups {
                let key = (g.group, std::mem::take(&mut g.layout_entries));
                if !self.index.contains_key(&key) {
                    let label = group_label(key.0, &key.1);
                    g.layout = Some(device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                        label: Some(&label),
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
                    &self.variants[self.index[&(g.group, g.layout_entries.clone())].0 as usize].layout
                }))
            })
            .collect::<Vec<_>>();
        let what = || format!("{}: pipeline layout", shader.name());
        let pipeline_layout = scope::scoped(device, what, || {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(shader.name()),
                bind_group_layouts: &layouts,
                immediate_size: shader.immediate_size(),
            })
        })?;
        Ok(Prepared { groups, pipeline_layout, batched: checked.batched })
    }

    /// Turns prepared layouts into variants once the registry has the shader's slots.
    pub(crate) fn commit(&mut self, prepared: Prepared, registry: &Registry, shader: ShaderId) {
        let mut groups: SmallVec<[(u32, VariantId); 4]> = SmallVec::new();
        let mut needs = SmallVec::new();
        for g in prepared.groups {
            let entries = g
                .entries
                .iter()
                .map(|e| match *e {
                    PreEntry::Uniform(point, need) => {
                        needs.push(need);
                        VariantEntry::Uniform(
                            registry
                                .slot_of(shader, point)
                                .expect("the registry made a slot for each used block"),
                        )
                    }
                    PreEntry::Array(point) => VariantEntry::Array(
                        registry
                            .slot_of(shader, point)
                            .expect("the registry made a slot for each used block"),
                    ),
                    PreEntry::Resource { binding, ty, count } => {
                        let point = BindingPoint::new(g.group, binding);
                        let table = registry.table_of(shader, point, ResourceClass::of_type(&ty));
                        VariantEntry::Resource { binding, ty, count, table }
                    }
                })
                .collect::<Vec<_>>();
            let slots = entries
                .iter()
                .filter_map(|e| match e {
                    VariantEntry::Uniform(s) | VariantEntry::Array(s) => Some(*s),
                    VariantEntry::Resource { .. } => None,
                })
                .collect::<Vec<_>>();
            let key = (g.group, g.layout_entries, slots);
            let vid = match (self.by_slots.get(&key), g.layout) {
                (Some(&v), _) => v,
                (None, layout) => {
                    let v = VariantId(self.variants.len() as u32);
                    let layout_key = (key.0, key.1.clone());
                    let layout = match (layout, self.index.get(&layout_key)) {
                        (Some(new), _) => new,
                        (None, Some(v)) => self.variants[v.0 as usize].layout.clone(),
                        (None, None) => unreachable!("prepare made a layout for every new key"),
                    };
                    let variant = Variant::new(registry, g.group, layout, entries);
                    self.variants.push(variant);
                    self.index.entry(layout_key).or_insert(v);
                    self.by_slots.insert(key, v);
                    v
                }
            };
            groups.push((g.group, vid));
        }
        self.shaders.push(ShaderBinding {
            groups,
            ready: AtomicBool::new(false),
            pipeline_layout: prepared.pipeline_layout,
            batched: prepared.batched,
            needs,
        });
    }

    /// Whether every slot's GPU copy holds the shader's whole block (a register
    /// after the last flush may have grown it); errs when a group in `mask`
    /// would read past it. Once true it stays true: GPU block sizes only grow,
    /// until `recreate` clears the flags.
    #[cold]
    pub(crate) fn check_ready(&self, si: usize, mask: u32, slots: &[Slot]) -> Result<(), Error> {
        let shader = &self.shaders[si];
        let (mut k, mut all) = (0, true);
        for &(group, vid) in &shader.groups {
            for &s in &self.variants[vid.0 as usize].uniforms {
                let slot = &slots[s.index()];
                if shader.needs[k] > slot.gpu_size() {
                    if mask & (1 << group) != 0 {
                        return Err(Error::NotFlushed(slot.frequency()));
                    }
                    all = false;
                }
                k += 1;
            }
        }
        self.shaders[si].ready.store(all, Ordering::Relaxed);
        Ok(())
    }

    /// Every layout again on `device`, created before anything changes.
    pub(crate) fn recreate(&self, device: &wgpu::Device, registry: &Registry) -> Result<Recreated, Error> {
        // One entry per variant, in variant order.
        let mut keys: Vec<_> = self.by_slots.iter().map(|(k, &v)| (v, &k.1)).collect();
        keys.sort_by_key(|(v, _)| v.0);
        let layouts = scope::scoped(
            device,
            || "bind group layouts on the new device".into(),
            || {
                keys.iter()
                    .map(|(v, entries)| {
                        let label = group_label(self.variants[v.0 as usize].group, entries);
                        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                            label: Some(&label),
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
                registry
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
                            immediate_size: reflection.immediate_size(),
                        })
                    })
                    .collect::<Vec<_>>()
            },
        )?;
        Ok(Recreated { layouts, pipeline_layouts })
    }

    /// Switches to layouts from [`Layouts::recreate`]; every shader is checked again.
    pub(crate) fn install(&mut self, new: Recreated) {
        for (variant, layout) in self.variants.iter_mut().zip(new.layouts) {
            variant.layout = layout;
        }
        for (binding, layout) in self.shaders.iter_mut().zip(new.pipeline_layouts) {
            binding.pipeline_layout = layout;
            binding.ready.store(false, Ordering::Relaxed);
        }
    }
}

/// Layout entry for a uniform slot: dynamic offset, size checked at draw time.
fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: limits::all_stages(),
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A bind group layout's label: its group, and whether it is a gap's empty
/// layout (which a pipeline binds too: the bind call nothing else explains).
fn group_label(group: u32, entries: &[wgpu::BindGroupLayoutEntry]) -> String {
    match entries.len() {
        0 => format!("freqbuf group {group} (empty: fills a gap before a later group)"),
        n => format!("freqbuf group {group} ({n} bindings)"),
    }
}

impl Variant {
    /// A new variant of `group` from its entries: which are uniform slots,
    /// array slots and slabs, which frequency owns its resources, and
    /// whether it holds tables.
    fn new(
        registry: &Registry,
        group: u32,
        layout: wgpu::BindGroupLayout,
        entries: Vec<VariantEntry>,
    ) -> Self {
        let uniforms = entries
            .iter()
            .filter_map(|e| match e {
                VariantEntry::Uniform(s) => Some(*s),
                _ => None,
            })
            .collect();
        let arrays: SmallVec<[SlotId; 2]> = entries
            .iter()
            .filter_map(|e| match e {
                VariantEntry::Array(s) => Some(*s),
                _ => None,
            })
            .collect();
        let owner = entries.iter().find_map(|e| match e {
            VariantEntry::Resource { binding, table: None, .. } => {
                registry.plan().frequency(BindingPoint::new(group, *binding))
            }
            _ => None,
        });
        let tables = entries.iter().any(|e| matches!(e, VariantEntry::Resource { table: Some(_), .. }));
        let slabs = arrays
            .iter()
            .enumerate()
            .filter(|&(_, &s)| registry[s].slab().is_some())
            .fold(0u32, |m, (k, _)| m | 1 << k);
        Variant { group, layout, entries, uniforms, arrays, slabs, owner, tables }
    }
}
