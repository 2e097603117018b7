//! `Param`: a resolved handle to a value in a slot, and the `Uniform` trait for
//! Rust values that may be written through one.

use naga::ScalarKind;

use crate::id::SlotId;
use crate::reflect::{MemberType, ValueType};
use crate::slot::layout::Resolved;
use crate::slot::plan::Frequency;

/// A member (or array element, or struct field) resolved once by name.
///
/// Cheap to copy and to use per draw: setting through a `Param` does no lookup.
/// A `Param` stays valid when later shaders grow its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    pub(crate) slot: SlotId,
    pub(crate) frequency: Frequency,
    pub(crate) offset: u32,
    /// Size of one element (the value size for non-arrays).
    pub(crate) elem_size: u32,
    /// Elements addressed; 1 unless a whole array is addressed.
    pub(crate) count: u32,
    pub(crate) stride: u32,
    /// `None` for structs, which are set as bytes.
    pub(crate) value: Option<ValueType>,
}

impl Param {
    pub(crate) fn new(slot: SlotId, frequency: Frequency, r: &Resolved<'_>) -> Self {
        Self {
            slot,
            frequency,
            offset: r.offset,
            elem_size: r.ty.size(),
            count: r.count,
            stride: r.stride,
            value: match r.ty {
                MemberType::Plain { value, .. } => Some(*value),
                MemberType::Struct { .. } | MemberType::Array { .. } => None,
            },
        }
    }

    /// The slot the value lives in.
    #[inline]
    pub fn slot(&self) -> SlotId {
        self.slot
    }

    /// The frequency of that slot.
    #[inline]
    pub fn frequency(&self) -> Frequency {
        self.frequency
    }

    /// Byte offset inside one instance of the slot.
    #[inline]
    pub fn offset(&self) -> u32 {
        self.offset
    }

    /// Bytes of one element.
    #[inline]
    pub fn size(&self) -> u32 {
        self.elem_size
    }

    /// Elements: the array length for a whole array, else 1.
    #[inline]
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Distance between elements of a whole array; 0 otherwise.
    #[inline]
    pub fn stride(&self) -> u32 {
        self.stride
    }

    /// The shape a value must have, or `None` for a struct.
    #[inline]
    pub fn value_type(&self) -> Option<ValueType> {
        self.value
    }
}

/// A Rust value that matches a WGSL scalar, vector or matrix in a uniform buffer.
///
/// Implemented for `f32`, `i32`, `u32`, `[T; 2..=4]` of those (vectors),
/// every `f32` matrix as `[[f32; R]; C]` for `matCxR<f32>` (three-row
/// columns written padded to 16 bytes, as WGSL lays out `mat3x3<f32>`), and, with
/// the `glam` and `mint` features, for those crates' types. Any other
/// `bytemuck::Pod` value of the member's size (a struct, a padded matrix) is set
/// with `InstanceMut::set_bytes(param, bytemuck::bytes_of(&value))`.
pub trait Uniform {
    /// The WGSL shape this type stands for.
    const TYPE: ValueType;
    /// The value as a uniform buffer lays it out.
    type Gpu: bytemuck::Pod;
    /// Converts to the buffer layout (a copy for types already laid out so).
    fn to_gpu(&self) -> Self::Gpu;
}

/// `Uniform` for types that are their own buffer layout.
macro_rules! uniform_as_is {
    ($($t:ty => $ty:expr),* $(,)?) => {$(
        impl Uniform for $t {
            const TYPE: ValueType = $ty;
            type Gpu = Self;
            #[inline]
            fn to_gpu(&self) -> Self {
                *self
            }
        }
    )*};
}

macro_rules! uniform_scalar {
    ($($t:ty => $kind:expr),*) => {$(
        uniform_as_is!(
            $t => ValueType::scalar($kind, 4),
            [$t; 2] => ValueType::vector($kind, 4, 2),
            [$t; 3] => ValueType::vector($kind, 4, 3),
            [$t; 4] => ValueType::vector($kind, 4, 4),
        );
    )*};
}

uniform_scalar!(f32 => ScalarKind::Float, i32 => ScalarKind::Sint, u32 => ScalarKind::Uint);

// `[[f32; R]; C]` is `matCxR<f32>`: C columns of R.
uniform_as_is!(
    [[f32; 4]; 4] => ValueType::matrix(ScalarKind::Float, 4, 4, 4),
    [[f32; 4]; 3] => ValueType::matrix(ScalarKind::Float, 4, 3, 4),
    [[f32; 4]; 2] => ValueType::matrix(ScalarKind::Float, 4, 2, 4),
    [[f32; 2]; 4] => ValueType::matrix(ScalarKind::Float, 4, 4, 2),
    [[f32; 2]; 3] => ValueType::matrix(ScalarKind::Float, 4, 3, 2),
    [[f32; 2]; 2] => ValueType::matrix(ScalarKind::Float, 4, 2, 2),
);

/// `Uniform` for matrices of three rows, whose columns WGSL pads to 16 bytes.
macro_rules! uniform_rows3 {
    ($($c:literal),*) => {$(
        impl Uniform for [[f32; 3]; $c] {
            const TYPE: ValueType = ValueType::matrix(ScalarKind::Float, 4, $c, 3);
            type Gpu = [[f32; 4]; $c];
            #[inline]
            fn to_gpu(&self) -> [[f32; 4]; $c] {
                self.map(|[x, y, z]| [x, y, z, 0.0])
            }
        }
    )*};
}

uniform_rows3!(2, 3, 4);

/// Three columns of three, as WGSL's `mat3x3<f32>` lays them out: 16 bytes each.
#[inline]
#[cfg_attr(
    not(any(feature = "glam", feature = "mint")),
    allow(dead_code, reason = "glam's and mint's 3×3 matrices")
)]
pub(crate) fn pad3(c: [[f32; 3]; 3]) -> [[f32; 4]; 3] {
    c.map(|[x, y, z]| [x, y, z, 0.0])
}

/// WGSL spelling of a value type, for error messages.
pub(crate) fn type_name(t: &ValueType) -> String {
    crate::reflect::wgsl_name(*t)
}
