//! The bind group cache: one bind group per (variant, owner instance), built
//! on first draw and rebuilt when its inputs change, plus the one-entry probes
//! that check a resource before an instance takes it.

use std::collections::HashMap;

use crate::binding::group_layouts::{Variant, VariantEntry, VariantId};
use crate::binding::placeholders::Placeholders;
use crate::device::scope;
use crate::errors::{Error, ParamError, ParamErrorKind};
use crate::instance::handles::{Bound, InstanceResources};
use crate::instance::table::Tables;
use crate::reflect::ResourceClass;
use crate::registry::{Registry, SharedBinding};
use crate::slot::array::Addressing;
use crate::slot::plan::BindingPoint;
use crate::slot::shadow::Slot;

/// A built bind group, the resource epoch it was built from, and its serial.
#[derive(Debug)]
pub(crate) struct CachedGroup {
    pub(crate) group: wgpu::BindGroup,
    pub(crate) stamp: u64,
    pub(crate) serial: u64,
}

/// Bind groups by variant and owner index (index 0 when the variant has no owner).
#[derive(Debug, Default)]
pub(crate) struct BindGroups {
    cache: Vec<Vec<Option<CachedGroup>>>,
    placeholders: Placeholders,
    /// One-entry layouts to check resources against, by binding type.
    probes: HashMap<wgpu::BindingType, wgpu::BindGroupLayout>,
}

/// A variant's resources by binding, owned while its bind group is built.
#[derive(Default)]
struct Resolved {
    views: Vec<(u32, Vec<wgpu::TextureView>)>,
    samplers: Vec<(u32, Vec<wgpu::Sampler>)>,
    /// One buffer per element (a binding array of buffers has several).
    buffers: Vec<(u32, Vec<wgpu::Buffer>)>,
    structures: Vec<(u32, wgpu::Tlas)>,
}

/// What building a bind group reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GroupInputs<'a> {
    pub(crate) device: &'a wgpu::Device,
    pub(crate) registry: &'a Registry,
    pub(crate) slots: &'a [Slot],
    /// The owner instance's resources, if it set any.
    pub(crate) owned: Option<&'a InstanceResources>,
    /// The tables slabs index.
    pub(crate) tables: &'a Tables,
}

impl BindGroups {
    /// The cached group of a variant for one owner, if it was built from `stamp`.
    #[inline]
    pub(crate) fn get(&self, vid: VariantId, owner: u32, stamp: u64) -> Option<&CachedGroup> {
        match self.cache.get(vid.0 as usize)?.get(owner as usize) {
            Some(Some(c)) if c.stamp == stamp => Some(c),
            _ => None,
        }
    }

    /// Forgets the groups of `variants` (a slot they bind changed its buffer or block size).
    pub(crate) fn invalidate(&mut self, variants: impl IntoIterator<Item = VariantId>) {
        for v in variants {
            if let Some(c) = self.cache.get_mut(v.0 as usize) {
                c.clear();
            }
        }
    }

    /// Forgets everything made on the old device.
    pub(crate) fn reset(&mut self) {
        *self = Self::default();
    }

    /// Builds the bind group of a variant for one owner, inside error scopes.
    #[cold]
    pub(crate) fn build(
        &mut self,
        vid: VariantId,
        variant: &Variant,
        owner: u32,
        stamp: u64,
        inputs: GroupInputs<'_>,
    ) -> Result<&CachedGroup, Error> {
        let index = variant.group;
        let what = move || format!("bind group for group {index}");
        // The outer scope also covers the placeholders made on first use.
        // Built with the group, never per frame: what a capture shows.
        let label = match variant.owner {
            Some(f) => format!("freqbuf bind group {f}#{owner} @{index}"),
            None => format!("freqbuf bind group @{index}"),
        };
        let group = scope::scoped(inputs.device, what, || self.create(variant, inputs, &label))
            .unwrap_or_else(Err)?;
        // Unique across managers: one binder may serve several.
        let serial = crate::id::Counter::BindGroup.next();
        let cache = {
            if self.cache.len() <= vid.0 as usize {
                self.cache.resize_with(vid.0 as usize + 1, Vec::new);
            }
            &mut self.cache[vid.0 as usize]
        };
        if cache.len() <= owner as usize {
            cache.resize_with(owner as usize + 1, || None);
        }
        Ok(cache[owner as usize].insert(CachedGroup { group, stamp, serial }))
    }

