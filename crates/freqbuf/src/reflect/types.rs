//! The reflected data: entry points, resources, blocks, members and value types.

use naga::{ImageClass, ShaderStage, TypeInner};

use crate::errors::Location;
use crate::slot::plan::BindingPoint;

/// An entry point of a shader module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPoint {
    /// The function name.
    pub name: String,
    /// The pipeline stage.
    pub stage: ShaderStage,
}

/// One resource binding a shader declares.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    /// Its `(group, binding)`.
    pub binding: BindingPoint,
    /// Its name, normalized (`GMRTs[4]` is stored as `GMRTs`).
    pub name: String,
    /// What kind of binding it is.
    pub kind: ResourceKind,
    /// The binding-array length; 1 for a plain binding, 0 for a binding array
    /// without a fixed size (registration gives it a length from the device's
    /// binding-array limits).
    pub count: u32,
    /// Indices into [`ShaderReflection::entry_points`](super::ShaderReflection::entry_points) of the entry points that use it.
    pub users: Vec<usize>,
    /// Where it is declared, when the source is text.
    pub location: Option<Location>,
    /// The file `location` is in, where that is not the shader's name: a
    /// [linked](super::ShaderReflection::link) pipeline's resources keep the
    /// name of the part that declares them, so that errors point into that
    /// file. `None` for a resource of a shader reflected from one source.
    pub file: Option<String>,
    /// The layout of a uniform block, or of one element of an array slot
    /// (see [`Resource::is_array_slot`]); `None` for other resources.
    pub block: Option<BlockLayout>,
    /// For textures: whether an entry point samples it with a sampler. A float
    /// texture that is only loaded (`textureLoad`) gets an unfilterable layout,
    /// so that formats such as `R32Float` can be bound.
    pub sampled: bool,
    /// For storage buffers: the fewest bytes a bound buffer must hold (the
    /// fixed part plus one element of a runtime-sized array); 0 for other kinds.
    pub min_size: u32,
    /// A storage buffer whose type is a runtime-sized array
    /// (`var<storage> lights: array<Light>`): an array slot at most
    /// frequencies, a plain array buffer at the frame's.
    pub array: bool,
}

