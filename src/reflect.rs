//! Shader reflection: what one shader declares, read through naga.
//!
//! A [`ShaderReflection`] is built from WGSL, Vulkan GLSL 450, SPIR-V or an
//! already-built `naga::Module` (for users of shader composers). Every source
//! goes through naga's validator, whose `ModuleInfo` tells which entry points
//! use which binding. Uniform block layouts (offsets, sizes, strides) come from
//! the IR and naga's `Layouter`, so they follow WGSL's rules for WGSL and std140
//! for GLSL without freqbuf redoing either.

use std::path::Path;

use naga::proc::Layouter;
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use naga::{AddressSpace, ArraySize, Handle, ImageClass, Module, ShaderStage, TypeInner};

use crate::error::{Location, ReflectError, ReflectErrorKind};
use crate::name::normalize;
use crate::plan::BindingPoint;

/// Where a shader comes from.
#[derive(Debug)]
pub enum ShaderSource<'a> {
    /// WGSL source text.
    Wgsl(&'a str),
    /// Vulkan GLSL 450 source text, and the stage it is written for (feature `glsl`).
    #[cfg(feature = "glsl")]
    Glsl {
        /// The source text.
        source: &'a str,
        /// The pipeline stage.
        stage: ShaderStage,
    },
    /// A SPIR-V binary, little-endian words (feature `spirv`).
    #[cfg(feature = "spirv")]
    SpirV(&'a [u8]),
    /// A module that another tool (a shader composer) already built.
    Naga(Box<Module>),
}

/// What one shader declares: its entry points and resources by binding point.
#[derive(Debug, Clone)]
pub struct ShaderReflection {
    name: String,
    module: Module,
    info: ModuleInfo,
    entry_points: Vec<EntryPoint>,
    resources: Vec<Resource>,
    /// The text it came from, for `line:column` in later errors.
    source: Option<String>,
}

impl ShaderReflection {
    /// Reflects a shader. `name` is used in every error and report (a file path, say).
    ///
    /// Cost: one parse and one validation of the module.
    ///
    /// A panic inside naga (its front ends do panic on some corrupt inputs) is
    /// caught and returned as [`ReflectErrorKind::Panic`]. naga runs on a worker
    /// thread whose stack grows with the input, so that deeply nested source
    /// cannot overflow its recursion.
    pub fn new(name: impl Into<String>, source: ShaderSource<'_>) -> Result<Self, ReflectError> {
        let name = name.into();
        let front = match &source {
            ShaderSource::Wgsl(_) => "WGSL front end",
            #[cfg(feature = "glsl")]
            ShaderSource::Glsl { .. } => "GLSL front end",
            #[cfg(feature = "spirv")]
            ShaderSource::SpirV(_) => "SPIR-V front end",
            ShaderSource::Naga(_) => "validator",
        };
        let len = match &source {
            ShaderSource::Wgsl(text) => text.len(),
            #[cfg(feature = "glsl")]
            ShaderSource::Glsl { source, .. } => source.len(),
            #[cfg(feature = "spirv")]
            ShaderSource::SpirV(bytes) => bytes.len(),
            ShaderSource::Naga(module) => crate::stack::module_size(module),
        };
        let shader = name.clone();
        let caught = crate::stack::deep(len, move || Self::reflect(shader, source));
        caught.unwrap_or_else(|payload| {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            Err(ReflectError {
                shader: name,
                location: None,
                kind: ReflectErrorKind::Panic { front, message },
            })
        })
    }

    fn reflect(name: String, source: ShaderSource<'_>) -> Result<Self, ReflectError> {
        let fail = |location, kind| ReflectError { shader: name.clone(), location, kind };
        let (module, text) = match source {
            ShaderSource::Wgsl(src) => {
                let module = naga::front::wgsl::parse_str(src).map_err(|e| {
                    fail(
                        e.location(src).map(Location::from_naga),
                        ReflectErrorKind::Wgsl(e.message().to_owned()),
                    )
                })?;
                (module, Some(src))
            }
            #[cfg(feature = "glsl")]
            ShaderSource::Glsl { source, stage } => {
                let module = naga::front::glsl::Frontend::default()
                    .parse(&naga::front::glsl::Options::from(stage), source)
                    .map_err(|e| {
                        let first = e.errors.first();
                        let message =
                            e.errors.iter().map(|e| e.kind.to_string()).collect::<Vec<_>>().join("; ");
                        fail(
                            first.and_then(|f| f.location(source)).map(Location::from_naga),
                            ReflectErrorKind::Glsl(message),
                        )
                    })?;
                (module, Some(source))
            }
            #[cfg(feature = "spirv")]
            ShaderSource::SpirV(bytes) => {
                let module = naga::front::spv::parse_u8_slice(bytes, &Default::default())
                    .map_err(|e| fail(None, ReflectErrorKind::Spirv(e.to_string())))?;
                (module, None)
            }
            ShaderSource::Naga(module) => (*module, None),
        };
        Self::from_module_with_source(name, module, text)
    }

    /// Reflects an already-built module (from naga_oil or another composer).
    pub fn from_module(name: impl Into<String>, module: Module) -> Result<Self, ReflectError> {
        Self::new(name, ShaderSource::Naga(Box::new(module)))
    }

    /// Reads and reflects a file, choosing the front end by extension:
    /// `.wgsl`, `.spv`, or GLSL by stage (`.vert`, `.frag`, `.comp`).
    ///
    /// `stage` is the stage of GLSL files whose extension does not say (`.glsl`);
    /// it also overrides `.vert`, `.frag` and `.comp`, and is ignored for WGSL and SPIR-V.
    pub fn from_path(path: impl AsRef<Path>, stage: Option<ShaderStage>) -> Result<Self, ReflectError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let io = |e: std::io::Error| ReflectError {
            shader: name.clone(),
            location: None,
            kind: ReflectErrorKind::Io(e.to_string()),
        };
        let refuse = |what: String| ReflectError {
            shader: name.clone(),
            location: None,
            kind: ReflectErrorKind::Io(what),
        };
        let read = || -> Result<Vec<u8>, ReflectError> {
            use std::io::Read;
            // Regular files only: a FIFO would block and a device would never end.
            let meta = std::fs::metadata(path).map_err(io)?;
            if !meta.is_file() {
                return Err(refuse("not a regular file".into()));
            }
            if meta.len() > MAX_FILE_SIZE {
                return Err(refuse(format!("{} bytes, over the limit of {MAX_FILE_SIZE}", meta.len())));
            }
            let mut bytes = Vec::new();
            std::fs::File::open(path)
                .map_err(io)?
                .take(MAX_FILE_SIZE + 1)
                .read_to_end(&mut bytes)
                .map_err(io)?;
            if bytes.len() as u64 > MAX_FILE_SIZE {
                return Err(refuse(format!("over the limit of {MAX_FILE_SIZE} bytes")));
            }
            Ok(bytes)
        };
        let text = || String::from_utf8(read()?).map_err(|e| refuse(format!("not UTF-8: {e}")));
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let glsl_stage = stage.or(match ext {
            "vert" => Some(ShaderStage::Vertex),
            "frag" => Some(ShaderStage::Fragment),
            "comp" => Some(ShaderStage::Compute),
            _ => None,
        });
        match ext {
            "spv" => {
                #[cfg(feature = "spirv")]
                return Self::new(name.clone(), ShaderSource::SpirV(&read()?));
                #[cfg(not(feature = "spirv"))]
                return Err(feature_off(name, "spirv"));
            }
            "wgsl" => {
                let text = text()?;
                Self::new(name, ShaderSource::Wgsl(&text))
            }
            _ => match glsl_stage {
                Some(stage) => {
                    #[cfg(feature = "glsl")]
                    return Self::new(name.clone(), ShaderSource::Glsl { source: &text()?, stage });
                    #[cfg(not(feature = "glsl"))]
                    return Err({
                        let _ = stage;
                        feature_off(name, "glsl")
                    });
                }
                None => {
                    Err(ReflectError { shader: name, location: None, kind: ReflectErrorKind::UnknownFormat })
                }
            },
        }
    }

    fn from_module_with_source(
        name: String,
        module: Module,
        source: Option<&str>,
    ) -> Result<Self, ReflectError> {
        let locate = |span: naga::Span| {
            source.filter(|_| span.is_defined()).map(|s| Location::from_naga(span.location(s)))
        };
        let info =
            Validator::new(ValidationFlags::all(), Capabilities::all()).validate(&module).map_err(|e| {
                ReflectError {
                    shader: name.clone(),
                    location: source.and_then(|s| e.location(s)).map(Location::from_naga),
                    kind: ReflectErrorKind::Validation(error_chain(e.as_inner())),
                }
            })?;
        let mut layouter = Layouter::default();
        // The validator has already laid out every type; this cannot fail after it.
        layouter.update(module.to_ctx()).map_err(|e| ReflectError {
            shader: name.clone(),
            location: None,
            kind: ReflectErrorKind::Validation(e.to_string()),
        })?;

        let entry_points = module
            .entry_points
            .iter()
            .map(|ep| EntryPoint { name: ep.name.clone(), stage: ep.stage })
            .collect::<Vec<_>>();

        let mut resources = Vec::new();
        for (handle, var) in module.global_variables.iter() {
            let kind = match var.space {
                AddressSpace::Uniform => ResourceKind::Uniform,
                AddressSpace::Storage { access } => {
                    ResourceKind::Storage { read_only: !access.contains(naga::StorageAccess::STORE) }
                }
                AddressSpace::Handle => match resource_kind(&module, var.ty) {
                    Some(kind) => kind,
                    None => continue,
                },
                _ => continue,
            };
            let raw_name = var
                .name
                .clone()
                .or_else(|| module.types[var.ty].name.clone())
                .unwrap_or_else(|| format!("global{}", handle.index()));
            let res_name = normalize(&raw_name).to_owned();
            let location = locate(module.global_variables.get_span(handle));
            let Some(binding) = var.binding else {
                return Err(ReflectError {
                    shader: name,
                    location,
                    kind: ReflectErrorKind::NoBinding { name: res_name },
                });
            };
            let count = match module.types[var.ty].inner {
                TypeInner::BindingArray { size: ArraySize::Constant(n), .. } => n.get(),
                TypeInner::BindingArray { .. } => 0,
                _ => 1,
            };
            let users =
                (0..entry_points.len()).filter(|&i| !info.get_entry_point(i)[handle].is_empty()).collect();
            let block = if kind == ResourceKind::Uniform {
                let fault = |f| ReflectError {
                    shader: name.clone(),
                    location,
                    kind: match f {
                        BlockFault::Unsized => ReflectErrorKind::UnsizedUniform { name: res_name.clone() },
                        BlockFault::TooDeep => {
                            ReflectErrorKind::TooDeep { name: res_name.clone(), limit: MAX_NESTING }
                        }
                    },
                };
                let block = block_layout(&module, &layouter, var.ty, &res_name).map_err(fault)?;
                if let Some(dup) = duplicate_name(&block.members) {
                    return Err(ReflectError {
                        shader: name,
                        location,
                        kind: ReflectErrorKind::DuplicateMember { block: res_name, member: dup },
                    });
                }
                Some(block)
            } else {
                None
            };
            // Sampled with a sampler by some entry point: the layout must say filterable.
            let sampled = (0..entry_points.len())
                .any(|i| info.get_entry_point(i).sampling_set.iter().any(|k| k.image == handle));
            let min_size = match kind {
                ResourceKind::Storage { .. } => layouter[var.ty].size,
                _ => 0,
            };
            resources.push(Resource {
                binding: binding.into(),
                name: res_name,
                kind,
                count,
                users,
                location,
                block,
                sampled,
                min_size,
            });
        }
        resources.sort_by_key(|r| r.binding);
        Ok(Self { name, module, info, entry_points, resources, source: source.map(str::to_owned) })
    }

    /// The name given at construction (a path, for files).
    #[inline]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The module's entry points, in declaration order.
    #[inline]
    pub fn entry_points(&self) -> &[EntryPoint] {
        &self.entry_points
    }

    /// Every resource binding, sorted by binding point.
    #[inline]
    pub fn resources(&self) -> &[Resource] {
        &self.resources
    }

    /// The resource at `point`, if the shader declares one.
    pub fn resource(&self, point: BindingPoint) -> Option<&Resource> {
        self.resources.binary_search_by_key(&point, |r| r.binding).ok().map(|i| &self.resources[i])
    }

    /// Resources that at least one entry point uses.
    pub fn used_resources(&self) -> impl Iterator<Item = &Resource> {
        self.resources.iter().filter(|r| r.is_used())
    }

    /// Uniform blocks that no entry point uses. They neither create nor change a slot.
    pub fn unused_blocks(&self) -> impl Iterator<Item = &Resource> {
        self.resources.iter().filter(|r| r.kind == ResourceKind::Uniform && !r.is_used())
    }

    /// The source text, for WGSL and GLSL shaders.
    #[inline]
    pub fn source(&self) -> Option<&str> {
        self.source.as_deref()
    }

    /// The validated naga module, for building a `wgpu::ShaderModule` without reparsing.
    #[inline]
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// naga's analysis of the module.
    #[inline]
    pub fn module_info(&self) -> &ModuleInfo {
        &self.info
    }
}

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
    /// without a fixed size (which freqbuf does not bind).
    pub count: u32,
    /// Indices into [`ShaderReflection::entry_points`] of the entry points that use it.
    pub users: Vec<usize>,
    /// Where it is declared, when the source is text.
    pub location: Option<Location>,
    /// The layout of a uniform block; `None` for other kinds.
    pub block: Option<BlockLayout>,
    /// For textures: whether an entry point samples it with a sampler. A float
    /// texture that is only loaded (`textureLoad`) gets an unfilterable layout,
    /// so that formats such as `R32Float` can be bound.
    pub sampled: bool,
    /// For storage buffers: the fewest bytes a bound buffer must hold (the
    /// fixed part plus one element of a runtime-sized array); 0 for other kinds.
    pub min_size: u32,
}