    /// Builds a variant's bind group from the owner's resources, placeholders
    /// where it set none, and the slots' buffers.
    fn create(
        &mut self,
        v: &Variant,
        inputs: GroupInputs<'_>,
        label: &str,
    ) -> Result<wgpu::BindGroup, Error> {
        // Resolve every resource first (placeholders need &mut), then borrow for the entries.
        let resolved = self.resolve(v, &inputs)?;
        let views: Vec<(u32, Vec<&wgpu::TextureView>)> =
            resolved.views.iter().map(|(b, l)| (*b, l.iter().collect())).collect();
        let samplers: Vec<(u32, Vec<&wgpu::Sampler>)> =
            resolved.samplers.iter().map(|(b, l)| (*b, l.iter().collect())).collect();
        let buffers: Vec<(u32, Vec<wgpu::BufferBinding<'_>>)> = resolved
            .buffers
            .iter()
            .map(|(b, l)| (*b, l.iter().map(wgpu::Buffer::as_entire_buffer_binding).collect()))
            .collect();
        fn find<T>(list: &[(u32, T)], binding: u32) -> usize {
            list.iter().position(|(b, _)| *b == binding).expect("resolved above")
        }
        let mut entries = Vec::with_capacity(v.entries.len());
        for e in &v.entries {
            let (binding, resource) = match *e {
                VariantEntry::Uniform(s) | VariantEntry::Array(s) => slot_resource(&inputs.slots[s.index()])?,
                VariantEntry::Resource { binding, ty, count, .. } => {
                    let resource = match ty {
                        wgpu::BindingType::Texture { .. } | wgpu::BindingType::StorageTexture { .. } => {
                            let list = &views[find(&views, binding)].1;
                            match count {
                                1 => wgpu::BindingResource::TextureView(list[0]),
                                _ => wgpu::BindingResource::TextureViewArray(list),
                            }
                        }
                        wgpu::BindingType::Sampler(_) => {
                            let list = &samplers[find(&samplers, binding)].1;
                            match count {
                                1 => wgpu::BindingResource::Sampler(list[0]),
                                _ => wgpu::BindingResource::SamplerArray(list),
                            }
                        }
                        wgpu::BindingType::AccelerationStructure { .. } => {
                            wgpu::BindingResource::AccelerationStructure(
                                &resolved.structures[find(&resolved.structures, binding)].1,
                            )
                        }
                        _ => {
                            let list = &buffers[find(&buffers, binding)].1;
                            match count {
                                1 => wgpu::BindingResource::Buffer(list[0].clone()),
                                _ => wgpu::BindingResource::BufferArray(list),
                            }
                        }
                    };
                    (binding, resource)
                }
            };
            entries.push(wgpu::BindGroupEntry { binding, resource });
        }
        Ok(inputs.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &v.layout,
            entries: &entries,
        }))
    }

    /// The textures, samplers and buffers of a variant's resource entries:
    /// the owner's, or placeholders where it set no texture or sampler. An
    /// unset buffer is [`Error::Unset`]; a resource that fits another of the
    /// types declared at its binding, but not this one, is
    /// [`ParamErrorKind::Incompatible`].
    fn resolve(&mut self, v: &Variant, inputs: &GroupInputs<'_>) -> Result<Resolved, Error> {
        let GroupInputs { device, registry, owned, tables, .. } = *inputs;
        let mut out = Resolved::default();
        for e in &v.entries {
            let VariantEntry::Resource { binding, ty, count, table } = *e else {
                continue;
            };
            let point = BindingPoint::new(v.group, binding);
            let class = ResourceClass::of_type(&ty);
            let set = |el| match &table {
                Some(key) => tables.get(key, el),
                None => owned.and_then(|r| r.get(point, el, class)),
            };
            // The binding of this class here (per-family ones share the point).
            let at = |b: &&SharedBinding| b.resource.binding == point && b.resource.kind.class() == class;
            // Where permutations declare other types here, the instance's
            // resource may fit another pipeline than this one: say so, typed.
            let shared = registry.bindings().filter(at).find(|b| !b.alternates.is_empty());
            if let Some(shared) = shared {
                for el in 0..count {
                    let Some(bound) = set(el) else { continue };
                    self.probe(device, ty, bound).map_err(|message| {
                        let kind = ParamErrorKind::Incompatible { expected: describe(ty), message };
                        Error::Param(ParamError { name: shared.resource.name.clone(), kind })
                    })?;
                }
            }
            match ty {
                wgpu::BindingType::Texture { .. } | wgpu::BindingType::StorageTexture { .. } => {
                    let list = (0..count)
                        .map(|el| match set(el) {
                            Some(Bound::Texture(t)) => t.clone(),
                            _ => self.placeholders.view(device, ty).expect("a texture type").clone(),
                        })
                        .collect();
                    out.views.push((binding, list));
                }
                wgpu::BindingType::Sampler(kind) => {
                    let comparison = kind == wgpu::SamplerBindingType::Comparison;
                    let list = (0..count)
                        .map(|el| match set(el) {
                            Some(Bound::Sampler(s)) => s.clone(),
                            _ => self.placeholders.sampler(device, comparison).clone(),
                        })
                        .collect();
                    out.samplers.push((binding, list));
                }
                _ => {
                    // Looked up only where needed: not on the path of a set buffer.
                    let shared = || registry.bindings().find(at);
                    match set(0) {
                        Some(Bound::AccelerationStructure(t)) => out.structures.push((binding, t.clone())),
                        Some(Bound::Buffer(b)) if count == 1 => out.buffers.push((binding, vec![b.clone()])),
                        // A buffer array's unset elements read a placeholder, as a texture array's do.
                        _ if count > 1 => {
                            let min_size = shared().map_or(0, |b| b.resource.min_size);
                            let list = (0..count)
                                .map(|el| match set(el) {
                                    Some(Bound::Buffer(b)) => b.clone(),
                                    _ => self.placeholders.buffer(device, min_size).clone(),
                                })
                                .collect();
                            out.buffers.push((binding, list));
                        }
                        _ => {
                            let name = shared().map_or_else(String::new, |b| b.resource.name.clone());
                            return Err(Error::Unset { name, binding: point });
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// Checks that `bound` fits a binding of type `ty` by building a one-entry
    /// bind group inside error scopes. Returns wgpu's complaint, if any.
    ///
    /// Cost: one bind group creation (and a layout the first time per type).
    pub(crate) fn probe(
        &mut self,
        device: &wgpu::Device,
        ty: wgpu::BindingType,
        bound: &Bound,
    ) -> Result<(), String> {
        let text = |e: Error| match e {
            Error::Wgpu { source, .. } => source.innermost().to_owned(),
            e => e.to_string(),
        };
        let layout = match self.probes.entry(ty) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let visibility = match ty {
                    wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: false },
                        ..
                    }
                    | wgpu::BindingType::StorageTexture { .. } => wgpu::ShaderStages::COMPUTE,
                    _ => wgpu::ShaderStages::FRAGMENT,
                };
                let entry = wgpu::BindGroupLayoutEntry { binding: 0, visibility, ty, count: None };
                let layout = scope::scoped(
                    device,
                    || "resource check layout".into(),
                    || {
                        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                            label: Some("freqbuf check"),
                            entries: &[entry],
                        })
                    },
                )
                .map_err(text)?;
                e.insert(layout)
            }
        };
        let resource = match bound {
            Bound::Texture(v) => wgpu::BindingResource::TextureView(v),
            Bound::Sampler(s) => wgpu::BindingResource::Sampler(s),
            Bound::Buffer(b) => b.as_entire_binding(),
            Bound::AccelerationStructure(t) => wgpu::BindingResource::AccelerationStructure(t),
        };
        scope::scoped(device, String::new, || {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("freqbuf check"),
                layout,
                entries: &[wgpu::BindGroupEntry { binding: 0, resource }],
            })
        })
        .map(drop)
        .map_err(text)
    }
}

