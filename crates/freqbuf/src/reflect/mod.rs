//! Shader reflection: what one shader declares, read through naga.
//!
//! Use it to inspect a shader before (or without) registering it; a
//! [`Manager`](crate::Manager) reflects what it registers itself.
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
use naga::{Module, ShaderStage};

use crate::errors::{Location, ReflectError, ReflectErrorKind};
use crate::slot::plan::BindingPoint;

mod block;
mod entry;
mod globals;
mod index;
mod link;
pub(crate) mod name;
pub(crate) mod stack;
mod types;

pub use index::{IndexSource, Indexing};
pub(crate) use types::ResourceClass;
pub(crate) use types::wgsl_name;
pub use types::{BlockLayout, EntryPoint, Member, MemberType, Resource, ResourceKind, ValueType};

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
    /// Every array it indexes, with where the index comes from (`index.rs`).
    indexing: Vec<Indexing>,
    /// Bytes of `var<immediate>` data its entry points read.
    immediate_size: u32,
    /// The text it came from, for `line:column` in later errors.
    source: Option<String>,
    /// The family its per-family blocks join; `None`: its own, by its name.
    family: Option<String>,
}

impl ShaderReflection {
    /// Deepest nesting of structs and arrays inside a uniform block that freqbuf lays
    /// out; deeper blocks are refused rather than overflowing the stack.
    pub const MAX_NESTING: u32 = 64;