impl Resource {
    /// The wgpu binding type of a non-uniform resource, or why freqbuf cannot
    /// bind it. A float texture that is sampled with a sampler somewhere must be filterable.
    pub(crate) fn binding_type(&self) -> Result<wgpu::BindingType, &'static str> {
        use naga::{ImageClass, ImageDimension as D, ScalarKind};
        let sampled = self.sampled;
        let ty = match self.kind {
            ResourceKind::Texture { dim, arrayed, class } => {
                let view_dimension = match (dim, arrayed) {
                    (D::D1, _) => wgpu::TextureViewDimension::D1,
                    (D::D2, false) => wgpu::TextureViewDimension::D2,
                    (D::D2, true) => wgpu::TextureViewDimension::D2Array,
                    (D::D3, _) => wgpu::TextureViewDimension::D3,
                    (D::Cube, false) => wgpu::TextureViewDimension::Cube,
                    (D::Cube, true) => wgpu::TextureViewDimension::CubeArray,
                };
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
                    _ => return Err("external and storage images are not supported"),
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
            ResourceKind::StorageTexture { .. } => {
                return Err("storage textures are not supported yet");
            }
            ResourceKind::AccelerationStructure => {
                return Err("acceleration structures are not supported");
            }
            ResourceKind::Uniform => wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: true,
                min_binding_size: None,
            },
        };
        Ok(ty)
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
    /// An acceleration structure.
    AccelerationStructure,
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
            ResourceKind::AccelerationStructure => "acceleration_structure",
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
    /// Size in bytes: `count * stride` for arrays.
    pub size: u32,
    /// The type, or the element type for arrays.
    pub ty: MemberType,
    /// Array length; 1 when not an array.
    pub count: u32,
    /// Array stride; 0 when not an array.
    pub stride: u32,
}

