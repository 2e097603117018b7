//! Typed blocks: a Rust struct with WGSL's layout, checked once against the
//! reflected block and then written whole.
//!
//! Use a typed block instead of setting members by name ([`Param`]) where
//! the application keeps the block as one struct (a material's parameters,
//! an object's transform and tint): `#[derive(ShaderStruct)]` (feature
//! `derive`) lays the struct out by WGSL's rules, [`Manager::param_struct`](crate::Manager::param_struct)
//! checks every field's name, type and offset against the block when it
//! resolves, listing every mismatch, and
//! [`InstanceMut::set_struct`](crate::InstanceMut::set_struct) then writes
//! the fields with no name lookup. Fields are scalars, vectors and matrices
//! (any [`Uniform`] type: arrays, glam's and mint's); a struct may cover part
//! of a block, and its other members keep their values.

use std::marker::PhantomData;

use crate::param::{Param, Uniform};
use crate::reflect::ValueType;

/// One field of a [`ShaderStruct`], where WGSL puts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StructMember {
    /// The field's name: the block member it writes.
    pub name: &'static str,
    /// Its WGSL shape.
    pub ty: ValueType,
    /// Its byte offset in the struct, by WGSL's alignment rules.
    pub offset: u32,
    /// Its size in bytes (WGSL's: 12 for `vec3<f32>`, 48 for `mat3x3<f32>`).
    pub size: u32,
}

/// A Rust struct with a WGSL layout; derive it with `#[derive(ShaderStruct)]`.
pub trait ShaderStruct {
    /// The fields in declaration order, at their WGSL offsets.
    const MEMBERS: &'static [StructMember];

    /// Its size: the end of its last field, rounded up to its largest alignment.
    const SIZE: u32 = struct_size(Self::MEMBERS);

    /// Writes each field's buffer form at its offset in `out` (at least
    /// [`ShaderStruct::SIZE`] bytes).
    fn write_gpu(&self, out: &mut [u8]);
}

/// A block resolved for struct `T`, from [`Manager::param_struct`](crate::Manager::param_struct):
/// every field was checked against the block, so writes look nothing up.
pub struct StructParam<T> {
    pub(crate) block: Param,
    pub(crate) _struct: PhantomData<fn(&T)>,
}

impl<T> Clone for StructParam<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for StructParam<T> {}

impl<T> std::fmt::Debug for StructParam<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StructParam")
            .field("struct", &std::any::type_name::<T>())
            .field("block", &self.block)
            .finish()
    }
}

/// WGSL's alignment of a scalar, vector or matrix.
#[inline]
pub(crate) const fn wgsl_align(ty: ValueType) -> u32 {
    let w = ty.width as u32;
    match ty.rows {
        1 => w,
        2 => 2 * w,
        _ => 4 * w,
    }
}

/// WGSL's size of a scalar, vector or matrix (columns padded to their alignment).
#[inline]
pub(crate) const fn wgsl_size(ty: ValueType) -> u32 {
    let column = ty.rows as u32 * ty.width as u32;
    if ty.columns == 1 { column } else { ty.columns as u32 * round_up(column, wgsl_align(ty)) }
}

const fn round_up(n: u32, to: u32) -> u32 {
    n.div_ceil(to) * to
}