impl Resource {
    /// The wgpu binding type of a non-uniform resource, or why freqbuf cannot
    /// bind it. A float texture that is sampled with a sampler somewhere must be filterable.
    pub(crate) fn binding_type(&self) -> Result<wgpu::BindingType, &'static str> {
        use naga::{ImageClass, ImageDimension as D, ScalarKind};
        let sampled = self.sampled;
        let view = |dim, arrayed| match (dim, arrayed) {
            (D::D1, _) => wgpu::TextureViewDimension::D1,
            (D::D2, false) => wgpu::TextureViewDimension::D2,
            (D::D2, true) => wgpu::TextureViewDimension::D2Array,
            (D::D3, _) => wgpu::TextureViewDimension::D3,
            (D::Cube, false) => wgpu::TextureViewDimension::Cube,
            (D::Cube, true) => wgpu::TextureViewDimension::CubeArray,
        };
        let ty = match self.kind {
            ResourceKind::Texture { dim, arrayed, class } => {
                let view_dimension = view(dim, arrayed);
                let (sample_type, multisampled) = match class {
                    ImageClass::Sampled { kind, multi } => (
                        match kind {
                            ScalarKind::Sint => wgpu::TextureSampleType::Sint,
                            ScalarKind::Uint => wgpu::TextureSampleType::Uint,
                            _ => wgpu::TextureSampleType::Float { filterable: sampled && !multi },
                        },
                        multi,
                    ),
                    ImageClass::Depth { multi } => (wgpu::TextureSampleType::Depth, multi),
                    _ => return Err("external textures are not supported"),
                };
                wgpu::BindingType::Texture { sample_type, view_dimension, multisampled }
            }
            ResourceKind::Sampler { comparison } => wgpu::BindingType::Sampler(if comparison {
                wgpu::SamplerBindingType::Comparison
            } else {
                wgpu::SamplerBindingType::Filtering
            }),
            ResourceKind::Storage { read_only } => wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            ResourceKind::StorageTexture { dim, arrayed, class: ImageClass::Storage { format, access } } => {
                let access = if access.contains(naga::StorageAccess::ATOMIC) {
                    wgpu::StorageTextureAccess::Atomic
                } else if access.contains(naga::StorageAccess::LOAD | naga::StorageAccess::STORE) {
                    wgpu::StorageTextureAccess::ReadWrite
                } else if access.contains(naga::StorageAccess::STORE) {
                    wgpu::StorageTextureAccess::WriteOnly
                } else {
                    wgpu::StorageTextureAccess::ReadOnly
                };
                let format = wgpu_naga_bridge::map_storage_format_from_naga(format);
                wgpu::BindingType::StorageTexture { access, format, view_dimension: view(dim, arrayed) }
            }
            ResourceKind::StorageTexture { .. } => return Err("a storage texture without a storage class"),
            ResourceKind::AccelerationStructure { .. } if self.count > 1 => {
                return Err("binding arrays of acceleration structures are not supported");
            }
            ResourceKind::AccelerationStructure { vertex_return } => {
                wgpu::BindingType::AccelerationStructure { vertex_return }
            }
            ResourceKind::Uniform => wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: true,
                min_binding_size: None,
            },
        };
        Ok(ty)
    }

    /// The wgpu features binding it needs: a binding array's
    /// (`TEXTURE_BINDING_ARRAY`, `BUFFER_BINDING_ARRAY`, and
    /// `STORAGE_RESOURCE_BINDING_ARRAY` for arrays of storage) and an
    /// acceleration structure's.
    pub fn required_features(&self) -> wgpu::Features {
        use wgpu::Features as F;
        let own = match self.kind {
            ResourceKind::AccelerationStructure { vertex_return: true } => {
                F::EXPERIMENTAL_RAY_QUERY | F::EXPERIMENTAL_RAY_HIT_VERTEX_RETURN
            }
            ResourceKind::AccelerationStructure { vertex_return: false } => F::EXPERIMENTAL_RAY_QUERY,
            _ => F::empty(),
        };
        let array = match self.kind {
            _ if self.count == 1 => F::empty(),
            ResourceKind::Storage { .. } => F::BUFFER_BINDING_ARRAY | F::STORAGE_RESOURCE_BINDING_ARRAY,
            ResourceKind::StorageTexture { .. } => {
                F::TEXTURE_BINDING_ARRAY | F::STORAGE_RESOURCE_BINDING_ARRAY
            }
            ResourceKind::Uniform => F::BUFFER_BINDING_ARRAY,
            ResourceKind::AccelerationStructure { .. } => F::ACCELERATION_STRUCTURE_BINDING_ARRAY,
            _ => F::TEXTURE_BINDING_ARRAY,
        };
        own | array
    }

    /// Whether it is an array slot: a read-only storage buffer declared as a
    /// runtime-sized array of structs, whose elements are the instances of its
    /// frequency (`block` is then the element's layout, its size the stride).
    #[inline]
    pub fn is_array_slot(&self) -> bool {
        self.block.is_some() && matches!(self.kind, ResourceKind::Storage { .. })
    }

    /// Whether it is a slot of either form: a uniform block or an array slot.
    #[inline]
    pub(crate) fn is_slot(&self) -> bool {
        self.block.is_some()
    }

    /// Whether any entry point uses it.
    #[inline]
    pub fn is_used(&self) -> bool {
        !self.users.is_empty()
    }
}

/// The kind of a resource binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceKind {
    /// A uniform buffer (`var<uniform>`, GLSL `uniform` block).
    Uniform,
    /// A sampled or depth texture.
    Texture {
        /// Its dimension.
        dim: naga::ImageDimension,
        /// Whether it is a texture array.
        arrayed: bool,
        /// Sampled (with its scalar kind) or depth, and multisampling.
        class: ImageClass,
    },
    /// A sampler.
    Sampler {
        /// Whether it is a comparison sampler.
        comparison: bool,
    },
    /// A storage buffer.
    Storage {
        /// Whether the shader only reads it.
        read_only: bool,
    },
    /// A storage texture.
    StorageTexture {
        /// Its dimension.
        dim: naga::ImageDimension,
        /// Whether it is a texture array.
        arrayed: bool,
        /// Format and access.
        class: ImageClass,
    },
    /// An acceleration structure (a top-level one, `wgpu::Tlas`), for ray
    /// queries: the device needs `Features::EXPERIMENTAL_RAY_QUERY`.
    AccelerationStructure {
        /// Whether ray queries may return the hit's vertices
        /// (`Features::EXPERIMENTAL_RAY_HIT_VERTEX_RETURN`).
        vertex_return: bool,
    },
}