impl Member {
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

    fn of(inner: &TypeInner) -> Option<Self> {
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

fn resource_kind(module: &Module, ty: Handle<naga::Type>) -> Option<ResourceKind> {
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

/// The error for an input language this build leaves out.
#[cfg(not(all(feature = "glsl", feature = "spirv")))]
fn feature_off(shader: String, feature: &'static str) -> ReflectError {
    ReflectError { shader, location: None, kind: ReflectErrorKind::FeatureOff { feature } }
}

/// Largest shader file [`ShaderReflection::from_path`] reads.
pub const MAX_FILE_SIZE: u64 = 64 << 20;

/// Deepest nesting of structs and arrays inside a uniform block that freqbuf lays
/// out; deeper blocks are refused rather than overflowing the stack.
pub const MAX_NESTING: u32 = 64;

/// Why a uniform block has no layout.
enum BlockFault {
    Unsized,
    TooDeep,
}

/// The layout of a uniform variable of type `ty`.
fn block_layout(
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
    if depth > MAX_NESTING {
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

/// A member name that two members share after normalization (`a[0]` and `a[1]`).
fn duplicate_name(members: &[Member]) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    members.iter().find(|m| !seen.insert(m.name.as_str())).map(|m| m.name.clone())
}

/// naga's nested errors, outermost first, joined into one line.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(inner) = cur {
        out.push_str(": ");
        out.push_str(&inner.to_string());
        cur = inner.source();
    }
    out
}
