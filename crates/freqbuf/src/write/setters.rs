//! Setting values and resources on one instance: every setter checks
//! everything before it writes, so on error the instance holds exactly what it
//! held before.

use smallvec::SmallVec;

use crate::binding::{BindGroups, describe};
use crate::errors::{Error, ParamError, ParamErrorKind};
use crate::instance::family::FamilyId;
use crate::instance::handles::{Bound, InstanceId, InstanceTable};
use crate::registry::Registry;
use crate::registry::TableMember;
use crate::slot::shadow::Slot;
use crate::write::param::{Param, Uniform, type_name};

/// One instance of a manager, borrowed to set values and resources on.
///
/// Every setter checks everything before it writes: on error the instance
/// holds exactly what it held before.
#[derive(Debug)]
pub struct InstanceMut<'a> {
    pub(crate) device: &'a wgpu::Device,
    pub(crate) registry: &'a Registry,
    pub(crate) slots: &'a mut [Slot],
    pub(crate) instances: &'a mut InstanceTable,
    /// For the probe that checks a resource before the instance takes it.
    pub(crate) groups: &'a mut BindGroups,
    pub(crate) id: InstanceId,
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

    /// Sets every field of a typed block ([`crate::Manager::param_struct`]):
    /// the fields were checked against the block when it resolved, so this
    /// writes each at its offset with no lookup. Members the struct lacks
    /// keep their values; an unchanged field makes nothing dirty.
    ///
    /// Cost: one compare and copy per field.
    pub fn set_struct<T: crate::ShaderStruct>(
        &mut self,
        param: crate::StructParam<T>,
        value: &T,
    ) -> Result<(), Error> {
        let block = param.block;
        self.check_param(block)?;
        let index = self.instances.index(self.id)?;
        self.check_family(block, index)?;
        let mut scratch: SmallVec<[u8; 256]> = SmallVec::from_elem(0, block.elem_size as usize);
        self.slots[block.slot.index()].write_struct(index, value, &mut scratch);
        Ok(())
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
        let index = self.instances.index(self.id)?;
        self.check_family(param, index)?;
        let slot = &self.slots[param.slot.index()];
        let bytes = slot.instance_bytes(index);
        let span = if param.count > 1 { param.count * param.stride } else { param.elem_size };
        let range = param.offset as usize..(param.offset + span) as usize;
        // A whole array's last element may end before its stride does.
        let end = range.end.min(bytes.len());
        Ok(bytes[range.start.min(end)..end].to_vec())
    }

    /// Sets a texture by name (`albedo_tex`, or `GMRTs[2]` for an element of a binding array).
    ///
    /// On a slab material, `name` may be a `u32` member of the slab that
    /// indexes a table (`base_color_texture` in Bevy's
    /// `material_indices[slot].base_color_texture`): the texture takes an
    /// element of the family's binding array (the one this member had, or a
    /// free one) and the member holds it. Cost then: a probe bind group, and
    /// the family's bind group is rebuilt at the next draw.
    pub fn set_texture(&mut self, name: &str, view: &wgpu::TextureView) -> Result<(), Error> {
        self.set_resource(name, Bound::Texture(view.clone()))
    }

    /// Sets a sampler by name.
    pub fn set_sampler(&mut self, name: &str, sampler: &wgpu::Sampler) -> Result<(), Error> {
        self.set_resource(name, Bound::Sampler(sampler.clone()))
    }

    /// Sets a storage buffer by name.
    pub fn set_buffer(&mut self, name: &str, buffer: &wgpu::Buffer) -> Result<(), Error> {
        self.set_resource(name, Bound::Buffer(buffer.clone()))
    }

    /// Sets an acceleration structure (`var tlas: acceleration_structure`) by
    /// name. Cost: a clone of `tlas`, whose instance list is copied, and a
    /// probe bind group; the group is rebuilt at the next draw. Rebuilding
    /// `tlas` in place needs no new call: bind groups refer to it, not to
    /// its contents.
    pub fn set_acceleration_structure(&mut self, name: &str, tlas: &wgpu::Tlas) -> Result<(), Error> {
        self.set_resource(name, Bound::AccelerationStructure(tlas.clone()))
    }

    fn resolve(&self, name: &str) -> Result<Param, Error> {
        let family = self.own_family()?;
        Ok(self.registry.resolve_scoped(name, Some(self.id.frequency()), family.into())?)
    }

    /// The family this instance was made in, if any.
    fn own_family(&self) -> Result<Option<FamilyId>, Error> {
        let index = self.instances.index(self.id)?;
        Ok(self.instances.family(self.id.frequency(), index))
    }

    fn param_error(&self, param: Param, kind: ParamErrorKind) -> Error {
        param_error(self.registry, param, kind)
    }

    fn check_param(&self, param: Param) -> Result<(), Error> {
        check_param(self.registry, self.slots, self.id.frequency(), param)
    }

    /// An instance made in a family sets only its family's (and shared) slots.
    #[inline]
    fn check_family(&self, param: Param, index: u32) -> Result<(), Error> {
        let member = self.registry[param.slot].family_id();
        check_family(self.registry, param, member, self.instances.family(self.id.frequency(), index))
    }

    #[inline]
    fn check_type<T: Uniform>(&self, param: Param) -> Result<(), Error> {
        check_type::<T>(self.registry, param)
    }

    /// Writes elements at the param's offset and stride, after every check passed.
    #[inline]
    fn write(&mut self, param: Param, elements: &[&[u8]]) -> Result<(), Error> {
        self.check_param(param)?;
        let index = self.instances.index(self.id)?;
        self.check_family(param, index)?;
        let slot = &mut self.slots[param.slot.index()];
        for (i, bytes) in elements.iter().enumerate() {
            slot.write(index, param.offset + i as u32 * param.stride, bytes);
        }
        Ok(())
    }

    fn set_resource(&mut self, name: &str, bound: Bound) -> Result<(), Error> {
        let f = self.id.frequency();
        let index = self.instances.index(self.id)?;
        let family = self.instances.family(f, index);
        if let Some(member) = self.registry.table_member(name, f, family.into(), bound.class()) {
            return self.place_in_table(name, member, index, bound);
        }
        let (shared, element) = self.registry.resolve_binding(name, f, family.into(), bound.class())?;
        let resource = &shared.resource;
        let ty = match resource.binding_type().expect("registered bindings have a type") {
            wgpu::BindingType::Buffer { ty, has_dynamic_offset, .. } => wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset,
                min_binding_size: std::num::NonZeroU64::new(resource.min_size as u64),
            },
            t => t,
        };
        // wgpu's own validation judges the resource, on a one-entry bind group,
        // before anything changes; a mismatch would otherwise fail at draw time.
        // Where permutations declare other textures or samplers here, one of
        // them must fit (the bind group of each pipeline checks its own when
        // built); a storage buffer read in one and written in another must
        // allow both, the widest use.
        let buffer = matches!(ty, wgpu::BindingType::Buffer { .. });
        let first = self.groups.probe(self.device, ty, &bound);
        let mut alternates = shared.alternates.iter().map(|&alt| self.groups.probe(self.device, alt, &bound));
        let failed = if buffer {
            first.and_then(|()| alternates.collect::<Result<(), String>>()).err()
        } else {
            first.err().filter(|_| !alternates.any(|r| r.is_ok()))
        };
        if let Some(message) = failed {
            let expected = std::iter::once(ty).chain(shared.alternates.iter().copied()).map(describe);
            let joined = expected.collect::<Vec<_>>().join(if buffer { " and " } else { " or " });
            let kind = ParamErrorKind::Incompatible { expected: joined, message };
            return Err(ParamError { name: name.to_owned(), kind }.into());
        }
        self.instances.set_resource(f, index, resource.binding, element, bound);
        Ok(())
    }
}