    /// Largest shader file [`ShaderReflection::from_path`] reads.
    pub const MAX_FILE_SIZE: u64 = 64 << 20;

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
            ShaderSource::Naga(module) => crate::reflect::stack::module_size(module),
        };
        let shader = name.clone();
        let caught = crate::reflect::stack::on_deep_stack(len, move || Self::reflect(shader, source));
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
                let module = naga::front::wgsl::parse_str(src)
                    .map_err(|e| fail(e.location(src).map(Location::from_naga), ReflectErrorKind::Wgsl(e)))?;
                (module, Some(src))
            }
            #[cfg(feature = "glsl")]
            ShaderSource::Glsl { source, stage } => {
                let module = naga::front::glsl::Frontend::default()
                    .parse(&naga::front::glsl::Options::from(stage), source)
                    .map_err(|e| {
                        let at = e.errors.first().and_then(|f| f.location(source)).map(Location::from_naga);
                        fail(at, ReflectErrorKind::Glsl(e))
                    })?;
                (module, Some(source))
            }
            #[cfg(feature = "spirv")]
            ShaderSource::SpirV(bytes) => {
                let module = naga::front::spv::parse_u8_slice(bytes, &Default::default())
                    .map_err(|e| fail(None, ReflectErrorKind::Spirv(e)))?;
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
        let refuse = |what: String| ReflectError {
            shader: name.clone(),
            location: None,
            kind: ReflectErrorKind::Io(what),
        };
        let read = || read_file(path, Self::MAX_FILE_SIZE).map_err(refuse);
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
        let info =
            Validator::new(ValidationFlags::all(), Capabilities::all()).validate(&module).map_err(|e| {
                ReflectError {
                    shader: name.clone(),
                    location: source.and_then(|s| e.location(s)).map(Location::from_naga),
                    kind: ReflectErrorKind::Validation(Box::new(e)),
                }
            })?;
        let mut layouter = Layouter::default();
        // The validator has already laid out every type; this cannot fail after it.
        layouter.update(module.to_ctx()).map_err(|e| ReflectError {
            shader: name.clone(),
            location: None,
            kind: ReflectErrorKind::Validation(Box::new(naga::WithSpan::new(e.into()))),
        })?;

        let entry_points = module
            .entry_points
            .iter()
            .map(|ep| EntryPoint { name: ep.name.clone(), stage: ep.stage })
            .collect::<Vec<_>>();
        let globals =
            globals::Globals { name: &name, module: &module, info: &info, layouter: &layouter, source };
        let (mut resources, immediate_size) = globals.resources()?;
        resources.sort_by_key(|r| r.binding);
        let indexing = index::indexing(&module);
        Ok(Self {
            name,
            module,
            info,
            entry_points,
            resources,
            indexing,
            immediate_size,
            source: source.map(str::to_owned),
            family: None,
        })
    }

    /// The shader with the array slots at points `plain` accepts made plain
    /// storage buffers: the frame has one instance, so a frame-frequency
    /// `array<Light>` is a buffer of many lights the frame owns (set with
    /// `set_buffer`), not one element per instance.
    pub(crate) fn plain_arrays(mut self, plain: impl Fn(BindingPoint) -> bool) -> Self {
        for r in &mut self.resources {
            if r.is_array_slot() && plain(r.binding) {
                r.block = None;
            }
        }
        self
    }

    /// The shader without its naga module, validation info and source text:
    /// what a registry that only checks and merges layouts keeps (entry
    /// points, resources with their layouts and locations, immediate size).
    /// The whole-effect check registers thousands of permutations this way.
    /// A manager cannot create a shader module from it.
    pub fn layout_only(mut self) -> Self {
        self.module = Module::default();
        // Validating an empty module cannot fail.
        if let Ok(info) = Validator::new(ValidationFlags::empty(), Capabilities::all()).validate(&self.module)
        {
            self.info = info;
        }
        self.source = None;
        self
    }

    /// The shader with its per-family blocks (materials, by default) in
    /// family `family`: shaders of one family merge those blocks into one
    /// layout, shaders of different families each have their own. Without
    /// it, a shader is a family of its own, named by its name.
    pub fn with_family(mut self, family: impl Into<String>) -> Self {
        self.family = Some(family.into());
        self
    }

    /// The family its per-family blocks belong to: the one given to
    /// [`ShaderReflection::with_family`], or its name.
    #[inline]
    pub fn family(&self) -> &str {
        self.family.as_deref().unwrap_or(&self.name)
    }

    /// The name given at construction (a path, for files).
    #[inline]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes of `var<immediate>` data its entry points read (0 without):
    /// its pipeline layout's `immediate_size`, set per draw with
    /// `set_immediates`. Needs the device's `Features::IMMEDIATES`.
    #[inline]
    pub fn immediate_size(&self) -> u32 {
        self.immediate_size
    }

    /// The wgpu features its bindings and immediates need: binding arrays
    /// (`TEXTURE_BINDING_ARRAY`, `BUFFER_BINDING_ARRAY`, and
    /// `STORAGE_RESOURCE_BINDING_ARRAY` for arrays of storage), acceleration
    /// structures (`EXPERIMENTAL_RAY_QUERY`, and
    /// `EXPERIMENTAL_RAY_HIT_VERTEX_RETURN` for vertex return) and
    /// `IMMEDIATES`. What its code needs besides (`SHADER_F16`, non-uniform
    /// indexing) registration reports as a `Capability` limit error naming
    /// the feature. Cost: a pass over its resources.
    pub fn required_features(&self) -> wgpu::Features {
        let immediates =
            if self.immediate_size > 0 { wgpu::Features::IMMEDIATES } else { wgpu::Features::empty() };
        self.used_resources().fold(immediates, |f, r| f | r.required_features())
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

    /// Every storage array and binding array its functions index, with where
    /// each index comes from, sorted and once per pair: how registration finds
    /// that a material slab is indexed through object data
    /// (`materials[objects[i].material]`). Cost: none (found at reflection).
    #[inline]
    pub fn indexing(&self) -> &[Indexing] {
        &self.indexing
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

/// The error for an input language this build leaves out.
#[cfg(not(all(feature = "glsl", feature = "spirv")))]
fn feature_off(shader: String, feature: &'static str) -> ReflectError {
    ReflectError { shader, location: None, kind: ReflectErrorKind::FeatureOff { feature } }
}

/// Reads a regular file of at most `limit` bytes. A FIFO would block and a
/// device (`/dev/zero`) would never end, so anything else is refused before
/// a byte is read; the limit is checked again while reading, in case the
/// file grew. The error says why, for the caller's error type.
///
/// Tools that read shader-like inputs (effect files, modules) read them
/// through this, so that no input can block or exhaust memory.
pub(crate) fn read_file(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > limit {
        return Err(format!("{} bytes, over the limit of {limit}", meta.len()));
    }
    let mut bytes = Vec::new();
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!("over the limit of {limit} bytes"));
    }
    Ok(bytes)
}
