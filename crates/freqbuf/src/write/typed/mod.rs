//! Typed blocks: a Rust struct with WGSL's layout, checked once against the
//! reflected block and then written whole.
//!
//! Use a typed block instead of setting members by name ([`Param`](crate::Param)) where
//! the application keeps the block as one struct (a material's parameters,
//! an object's transform and tint, a view with its lights):
//! `#[derive(ShaderStruct)]` (feature `derive`) lays the struct out by
//! WGSL's rules, [`Manager::param_struct`](crate::Manager::param_struct)
//! checks every field's name, type and offset against the block when it
//! resolves, listing every mismatch, and
//! [`InstanceMut::set_struct`](crate::InstanceMut::set_struct) then writes
//! the fields with no name lookup. Fields are any [`Uniform`] type (scalars,
//! vectors and matrices, as arrays or glam's and mint's), nested
//! `ShaderStruct`s, and fixed arrays of either; a struct may cover part of a
//! block (or a nested struct part of its WGSL struct), and the members it
//! leaves out keep their values.

mod check;

use std::marker::PhantomData;

use crate::reflect::ValueType;
use crate::write::param::Uniform;

/// One field of a [`ShaderStruct`], where WGSL puts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StructMember {
    /// The field's name: the block member it writes.
    pub name: &'static str,
    /// Its WGSL shape.
    pub ty: FieldType,
    /// Its byte offset in the struct, by WGSL's alignment rules.
    pub offset: u32,
    /// Its size in bytes (WGSL's: 12 for `vec3<f32>`, 48 for `mat3x3<f32>`,
    /// count × stride for an array).
    pub size: u32,
}

/// The WGSL shape of a [`StructMember`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// A scalar, vector or matrix.
    Value(ValueType),
    /// A nested struct: another [`ShaderStruct`].
    Struct {
        /// The Rust struct's name, for messages.
        name: &'static str,
        /// Its fields.
        members: &'static [StructMember],
        /// Its [`ShaderStruct::SIZE`].
        size: u32,
    },
    /// A fixed array of `count` elements, `stride` bytes apart.
    Array {
        /// The element's shape.
        elem: &'static FieldType,
        /// Elements.
        count: u32,
        /// Bytes from one element to the next.
        stride: u32,
    },
}

impl FieldType {
    /// WGSL's alignment of the shape.
    pub const fn align(&self) -> u32 {
        match self {
            FieldType::Value(v) => wgsl_align(*v),
            FieldType::Struct { members, .. } => struct_align(members),
            FieldType::Array { elem, .. } => elem.align(),
        }
    }

    /// WGSL's size of the shape.
    pub const fn size(&self) -> u32 {
        match self {
            FieldType::Value(v) => wgsl_size(*v),
            FieldType::Struct { size, .. } => *size,
            FieldType::Array { count, stride, .. } => *count * *stride,
        }
    }

    /// An array of `count` elements `stride` bytes apart (`u32::MAX`: WGSL's
    /// stride, the element's size rounded up to its alignment).
    pub const fn array(elem: &'static FieldType, count: u32, stride: u32) -> FieldType {
        let stride = if stride == u32::MAX { round_up(elem.size(), elem.align()) } else { stride };
        assert!(stride >= elem.size(), "ShaderStruct: an array stride below its element's size");
        assert!(
            stride % elem.align() == 0,
            "ShaderStruct: an array stride its element's alignment does not allow"
        );
        FieldType::Array { elem, count, stride }
    }

    /// The WGSL spelling: `vec4<f32>`, `array<Light, 4>`.
    pub(crate) fn wgsl(&self) -> String {
        match self {
            FieldType::Value(v) => crate::write::param::type_name(v),
            FieldType::Struct { name, .. } => (*name).to_owned(),
            FieldType::Array { elem, count, .. } => format!("array<{}, {count}>", elem.wgsl()),
        }
    }
}

/// A Rust struct with a WGSL layout; derive it with `#[derive(ShaderStruct)]`
/// (the `derive` feature).
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use freqbuf::ShaderStruct;
///
/// #[derive(ShaderStruct)]
/// struct Material {
///     color: [f32; 4],    // vec4<f32> at 0
///     roughness: f32,     // f32 at 16
///     offset: [f32; 3],   // vec3<f32> at 32
/// }
///
/// let offsets: Vec<u32> = Material::MEMBERS.iter().map(|m| m.offset).collect();
/// assert_eq!(offsets, [0, 16, 32]);
/// assert_eq!(Material::SIZE, 48);
/// # }
/// ```
///
/// Fields nest, and a `[T; N]` of scalars or vectors is a WGSL array where
/// it says `#[shader(array)]`:
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use freqbuf::ShaderStruct;
///
/// #[derive(ShaderStruct)]
/// struct Light {
///     position: [f32; 3], // vec3<f32> at 0
///     range: f32,         // f32 at 12
/// }
///
/// #[derive(ShaderStruct)]
/// struct View {
///     lights: [Light; 4],              // array<Light, 4> at 0, stride 16
///     #[shader(array)]
///     weights: [[f32; 4]; 2],          // array<vec4<f32>, 2> at 64, not a mat2x4
/// }
/// assert_eq!(View::SIZE, 96);
/// # }
/// ```
pub trait ShaderStruct {
    /// The fields in declaration order, at their WGSL offsets.
    const MEMBERS: &'static [StructMember];