/// A slot's buffer as its bind groups expose it: the block size as of the
/// last flush, one batch of an array slot, or a storage array whole.
fn slot_resource(slot: &Slot) -> Result<(u32, wgpu::BindingResource<'_>), Error> {
    let buffer = slot.gpu_buffer().ok_or(Error::NotFlushed(slot.frequency()))?;
    let size = match slot.addressing() {
        Addressing::Dynamic => slot.gpu_size().next_multiple_of(16) as u64,
        Addressing::Batched { per } => per as u64 * slot.gpu_stride() as u64,
        Addressing::Storage => slot.gpu_capacity() as u64 * slot.gpu_stride() as u64,
    };
    let size = wgpu::BufferSize::new(size);
    Ok((
        slot.binding().binding,
        wgpu::BindingResource::Buffer(wgpu::BufferBinding { buffer, offset: 0, size }),
    ))
}

/// A binding type in words, for errors: `a D2 texture view of a filterable float format`.
pub(crate) fn describe(ty: wgpu::BindingType) -> String {
    match ty {
        wgpu::BindingType::Texture { sample_type, view_dimension, multisampled } => {
            let sample = match sample_type {
                wgpu::TextureSampleType::Float { filterable: true } => "filterable float",
                wgpu::TextureSampleType::Float { filterable: false } => "unfilterable float",
                wgpu::TextureSampleType::Depth => "depth",
                wgpu::TextureSampleType::Sint => "sint",
                wgpu::TextureSampleType::Uint => "uint",
            };
            let ms = if multisampled { ", multisampled" } else { "" };
            let article = if sample.starts_with('u') { "an" } else { "a" };
            format!("a {view_dimension:?} texture view of {article} {sample} format{ms}")
        }
        wgpu::BindingType::Sampler(kind) => format!("a {kind:?} sampler").to_lowercase(),
        wgpu::BindingType::StorageTexture { access, format, view_dimension } => {
            format!("a {view_dimension:?} storage texture view of format {format:?} ({access:?})")
        }
        wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            min_binding_size,
            ..
        } => {
            let access = if read_only { "read-only" } else { "read-write" };
            let min = min_binding_size.map_or(String::new(), |m| format!(" of at least {m} bytes"));
            format!("a {access} storage buffer{min}")
        }
        other => format!("{other:?}"),
    }
}