impl ResourceKind {
    /// `uniform`, `texture`, `sampler`, `storage`, `storage_texture` or `acceleration_structure`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            ResourceKind::Uniform => "uniform",
            ResourceKind::Texture { .. } => "texture",
            ResourceKind::Sampler { .. } => "sampler",
            ResourceKind::Storage { .. } => "storage",
            ResourceKind::StorageTexture { .. } => "storage_texture",
            ResourceKind::AccelerationStructure { .. } => "acceleration_structure",
        }
    }

    /// What an instance holds for it at its binding point.
    pub(crate) const fn class(&self) -> ResourceClass {
        match self {
            ResourceKind::Texture { .. } | ResourceKind::StorageTexture { .. } => ResourceClass::Texture,
            ResourceKind::Sampler { .. } => ResourceClass::Sampler,
            ResourceKind::Uniform | ResourceKind::Storage { .. } => ResourceClass::Buffer,
            ResourceKind::AccelerationStructure { .. } => ResourceClass::AccelerationStructure,
        }
    }
}

/// What an instance holds at a binding point: a texture (sampled, depth or
/// storage), a sampler or a buffer. Pipelines that declare different
/// classes at one point each read their own, so an instance keeps one of
/// each class there (Bevy's SMAA passes put a texture and a sampler at one
/// point); within a class, permutations may change the type
/// (`SharedBinding::alternates`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum ResourceClass {
    Texture,
    Sampler,
    Buffer,
    AccelerationStructure,
}

impl ResourceClass {
    /// The class of resource a binding of type `ty` takes.
    pub(crate) const fn of_type(ty: &wgpu::BindingType) -> Self {
        match ty {
            wgpu::BindingType::Texture { .. } | wgpu::BindingType::StorageTexture { .. } => Self::Texture,
            wgpu::BindingType::Sampler(_) => Self::Sampler,
            wgpu::BindingType::AccelerationStructure { .. } => Self::AccelerationStructure,
            _ => Self::Buffer,
        }
    }

    /// `texture`, `sampler`, `storage` or `acceleration_structure`: what the
    /// setter of the class is called for.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::Texture => "texture",
            Self::Sampler => "sampler",
            Self::Buffer => "storage",
            Self::AccelerationStructure => "acceleration_structure",
        }
    }
}

/// The layout of one uniform block, as one shader declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockLayout {
    /// The struct's type name, if the block is a struct.
    pub type_name: Option<String>,
    /// Size in bytes, padding included.
    pub size: u32,
    /// Top-level members, by offset.
    pub members: Vec<Member>,
}

/// One member of a block or struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Normalized name.
    pub name: String,
    /// Byte offset inside its parent.
    pub offset: u32,
    /// Size in bytes as declared: `count * stride` for arrays, the type's
    /// size, or more where WGSL's `@size` (or GLSL's offsets) leave room
    /// before the next member than alignment explains. The value itself
    /// takes [`Member::extent`] bytes.
    pub size: u32,
    /// The type, or the element type for arrays.
    pub ty: MemberType,
    /// Array length; 1 when not an array.
    pub count: u32,
    /// Array stride; 0 when not an array.
    pub stride: u32,
}

impl Member {
    /// Bytes the value takes: `count * stride` for arrays, else the type's
    /// size. Other members may sit in the rest of a larger declared size.
    #[inline]
    pub fn extent(&self) -> u32 {
        if self.stride == 0 { self.ty.size() } else { self.count * self.stride }
    }

    /// Whether the member is an array.
    #[inline]
    pub fn is_array(&self) -> bool {
        self.stride != 0
    }
}