    /// Its size: the end of its last field, rounded up to its largest alignment.
    const SIZE: u32 = struct_size(Self::MEMBERS);

    /// Writes each field's buffer form at its offset in `out` (at least
    /// [`ShaderStruct::SIZE`] bytes).
    fn write_gpu(&self, out: &mut [u8]);
}

/// A type a [`ShaderStruct`] field may have: every [`Uniform`] type, and
/// every `ShaderStruct` (the derive implements it), so structs nest.
pub trait ShaderField {
    /// Its WGSL shape.
    const FIELD: FieldType;

    /// Writes its buffer form at `offset` in `out`.
    fn put(&self, out: &mut [u8], offset: u32);
}

impl<T: Uniform> ShaderField for T {
    const FIELD: FieldType = FieldType::Value(T::TYPE);

    #[inline]
    fn put(&self, out: &mut [u8], offset: u32) {
        put_member(out, offset, self);
    }
}

/// A block resolved for struct `T`, from [`Manager::param_struct`](crate::Manager::param_struct):
/// every field was checked against the block, so writes look nothing up.
pub struct StructParam<T> {
    pub(crate) block: crate::write::param::Param,
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

/// Lays out fields by WGSL's rules, where a field may give its offset
/// (`u32::MAX`: the next its alignment allows): what the derive's `MEMBERS`
/// is made of. An offset before the previous field's end, or not a multiple
/// of the field's alignment, fails at compile time.
pub const fn struct_members_at<const N: usize>(
    fields: [(&'static str, FieldType, u32); N],
) -> [StructMember; N] {
    let empty = FieldType::Value(ValueType::scalar(naga::ScalarKind::Float, 4));
    let mut out = [StructMember { name: "", ty: empty, offset: 0, size: 0 }; N];
    let (mut i, mut end) = (0, 0);
    while i < N {
        let (name, ty, at) = fields[i];
        let offset = if at == u32::MAX { round_up(end, ty.align()) } else { at };
        assert!(offset >= end, "ShaderStruct: an offset before the previous field's end");
        assert!(offset % ty.align() == 0, "ShaderStruct: an offset its type's alignment does not allow");
        out[i] = StructMember { name, ty, offset, size: ty.size() };
        end = offset + ty.size();
        i += 1;
    }
    out
}

/// The largest alignment of the fields.
const fn struct_align(members: &[StructMember]) -> u32 {
    let (mut i, mut align) = (0, 1);
    while i < members.len() {
        let a = members[i].ty.align();
        if a > align {
            align = a;
        }
        i += 1;
    }
    align
}

/// The struct's size: the end of its last field, rounded up to its largest alignment.
pub(crate) const fn struct_size(members: &[StructMember]) -> u32 {
    let end = match members.last() {
        Some(m) => m.offset + m.size,
        None => 0,
    };
    round_up(end, struct_align(members))
}

/// Writes `value`'s buffer form at `offset` in `out`.
#[inline]
pub fn put_member<T: Uniform>(out: &mut [u8], offset: u32, value: &T) {
    let gpu = value.to_gpu();
    let bytes = bytemuck::bytes_of(&gpu);
    out[offset as usize..offset as usize + bytes.len()].copy_from_slice(bytes);
}

/// Writes each element of an array field `stride` bytes apart from `offset`.
#[inline]
pub fn put_array<E: ShaderField>(out: &mut [u8], offset: u32, stride: u32, items: &[E]) {
    for (i, item) in items.iter().enumerate() {
        item.put(out, offset + i as u32 * stride);
    }
}

/// Writes a nested struct's fields at `offset` in `out`: a derived
/// [`ShaderField::put`].
#[inline]
pub fn put_struct<T: ShaderStruct>(out: &mut [u8], offset: u32, value: &T) {
    value.write_gpu(&mut out[offset as usize..]);
}

/// Calls `f` with the byte range of every value a struct writes, nested
/// structs and arrays of structs field by field, so that members they
/// leave out are never overwritten. Arrays of values are one range.
pub(crate) fn for_each_span(members: &[StructMember], base: u32, f: &mut impl FnMut(u32, u32)) {
    for m in members {
        span_of(&m.ty, base + m.offset, f);
    }
}

fn span_of(ty: &FieldType, at: u32, f: &mut impl FnMut(u32, u32)) {
    match ty {
        FieldType::Value(_) => f(at, ty.size()),
        FieldType::Struct { members, .. } => for_each_span(members, at, f),
        FieldType::Array { elem, count, stride } => match elem {
            FieldType::Value(_) if *count > 0 => f(at, (count - 1) * stride + elem.size()),
            _ => (0..*count).for_each(|i| span_of(elem, at + i * stride, f)),
        },
    }
}