impl InstanceMut<'_> {
    /// `bound` into a table through slab member `member` of instance `index`.
    fn place_in_table(
        &mut self,
        name: &str,
        member: &TableMember,
        index: u32,
        bound: Bound,
    ) -> Result<(), Error> {
        let (point, _, _) = member.table;
        let shared = self
            .registry
            .bindings()
            .find(|b| (b.resource.binding, b.family, b.resource.kind.class()) == member.table);
        let shared = shared.expect("a table member names a registered table");
        let ty = shared.resource.binding_type().expect("registered bindings have a type");
        if let Err(message) = self.groups.probe(self.device, ty, &bound) {
            let kind = ParamErrorKind::Incompatible { expected: describe(ty), message };
            return Err(ParamError { name: name.to_owned(), kind }.into());
        }
        let at = (self.id.frequency(), index, member.offset);
        // An unsized table took its length from the device (`DeviceCaps::table_len`).
        let limits = self.device.limits();
        let limit = match member.table.2 {
            crate::reflect::ResourceClass::Sampler => (
                "max_binding_array_sampler_elements_per_shader_stage",
                limits.max_binding_array_sampler_elements_per_shader_stage,
            ),
            _ => (
                "max_binding_array_elements_per_shader_stage",
                limits.max_binding_array_elements_per_shader_stage,
            ),
        };
        let from_device = member.len == (limit.1 / 16).min(crate::device::limits::DeviceCaps::MAX_TABLE_LEN);
        let element =
            self.instances.tables_mut().place(member.table, member.len, at, bound).map_err(|len| {
                Error::TableFull {
                    table: shared.resource.name.clone(),
                    binding: point,
                    member: name.to_owned(),
                    len,
                    sized_by: if from_device { limit.0 } else { "its declared length" },
                }
            })?;
        self.slots[member.slab].write(index, member.offset, &element.to_le_bytes());
        Ok(())
    }
}

