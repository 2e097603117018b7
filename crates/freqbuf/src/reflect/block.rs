//! Uniform block layouts read from naga's IR and `Layouter`.

use naga::proc::Layouter;
use naga::{ArraySize, Handle, ImageClass, Module, TypeInner};

use super::types::wgsl_name;
use super::{BlockLayout, Member, MemberType, ResourceKind, ShaderReflection, ValueType};
use crate::name::normalize;

pub(super) fn resource_kind(module: &Module, ty: Handle<naga::Type>) -> Option<ResourceKind> {
    let inner = match module.types[ty].inner {
        TypeInner::BindingArray { base, .. } => &module.types[base].inner,
        ref other => other,
    };
    Some(match *inner {
        TypeInner::Image { dim, arrayed, class } => match class {
            ImageClass::Storage { .. } => ResourceKind::StorageTexture { dim, arrayed, class },
            _ => ResourceKind::Texture { dim, arrayed, class },
        },
        TypeInner::Sampler { comparison } => ResourceKind::Sampler { comparison },
        TypeInner::AccelerationStructure { .. } => ResourceKind::AccelerationStructure,
        _ => return None,
    })
}

/// Why a uniform block has no layout.
pub(super) enum BlockFault {
    Unsized,
    TooDeep,
}

/// The layout of a uniform variable of type `ty`.
/// The element struct and stride of a read-only storage buffer declared as a
/// runtime-sized array of structs (`var<storage, read> objects: array<Object>`),
/// which freqbuf makes an array slot. Arrays of scalars or vectors stay buffers
/// the application binds.
pub(super) fn array_slot_element(
    module: &Module,
    kind: ResourceKind,
    ty: Handle<naga::Type>,
) -> Option<(Handle<naga::Type>, u32)> {
    if kind != (ResourceKind::Storage { read_only: true }) {
        return None;
    }
    match module.types[ty].inner {
        TypeInner::Array { base, size: naga::ArraySize::Dynamic, stride }
            if matches!(module.types[base].inner, TypeInner::Struct { .. }) =>
        {
            Some((base, stride))
        }
        _ => None,
    }
}

pub(super) fn block_layout(
    module: &Module,
    layouter: &Layouter,
    ty: Handle<naga::Type>,
    var_name: &str,
) -> Result<BlockLayout, BlockFault> {
    let size = layouter[ty].size;
    match module.types[ty].inner {
        TypeInner::Struct { ref members, span } => Ok(BlockLayout {
            type_name: module.types[ty].name.clone(),
            size: span.max(size),
            members: struct_members(module, layouter, members, 0)?,
        }),
        _ => Ok(BlockLayout {
            type_name: None,
            size,
            members: vec![member(module, layouter, var_name, 0, ty, 0)?],
        }),
    }
}

fn struct_members(
    module: &Module,
    layouter: &Layouter,
    members: &[naga::StructMember],
    depth: u32,
) -> Result<Vec<Member>, BlockFault> {
    members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let name = m.name.clone().unwrap_or_else(|| format!("member{i}"));
            member(module, layouter, normalize(&name), m.offset, m.ty, depth)
        })
        .collect()
}

fn member(
    module: &Module,
    layouter: &Layouter,
    name: &str,
    offset: u32,
    ty: Handle<naga::Type>,
    depth: u32,
) -> Result<Member, BlockFault> {
    let (elem, count, stride) = match module.types[ty].inner {
        TypeInner::Array { base, size: ArraySize::Constant(n), stride } => (base, n.get(), stride),
        TypeInner::Array { .. } => return Err(BlockFault::Unsized),
        _ => (ty, 1, 0),
    };
    let ty = member_type(module, layouter, elem, depth + 1)?;
    let size = if stride == 0 { ty.size() } else { count * stride };
    Ok(Member { name: name.to_owned(), offset, size, ty, count, stride })
}

fn member_type(
    module: &Module,
    layouter: &Layouter,
    ty: Handle<naga::Type>,
    depth: u32,
) -> Result<MemberType, BlockFault> {
    if depth > ShaderReflection::MAX_NESTING {
        return Err(BlockFault::TooDeep);
    }
    let size = layouter[ty].size;
    Ok(match module.types[ty].inner {
        TypeInner::Struct { ref members, span } => MemberType::Struct {
            name: module.types[ty].name.clone().unwrap_or_else(|| "{anonymous struct}".into()),
            size: span.max(size),
            fields: struct_members(module, layouter, members, depth)?,
        },
        TypeInner::Array { base, size: ArraySize::Constant(n), stride } => {
            let elem = member_type(module, layouter, base, depth + 1)?;
            let wgsl = format!("array<{}, {}>", elem.name(), n.get());
            MemberType::Array { elem: Box::new(elem), count: n.get(), stride, wgsl }
        }
        TypeInner::Array { .. } => return Err(BlockFault::Unsized),
        ref inner => {
            let value = ValueType::of(inner).ok_or(BlockFault::Unsized)?;
            MemberType::Plain { wgsl: wgsl_name(value), size, value }
        }
    })
}

/// A member name that two members share after normalization (`a[0]` and `a[1]`).
pub(super) fn duplicate_name(members: &[Member]) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    members.iter().find(|m| !seen.insert(m.name.as_str())).map(|m| m.name.clone())
}
