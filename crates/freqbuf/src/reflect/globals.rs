//! A validated module's global variables as the resources a shader binds:
//! each one's kind, binding, users, block layout and sampling.

use naga::proc::Layouter;
use naga::valid::ModuleInfo;
use naga::{AddressSpace, ArraySize, GlobalVariable, Handle, Module, TypeInner};

use super::block::{BlockFault, array_slot_element, block_layout, duplicate_name, resource_kind};
use super::{BlockLayout, Resource, ResourceKind, ShaderReflection};
use crate::errors::{Location, ReflectError, ReflectErrorKind};
use crate::reflect::name::normalize;

/// What reflecting the globals reads: the shader's name for errors, the
/// module with its validation info and type layouts, and the source for
/// positions.
pub(super) struct Globals<'a> {
    pub(super) name: &'a str,
    pub(super) module: &'a Module,
    pub(super) info: &'a ModuleInfo,
    pub(super) layouter: &'a Layouter,
    pub(super) source: Option<&'a str>,
}

impl Globals<'_> {
    /// Every bound global as a resource, and the size of the immediate data
    /// the entry points use (not a binding: the pipeline layout's range).
    pub(super) fn resources(&self) -> Result<(Vec<Resource>, u32), ReflectError> {
        let mut resources = Vec::new();
        let mut immediate_size = 0;
        for (handle, var) in self.module.global_variables.iter() {
            let kind = match var.space {
                AddressSpace::Immediate => {
                    if !self.users(handle).is_empty() {
                        immediate_size = immediate_size.max(self.layouter[var.ty].size);
                    }
                    continue;
                }
                AddressSpace::Uniform => ResourceKind::Uniform,
                AddressSpace::Storage { access } => {
                    ResourceKind::Storage { read_only: !access.contains(naga::StorageAccess::STORE) }
                }
                AddressSpace::Handle => match resource_kind(self.module, var.ty) {
                    Some(kind) => kind,
                    None => continue,
                },
                _ => continue,
            };
            resources.push(self.resource(handle, var, kind)?);
        }
        Ok((resources, immediate_size))
    }

    /// The entry points (by index) that use a global.
    fn users(&self, handle: Handle<GlobalVariable>) -> Vec<usize> {
        (0..self.module.entry_points.len())
            .filter(|&i| !self.info.get_entry_point(i)[handle].is_empty())
            .collect()
    }

    fn resource(
        &self,
        handle: Handle<GlobalVariable>,
        var: &GlobalVariable,
        kind: ResourceKind,
    ) -> Result<Resource, ReflectError> {
        let module = self.module;
        let raw_name = var
            .name
            .clone()
            .or_else(|| module.types[var.ty].name.clone())
            .unwrap_or_else(|| format!("global{}", handle.index()));
        let name = normalize(&raw_name).to_owned();
        let span = module.global_variables.get_span(handle);
        let location =
            self.source.filter(|_| span.is_defined()).map(|s| Location::from_naga(span.location(s)));
        let fail = |kind| ReflectError { shader: self.name.to_owned(), location, kind };
        let Some(binding) = var.binding else {
            return Err(fail(ReflectErrorKind::NoBinding { name }));
        };
        let count = match module.types[var.ty].inner {
            TypeInner::BindingArray { size: ArraySize::Constant(n), .. } => n.get(),
            TypeInner::BindingArray { .. } => 0,
            _ => 1,
        };
        let block = self.block(var, kind, &name).map_err(fail)?;
        // Sampled with a sampler by some entry point: the layout must say filterable.
        let sampled = (0..module.entry_points.len())
            .any(|i| self.info.get_entry_point(i).sampling_set.iter().any(|k| k.image == handle));
        let storage = matches!(kind, ResourceKind::Storage { .. });
        let min_size = if storage { self.layouter[var.ty].size } else { 0 };
        let array = storage
            && matches!(module.types[var.ty].inner, TypeInner::Array { size: ArraySize::Dynamic, .. });
        Ok(Resource {
            binding: binding.into(),
            name,
            kind,
            count,
            users: self.users(handle),
            location,
            file: None,
            block,
            sampled,
            min_size,
            array,
        })
    }

    /// The layout of a uniform block, or of one element of an array slot
    /// (at the array's own stride); `None` for other resources.
    fn block(
        &self,
        var: &GlobalVariable,
        kind: ResourceKind,
        name: &str,
    ) -> Result<Option<BlockLayout>, ReflectErrorKind> {
        let (module, layouter, source) = (self.module, self.layouter, self.source);
        let too_deep =
            || ReflectErrorKind::TooDeep { name: name.to_owned(), limit: ShaderReflection::MAX_NESTING };
        let block = if kind == ResourceKind::Uniform {
            block_layout(module, layouter, source, var.ty, name).map_err(|f| match f {
                BlockFault::Unsized => ReflectErrorKind::UnsizedUniform { name: name.to_owned() },
                BlockFault::TooDeep => too_deep(),
            })?
        } else if let Some((element, stride)) = array_slot_element(module, kind, var.ty) {
            let mut block = block_layout(module, layouter, source, element, name).map_err(|_| too_deep())?;
            block.size = stride;
            block
        } else {
            return Ok(None);
        };
        match duplicate_name(&block.members) {
            Some(member) => Err(ReflectErrorKind::DuplicateMember { block: name.to_owned(), member }),
            None => Ok(Some(block)),
        }
    }
}