/// A param error that names the member at the param's offset.
pub(crate) fn param_error(registry: &Registry, param: Param, kind: ParamErrorKind) -> Error {
    let layout = registry.slots().nth(param.slot.index()).map(|(_, l)| l);
    let member = layout
        .and_then(|l| {
            l.members()
                .iter()
                .find(|m| m.member.offset <= param.offset && param.offset < m.member.offset + m.member.size)
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

/// The param belongs to this registry, to frequency `wanted`, and lies inside its slot's block.
pub(crate) fn check_param(
    registry: &Registry,
    slots: &[Slot],
    wanted: crate::Frequency,
    param: Param,
) -> Result<(), Error> {
    if !registry.owns_slot(param.slot) {
        return Err(Error::Foreign("parameter"));
    }
    if param.frequency != wanted {
        let kind = ParamErrorKind::WrongFrequency { wanted, actual: param.frequency };
        return Err(param_error(registry, param, kind));
    }
    // A param of another manager could point past this slot's block.
    let end = param.offset + param.count.saturating_sub(1) * param.stride + param.elem_size;
    let slot = &slots[param.slot.index()];
    if end > slot.size() {
        return Err(param_error(registry, param, ParamErrorKind::Unknown { suggestions: Vec::new() }));
    }
    if slot.caller_owned() {
        return Err(param_error(registry, param, ParamErrorKind::CallerOwned));
    }
    Ok(())
}

/// A member of family `member`'s slot may be set on an instance of that
/// family or of none (`own`); `None` for `member` is a shared slot.
#[inline]
pub(crate) fn check_family(
    registry: &Registry,
    param: Param,
    member: Option<FamilyId>,
    own: Option<FamilyId>,
) -> Result<(), Error> {
    let Some((member, own)) = member.zip(own) else {
        return Ok(());
    };
    if member == own {
        return Ok(());
    }
    let member_family = registry.family_name(member).to_owned();
    let instance_family = registry.family_name(own).to_owned();
    Err(param_error(registry, param, ParamErrorKind::OtherFamily { member_family, instance_family }))
}

/// `T` is the member's value type and size.
#[inline]
pub(crate) fn check_type<T: Uniform>(registry: &Registry, param: Param) -> Result<(), Error> {
    if param.value != Some(T::TYPE) || std::mem::size_of::<T::Gpu>() != param.elem_size as usize {
        let expected = param.value.map_or_else(|| "a struct".to_owned(), |v| type_name(&v));
        let kind = ParamErrorKind::TypeMismatch { expected, found: type_name(&T::TYPE) };
        return Err(param_error(registry, param, kind));
    }
    Ok(())
}