/// Lays out fields by WGSL's rules: each at the next offset its alignment
/// allows. What the derive's `MEMBERS` is made of.
pub const fn struct_members<const N: usize>(fields: [(&'static str, ValueType); N]) -> [StructMember; N] {
    let mut out =
        [StructMember { name: "", ty: ValueType::scalar(naga::ScalarKind::Float, 4), offset: 0, size: 0 }; N];
    let (mut i, mut end) = (0, 0);
    while i < N {
        let (name, ty) = fields[i];
        let offset = round_up(end, wgsl_align(ty));
        out[i] = StructMember { name, ty, offset, size: wgsl_size(ty) };
        end = offset + wgsl_size(ty);
        i += 1;
    }
    out
}

/// [`struct_members`] where a field may give its offset (`u32::MAX`: the
/// next its alignment allows, as `struct_members`): what the derive's
/// `MEMBERS` is made of. An offset before the previous field's end, or not a
/// multiple of the field's alignment, fails at compile time.
pub const fn struct_members_at<const N: usize>(
    fields: [(&'static str, ValueType, u32); N],
) -> [StructMember; N] {
    let mut out =
        [StructMember { name: "", ty: ValueType::scalar(naga::ScalarKind::Float, 4), offset: 0, size: 0 }; N];
    let (mut i, mut end) = (0, 0);
    while i < N {
        let (name, ty, at) = fields[i];
        let offset = if at == u32::MAX { round_up(end, wgsl_align(ty)) } else { at };
        assert!(offset >= end, "ShaderStruct: an offset before the previous field's end");
        assert!(offset % wgsl_align(ty) == 0, "ShaderStruct: an offset its type's alignment does not allow");
        out[i] = StructMember { name, ty, offset, size: wgsl_size(ty) };
        end = offset + wgsl_size(ty);
        i += 1;
    }
    out
}

/// The struct's size: the end of its last field, rounded up to its largest alignment.
pub(crate) const fn struct_size(members: &[StructMember]) -> u32 {
    let (mut i, mut end, mut align) = (0, 0, 1);
    while i < members.len() {
        let m = members[i];
        end = m.offset + m.size;
        if wgsl_align(m.ty) > align {
            align = wgsl_align(m.ty);
        }
        i += 1;
    }
    round_up(end, align)
}

/// Writes `value`'s buffer form at `offset` in `out`: what the derive's
/// `write_gpu` does per field.
#[inline]
pub fn put_member<T: Uniform>(out: &mut [u8], offset: u32, value: &T) {
    let gpu = value.to_gpu();
    let bytes = bytemuck::bytes_of(&gpu);
    out[offset as usize..offset as usize + bytes.len()].copy_from_slice(bytes);
}

impl crate::registry::Registry {
    /// [`Manager::param_struct_in`](crate::Manager::param_struct_in) without
    /// a device: block `name` of `family`, each of `T`'s fields checked
    /// against its member's name, type and offset (what a build step checks
    /// generated structs with).
    pub fn struct_param_in<T: ShaderStruct>(
        &self,
        family: &str,
        name: &str,
    ) -> Result<StructParam<T>, crate::ParamError> {
        self.struct_param(name, Some(family))
    }

    /// [`Manager::param_struct`](crate::Manager::param_struct): the block,
    /// and each of `T`'s fields checked against its members.
    pub(crate) fn struct_param<T: ShaderStruct>(
        &self,
        name: &str,
        family: Option<&str>,
    ) -> Result<StructParam<T>, crate::ParamError> {
        let slot = self.block(name, family)?;
        let layout = &self[slot];
        let mut mismatches = Vec::new();
        for field in T::MEMBERS {
            let wanted = crate::param::type_name(&field.ty);
            match layout.member(field.name) {
                None => {
                    let known = layout.members().iter().map(|m| m.member.name.as_str()).collect::<Vec<_>>();
                    mismatches.push(format!(
                        "`{}` is not a member (it has {})",
                        field.name,
                        known.join(", ")
                    ));
                }
                Some(m) => {
                    let value = match &m.ty {
                        crate::reflect::MemberType::Plain { value, .. } if !m.is_array() => Some(*value),
                        _ => None,
                    };
                    if value != Some(field.ty) || m.offset != field.offset {
                        let found = match m.is_array() {
                            true => format!("array<{}, {}>", m.ty.name(), m.count),
                            false => m.ty.name().to_owned(),
                        };
                        mismatches.push(format!(
                            "`{}` is {wanted} at offset {} in the struct, {found} at offset {} in the block",
                            field.name, field.offset, m.offset
                        ));
                    }
                }
            }
        }
        if !mismatches.is_empty() {
            let rust = std::any::type_name::<T>().rsplit("::").next().unwrap_or("struct");
            return Err(crate::ParamError {
                name: name.to_owned(),
                kind: crate::ParamErrorKind::StructMismatch { rust, mismatches },
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
