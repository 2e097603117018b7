//! A [`ShaderStruct`] checked against its reflected block, field by field
//! and into nested structs and arrays, once, when it resolves.

use std::marker::PhantomData;

use super::{FieldType, ShaderStruct, StructMember, StructParam};
use crate::ParamError;
use crate::errors::ParamErrorKind;
use crate::reflect::{Member, MemberType, ValueType};
use crate::write::param::Param;

impl crate::registry::Registry {
    /// [`Manager::param_struct_in`](crate::Manager::param_struct_in) without
    /// a device: block `name` of `family`, each of `T`'s fields checked
    /// against its member's name, type and offset (what a build step checks
    /// generated structs with).
    pub fn struct_param_in<T: ShaderStruct>(
        &self,
        family: &str,
        name: &str,
    ) -> Result<StructParam<T>, ParamError> {
        self.struct_param(name, Some(family))
    }

    /// [`Manager::param_struct`](crate::Manager::param_struct): the block,
    /// and each of `T`'s fields checked against its members.
    pub(crate) fn struct_param<T: ShaderStruct>(
        &self,
        name: &str,
        family: Option<&str>,
    ) -> Result<StructParam<T>, ParamError> {
        let slot = self.block(name, family)?;
        let layout = &self[slot];
        let members = layout.members().iter().map(|m| &m.member).collect::<Vec<_>>();
        let mut mismatches = Vec::new();
        fields(T::MEMBERS, &members, "", &mut mismatches);
        if !mismatches.is_empty() {
            let rust = std::any::type_name::<T>().rsplit("::").next().unwrap_or("struct");
            return Err(ParamError {
                name: name.to_owned(),
                kind: ParamErrorKind::StructMismatch { rust, mismatches },
            });
        }
        let block = Param {
            slot,
            frequency: layout.frequency(),
            offset: 0,
            elem_size: T::SIZE,
            count: 1,
            stride: 0,
            value: None,
        };
        Ok(StructParam { block, _struct: PhantomData })
    }
}

/// A reflected shape, as a field's is compared with it.
enum Shape<'a> {
    Value(ValueType),
    Struct(&'a [Member]),
    Array { elem: &'a MemberType, count: u32, stride: u32 },
}

impl<'a> Shape<'a> {
    fn of_member(m: &'a Member) -> Self {
        match m.stride {
            0 => Self::of_type(&m.ty),
            stride => Self::Array { elem: &m.ty, count: m.count, stride },
        }
    }

    fn of_type(ty: &'a MemberType) -> Self {
        match ty {
            MemberType::Plain { value, .. } => Self::Value(*value),
            MemberType::Struct { fields, .. } => Self::Struct(fields),
            MemberType::Array { elem, count, stride, .. } => {
                Self::Array { elem, count: *count, stride: *stride }
            }
        }
    }
}

/// Compares `wanted` fields with the members of a block or nested struct,
/// pushing one line per field that differs; `path` prefixes nested names.
fn fields(wanted: &[StructMember], have: &[&Member], path: &str, out: &mut Vec<String>) {
    for field in wanted {
        let name = format!("{path}{}", field.name);
        let Some(m) = have.iter().find(|m| m.name == field.name) else {
            let known = have.iter().map(|m| m.name.as_str()).collect::<Vec<_>>();
            out.push(format!("`{name}` is not a member (it has {})", known.join(", ")));
            continue;
        };
        let found = Shape::of_member(m);
        if m.offset != field.offset || !same_outline(&field.ty, &found) {
            let spelled = match m.stride {
                0 => m.ty.name().to_owned(),
                stride => format!("array<{}, {}> (stride {stride})", m.ty.name(), m.count),
            };
            let wanted = match field.ty {
                FieldType::Array { stride, .. } => format!("{} (stride {stride})", field.ty.wgsl()),
                _ => field.ty.wgsl(),
            };
            out.push(format!(
                "`{name}` is {wanted} at offset {} in the struct, {spelled} at offset {} in the block",
                field.offset, m.offset
            ));
            continue;
        }
        inner(&field.ty, &found, &name, out);
    }
}

/// Whether the two shapes agree at the top: value for value, struct for
/// struct, arrays of the same count and stride.
fn same_outline(wanted: &FieldType, found: &Shape<'_>) -> bool {
    match (wanted, found) {
        (FieldType::Value(a), Shape::Value(b)) => a == b,
        (FieldType::Struct { .. }, Shape::Struct(_)) => true,
        (FieldType::Array { count, stride, .. }, Shape::Array { count: c, stride: s, .. }) => {
            count == c && stride == s
        }
        _ => false,
    }
}

/// Compares what lies inside two shapes that agree at the top.
fn inner(wanted: &FieldType, found: &Shape<'_>, name: &str, out: &mut Vec<String>) {
    match (wanted, found) {
        (FieldType::Struct { members, .. }, Shape::Struct(have)) => {
            fields(members, &have.iter().collect::<Vec<_>>(), &format!("{name}."), out);
        }
        (FieldType::Array { elem, .. }, Shape::Array { elem: have, .. }) => {
            let element = format!("{name}[]");
            let found = Shape::of_type(have);
            if !same_outline(elem, &found) {
                out.push(format!(
                    "`{element}` is {} in the struct, {} in the block",
                    elem.wgsl(),
                    have.name()
                ));
                return;
            }
            inner(elem, &found, &element, out);
        }
        _ => {}
    }
}