/// The type of a member (the element type, for arrays).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberType {
    /// A scalar, vector, matrix or atomic.
    Plain {
        /// WGSL spelling: `f32`, `vec3<f32>`, `mat4x4<f32>`.
        wgsl: String,
        /// Size in bytes of one value.
        size: u32,
        /// The shape, for checking values set from Rust.
        value: ValueType,
    },
    /// A fixed-size array, as the element of an array member (`array<array<vec4<f32>, 3>, 9>`
    /// is a member of 9 elements of this type).
    Array {
        /// The element type.
        elem: Box<MemberType>,
        /// Elements.
        count: u32,
        /// Distance between elements.
        stride: u32,
        /// WGSL spelling: `array<vec4<f32>, 3>`.
        wgsl: String,
    },
    /// A struct, with its fields.
    Struct {
        /// The struct's type name.
        name: String,
        /// Size in bytes, padding included.
        size: u32,
        /// The fields, by offset.
        fields: Vec<Member>,
    },
}

impl MemberType {
    /// The WGSL spelling, or the struct name.
    #[inline]
    pub fn name(&self) -> &str {
        match self {
            MemberType::Plain { wgsl, .. } | MemberType::Array { wgsl, .. } => wgsl,
            MemberType::Struct { name, .. } => name,
        }
    }

    /// Size in bytes of one value of this type.
    #[inline]
    pub fn size(&self) -> u32 {
        match *self {
            MemberType::Plain { size, .. } | MemberType::Struct { size, .. } => size,
            MemberType::Array { count, stride, .. } => count * stride,
        }
    }
}

/// The shape of a scalar, vector or matrix: what a Rust value must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ValueType {
    /// Float, signed, unsigned or bool.
    pub kind: naga::ScalarKind,
    /// Bytes per scalar.
    pub width: u8,
    /// Matrix columns; 1 for scalars and vectors.
    pub columns: u8,
    /// Vector or column length; 1 for scalars.
    pub rows: u8,
}

impl ValueType {
    /// A scalar of `kind` and `width` bytes.
    pub const fn scalar(kind: naga::ScalarKind, width: u8) -> Self {
        Self { kind, width, columns: 1, rows: 1 }
    }

    /// A vector of `rows` scalars.
    pub const fn vector(kind: naga::ScalarKind, width: u8, rows: u8) -> Self {
        Self { kind, width, columns: 1, rows }
    }

    /// A matrix of `columns` columns of `rows` scalars.
    pub const fn matrix(kind: naga::ScalarKind, width: u8, columns: u8, rows: u8) -> Self {
        Self { kind, width, columns, rows }
    }

    pub(super) fn of(inner: &TypeInner) -> Option<Self> {
        Some(match *inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => Self::scalar(s.kind, s.width),
            TypeInner::Vector { size, scalar } => Self::vector(scalar.kind, scalar.width, size as u8),
            TypeInner::Matrix { columns, rows, scalar } => {
                Self::matrix(scalar.kind, scalar.width, columns as u8, rows as u8)
            }
            _ => return None,
        })
    }
}

/// The WGSL spelling of a value type, for every scalar width (`i64`, `f16`, ...).
impl std::fmt::Display for ValueType {
    /// The WGSL spelling: `vec4<f32>`, `mat3x3<f32>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&wgsl_name(*self))
    }
}

pub(crate) fn wgsl_name(v: ValueType) -> String {
    let scalar = match (v.kind, v.width) {
        (naga::ScalarKind::Float, w) => format!("f{}", w as u32 * 8),
        (naga::ScalarKind::Sint, w) => format!("i{}", w as u32 * 8),
        (naga::ScalarKind::Uint, w) => format!("u{}", w as u32 * 8),
        (naga::ScalarKind::Bool, _) => "bool".to_owned(),
        (k, w) => format!("{k:?}{}", w as u32 * 8),
    };
    match (v.columns, v.rows) {
        (1, 1) => scalar,
        (1, r) => format!("vec{r}<{scalar}>"),
        (c, r) => format!("mat{c}x{r}<{scalar}>"),
    }
}
