//! Uniform block layouts read from naga's IR and `Layouter`.

use naga::proc::Layouter;
use naga::{ArraySize, Handle, ImageClass, Module, TypeInner};

use super::types::wgsl_name;
use super::{BlockLayout, Member, MemberType, ResourceKind, ShaderReflection, ValueType};
use crate::reflect::name::normalize;

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
        TypeInner::AccelerationStructure { vertex_return } => {
            ResourceKind::AccelerationStructure { vertex_return }
        }
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
    source: Option<&str>,
    ty: Handle<naga::Type>,
    var_name: &str,
) -> Result<BlockLayout, BlockFault> {
    let size = layouter[ty].size;
    match module.types[ty].inner {
        TypeInner::Struct { ref members, span } => Ok(BlockLayout {
            type_name: module.types[ty].name.clone(),
            size: span.max(size),
            members: struct_members(module, layouter, source, ty, members, 0)?,
        }),
        _ => Ok(BlockLayout {
            type_name: None,
            size,
            members: vec![member(module, layouter, source, var_name, 0, ty, 0)?],
        }),
    }
}

fn struct_members(
    module: &Module,
    layouter: &Layouter,
    source: Option<&str>,
    struct_ty: Handle<naga::Type>,
    members: &[naga::StructMember],
    depth: u32,
) -> Result<Vec<Member>, BlockFault> {
    // The last member may end at the span, which the struct's alignment rounds up to.
    let span = match module.types[struct_ty].inner {
        TypeInner::Struct { span, .. } => span,
        _ => layouter[struct_ty].size,
    };
    let align = layouter[struct_ty].alignment;
    let mut out = members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let name = m.name.clone().unwrap_or_else(|| format!("member{i}"));
            member(module, layouter, source, normalize(&name), m.offset, m.ty, depth)
        })
        .collect::<Result<Vec<_>, _>>()?;
    // naga applies `@size` to the offsets and keeps no size; the room before
    // the next member is the declared size where the source says `@size`
    // (an `@align` on the next member leaves room too, and is not a size).
    let body = source.and_then(|text| struct_text(module, struct_ty, text));
    for i in 0..out.len() {
        let Some(name) = members[i].name.as_deref() else { continue };
        if !body.is_some_and(|b| declares_size(b, name)) {
            continue;
        }
        let (end, next_align) = match members.get(i + 1) {
            Some(next) => (next.offset, layouter[next.ty].alignment),
            None => (span, align),
        };
        let natural = next_align.round_up(out[i].offset + out[i].size);
        if end > natural {
            out[i].size = end - out[i].offset;
        }
    }
    Ok(out)
}

fn member(
    module: &Module,
    layouter: &Layouter,
    source: Option<&str>,
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
    let ty = member_type(module, layouter, source, elem, depth + 1)?;
    let size = if stride == 0 { ty.size() } else { count * stride };
    Ok(Member { name: name.to_owned(), offset, size, ty, count, stride })
}

fn member_type(
    module: &Module,
    layouter: &Layouter,
    source: Option<&str>,
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
            // Padding members (`_pad…`) are room, not fields: as in a slot's members.
            fields: struct_members(module, layouter, source, ty, members, depth)?
                .into_iter()
                .filter(|m| !crate::reflect::name::is_padding(&m.name))
                .collect(),
        },
        TypeInner::Array { base, size: ArraySize::Constant(n), stride } => {
            let elem = member_type(module, layouter, source, base, depth + 1)?;
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

/// The source text of a struct's declaration, when naga kept its span.
fn struct_text<'a>(module: &Module, ty: Handle<naga::Type>, source: &'a str) -> Option<&'a str> {
    let span = module.types.get_span(ty);
    span.to_range().and_then(|r| source.get(r))
}

/// Whether the struct declaration `body` gives member `name` an `@size`.
fn declares_size(body: &str, name: &str) -> bool {
    let inner = body.split_once('{').map_or(body, |(_, b)| b);
    inner.split([',', '}']).any(|decl| {
        let decl = decl.trim();
        let Some(at) = decl.find(':') else { return false };
        let (head, _) = decl.split_at(at);
        head.split_whitespace().last() == Some(name) && head.contains("@size")
    })
}

/// A member name that two members share after normalization (`a[0]` and `a[1]`).
pub(super) fn duplicate_name(members: &[Member]) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    members.iter().find(|m| !seen.insert(m.name.as_str())).map(|m| m.name.clone())
}
