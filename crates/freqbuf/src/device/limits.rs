//! Device checks made before `Manager::register` creates any wgpu object.
//!
//! wgpu's default error handler panics on validation errors, so everything
//! wgpu would reject about a shader's bindings is checked here first, against
//! `device.limits()` and `device.features()`: group and binding numbers, dynamic
//! uniform buffers per pipeline layout, per-stage binding counts, binding
//! arrays (the feature, then their element counts), and the shader's
//! capabilities (f16, f64, i64, ...) through naga's validator. Error scopes
//! around object creation are the second net.
//!
//! Visibility: a binding is visible in the stages that use it (from
//! reflection), widened to every stage when the device's per-stage limits
//! allow it, so that shaders using one binding from different stages still
//! share a bind group layout. Uniform slots are always visible everywhere.

use naga::valid::{Capabilities, ValidationFlags, Validator};

use crate::errors::{Error, LimitError, LimitErrorKind, Location};
use crate::reflect::{ResourceKind, ShaderReflection};
use crate::slot::array::{self, Addressing};
use crate::slot::plan::BindingPoint;

/// What the device allows, read once per manager.
#[derive(Clone, Debug)]
pub(crate) struct DeviceCaps {
    pub(crate) limits: wgpu::Limits,
    pub(crate) features: wgpu::Features,
    pub(crate) downlevel: wgpu::DownlevelFlags,
    capabilities: Capabilities,
    /// Shaders reach the device as GLSL (wgpu's GL backend, WebGL2).
    gl: bool,
}

impl DeviceCaps {
    /// Most elements a table (`instance/table.rs`) declares.
    pub(crate) const MAX_TABLE_LEN: u32 = 1024;

    /// Elements of an unsized binding array of `class` on this device (a
    /// table a slab indexes, or any other): a sixteenth
    /// of the stage's binding-array limit (Bevy declares nine tables in one
    /// stage), at most [`DeviceCaps::MAX_TABLE_LEN`]; 0 without binding arrays.
    pub(crate) fn table_len(&self, class: crate::reflect::ResourceClass) -> u32 {
        let limit = match class {
            crate::reflect::ResourceClass::Sampler => {
                self.limits.max_binding_array_sampler_elements_per_shader_stage
            }
            _ => self.limits.max_binding_array_elements_per_shader_stage,
        };
        (limit / 16).min(Self::MAX_TABLE_LEN)
    }

    /// The device's limits and features; the downlevel flags live on the
    /// adapter, so the caller passes them (WebGPU-compliant when it cannot).
    pub(crate) fn new(device: &wgpu::Device, downlevel: wgpu::DownlevelFlags) -> Self {
        let gl = device.adapter_info().backend == wgpu::Backend::Gl;
        Self { gl, ..Self::from_parts(device.limits(), device.features(), downlevel) }
    }

    pub(crate) fn from_parts(
        limits: wgpu::Limits,
        features: wgpu::Features,
        downlevel: wgpu::DownlevelFlags,
    ) -> Self {
        let capabilities = wgpu_naga_bridge::features_to_naga_capabilities(features, downlevel);
        Self { limits, features, downlevel, capabilities, gl: false }
    }

    /// Whether array slots can be storage buffers: every stage, the vertex
    /// stage included, can read one. Otherwise they are batched uniform arrays.
    #[inline]
    pub(crate) fn storage_arrays(&self) -> bool {
        self.limits.max_storage_buffers_per_shader_stage > 0
            && self.downlevel.contains(wgpu::DownlevelFlags::VERTEX_STORAGE)
    }

    /// How an array slot with elements `stride` bytes apart is addressed here.
    #[inline]
    pub(crate) fn array_addressing(&self, stride: u32) -> Addressing {
        Addressing::for_array(self.storage_arrays(), &self.limits, stride)
    }

    /// The largest uniform binding, as the registry bounds blocks by it.
    #[inline]
    pub(crate) fn max_uniform(&self) -> u32 {
        self.limits.max_uniform_buffer_binding_size.min(u32::MAX as u64) as u32
    }

    /// Group indices a pipeline layout may use, capped by what a binder tracks.
    #[inline]
    pub(crate) fn max_groups(&self) -> u32 {
        self.limits.max_bind_groups.min(MAX_GROUPS as u32)
    }
}

/// Bind group index limit freqbuf tracks per pass (wgpu's `max_bind_groups` is at most 8).
pub(crate) const MAX_GROUPS: usize = 8;

/// What the device checks give a shader that passes them.
#[derive(Debug)]
pub(crate) struct Checked {
    /// The visibility of each used binding that is not bound with a dynamic
    /// offset, in `used_resources` order.
    pub(crate) visibility: Vec<wgpu::ShaderStages>,
    /// The module to create, when array slots fall back to uniform batches.
    pub(crate) batched: Option<naga::Module>,
}

impl DeviceCaps {
    /// Whether `r` is bound with a dynamic offset here: a uniform block, or an
    /// array slot batched into a uniform array.
    #[inline]
    pub(crate) fn dynamic(&self, r: &crate::reflect::Resource) -> bool {
        r.kind == ResourceKind::Uniform || (r.is_array_slot() && !self.storage_arrays())
    }
}

/// Every device rule for `shader`, as `Manager::register`, `Manager::recreate`
/// and `Registry::check_device` all ask it: the features its bindings need,
/// then [`check`].
pub(crate) fn check_shader(shader: &ShaderReflection, caps: &DeviceCaps) -> Result<Checked, crate::Error> {
    for r in shader.used_resources().filter(|r| r.count > 1) {
        let missing = r.required_features() - caps.features;
        if !missing.is_empty() {
            let names = missing.iter_names().map(|(n, _)| format!("Features::{n}")).collect::<Vec<_>>();
            return Err(crate::Error::Unsupported {
                shader: shader.name().to_owned(),
                what: format!(
                    "`{}` is a binding array of {}, and the device lacks {}",
                    r.name,
                    r.count,
                    names.join(" and ")
                ),
            });
        }
    }
    check(shader, caps).map_err(|e| Error::from_limit(e, shader.name()))
}

/// Checks `shader` against the device's limits.
fn check(shader: &ShaderReflection, caps: &DeviceCaps) -> Result<Checked, LimitError> {
    let limits = &caps.limits;
    check_numbers(shader, caps)?;
    let batched = validate(shader, caps)?;
    // Immediates: the capability check above refused them without the feature.
    if shader.immediate_size() > limits.max_immediate_size {
        let (size, limit) = (shader.immediate_size(), limits.max_immediate_size);
        return Err(fail(None, LimitErrorKind::ImmediateSize { size, limit }));
    }
    let uniforms = shader.used_resources().filter(|r| caps.dynamic(r)).count() as u32;
    let limit = limits.max_dynamic_uniform_buffers_per_pipeline_layout;
    if uniforms > limit {
        return Err(fail(
            None,
            LimitErrorKind::PerPipeline {
                what: "uniform blocks (dynamic uniform buffers)",
                count: uniforms,
                limit,
                limit_name: "max_dynamic_uniform_buffers_per_pipeline_layout",
            },
        ));
    }
    // A bind group layout may not hold both a binding array and a uniform buffer.
    for r in shader.used_resources().filter(|r| r.count > 1) {
        let group = r.binding.group;
        if let Some(u) = shader.used_resources().find(|u| caps.dynamic(u) && u.binding.group == group) {
            return Err(fail(Some(r), LimitErrorKind::ArrayBesideUniform { uniform: u.name.clone() }));
        }
    }

    let others = shader.used_resources().filter(|r| !caps.dynamic(r)).collect::<Vec<_>>();
    let used = others.iter().map(|r| used_stages(shader, r)).collect::<Vec<_>>();
    let wide = others.iter().zip(&used).map(|(r, &s)| s | widest(&r.kind)).collect::<Vec<_>>();
    let visibility = if count_stages(&others, &wide, uniforms, limits).is_ok() {
        wide
    } else {
        count_stages(&others, &used, uniforms, limits).map_err(|kind| fail(None, kind))?;
        used
    };
    Ok(Checked { visibility, batched })
}

/// A limit error at `binding`, or at none.
fn fail(binding: Option<&crate::reflect::Resource>, kind: LimitErrorKind) -> LimitError {
    LimitError {
        binding: binding.map(|r| (r.binding, r.name.clone())),
        location: binding.and_then(|r| r.location),
        kind,
    }
}

/// Group and binding numbers, sized binding arrays, and (on WebGL2) blocks
/// of whole 16-byte rows: checked before anything proportional to them.
fn check_numbers(shader: &ShaderReflection, caps: &DeviceCaps) -> Result<(), LimitError> {
    let limits = &caps.limits;
    for r in shader.used_resources() {
        let BindingPoint { group, binding } = r.binding;
        if group >= caps.max_groups() {
            return Err(fail(Some(r), LimitErrorKind::Group { group, limit: caps.max_groups() }));
        }
        if binding >= limits.max_bindings_per_bind_group {
            let limit = limits.max_bindings_per_bind_group;
            return Err(fail(Some(r), LimitErrorKind::Binding { binding, limit }));
        }
        if r.count == 0 {
            return Err(fail(Some(r), LimitErrorKind::UnsizedBindingArray));
        }
    }
    if caps.gl {
        check_gl_matrices(shader)?;
    }
    // WebGL2's std140 blocks: wgpu refuses the pipeline (a panic by default)
    // when a buffer's type is not a multiple of 16 bytes.
    if !caps.downlevel.contains(wgpu::DownlevelFlags::BUFFER_BINDINGS_NOT_16_BYTE_ALIGNED) {
        for r in shader.used_resources() {
            let size = match r.kind {
                ResourceKind::Uniform => r.block.as_ref().map_or(0, |b| b.size),
                ResourceKind::Storage { .. } => r.min_size,
                _ => 0,
            };
            if size % 16 != 0 {
                return Err(fail(Some(r), LimitErrorKind::Unaligned16 { size }));
            }
        }
    }
    Ok(())
}

/// naga's GLSL output declares a uniform block's `matCx2` as a GLSL matrix,
/// whose std140 columns are 16 bytes apart where WGSL's are 8 (wgpu#4371,
/// open for GLSL): the shader would read wrong values, silently. Refused.
fn check_gl_matrices(shader: &ShaderReflection) -> Result<(), LimitError> {
    let module = shader.module();
    for r in shader.used_resources().filter(|r| r.kind == ResourceKind::Uniform) {
        let global = module.global_variables.iter().find(|(_, g)| {
            g.space == naga::AddressSpace::Uniform
                && g.binding
                    .as_ref()
                    .is_some_and(|b| (b.group, b.binding) == (r.binding.group, r.binding.binding))
        });
        if let Some(ty) = global.and_then(|(_, g)| two_row_matrix(module, g.ty)) {
            return Err(fail(Some(r), LimitErrorKind::GlMatrix { ty }));
        }
    }
    Ok(())
}

/// The first `matCx2` type inside `ty`, in WGSL.
fn two_row_matrix(module: &naga::Module, ty: naga::Handle<naga::Type>) -> Option<String> {
    match &module.types[ty].inner {
        naga::TypeInner::Matrix { rows: naga::VectorSize::Bi, columns, .. } => {
            Some(format!("mat{}x2", *columns as u8))
        }
        naga::TypeInner::Array { base, .. } => two_row_matrix(module, *base),
        naga::TypeInner::Struct { members, .. } => members.iter().find_map(|m| two_row_matrix(module, m.ty)),
        _ => None,
    }
}

/// The module as the device will get it (an array slot made uniform
/// batches where the device has no vertex storage), validated for the
/// device's capabilities as `create_shader_module` would. Returns the
/// batched module, if one was made.
fn validate(shader: &ShaderReflection, caps: &DeviceCaps) -> Result<Option<naga::Module>, LimitError> {
    // Array slots on a device without vertex storage: uniform batches.
    let batched = if shader.used_resources().any(|r| r.is_array_slot()) && !caps.storage_arrays() {
        let module = array::batched_module(shader, &caps.limits)
            .map_err(|(r, why)| fail(Some(r), LimitErrorKind::ArrayFallback { why }))?;
        Some(module)
    } else {
        None
    };
    let module = batched.as_ref().unwrap_or(shader.module());
    // Capabilities: the same validation wgpu runs in `create_shader_module`.
    let validate = || Validator::new(ValidationFlags::all(), caps.capabilities).validate(module).err();
    let size = shader.source().map_or_else(|| crate::reflect::stack::module_size(module), str::len);
    let failed = crate::reflect::stack::on_deep_stack(size, validate).unwrap_or(None);
    if let Some(e) = failed {
        let location = shader.source().and_then(|s| e.location(s)).map(Location::from_naga);
        if batched.is_some() {
            let r = shader.used_resources().find(|r| r.is_array_slot());
            let why = format!("the uniform array does not validate: {}", crate::errors::chain(e.as_inner()));
            return Err(LimitError { location, ..fail(r, LimitErrorKind::ArrayFallback { why }) });
        }
        return Err(LimitError {
            binding: None,
            location,
            kind: LimitErrorKind::Capability { needs: feature_for(&e), source: Box::new(e) },
        });
    }
    Ok(batched)
}

/// The wgpu feature that gives the capability naga's error says is missing.
fn feature_for(e: &naga::WithSpan<naga::valid::ValidationError>) -> Option<&'static str> {
    let text = crate::errors::chain(e.as_inner());
    const FEATURES: [(&str, &str); 7] = [
        (
            "TEXTURE_AND_SAMPLER_BINDING_ARRAY_NON_UNIFORM_INDEXING",
            "SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING",
        ),
        (
            "BUFFER_BINDING_ARRAY_NON_UNIFORM_INDEXING",
            "SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING",
        ),
        ("STORAGE_TEXTURE_BINDING_ARRAY_NON_UNIFORM_INDEXING", "STORAGE_TEXTURE_ARRAY_NON_UNIFORM_INDEXING"),
        ("SHADER_FLOAT16", "SHADER_F16"),
        ("FLOAT64", "SHADER_F64"),
        ("SHADER_INT64", "SHADER_INT64"),
        ("RAY_QUERY", "EXPERIMENTAL_RAY_QUERY"),
    ];
    FEATURES.iter().find(|(cap, _)| text.contains(&format!("Capabilities({cap})"))).map(|&(_, f)| f)
}

/// The stages of the entry points that use `r`.
fn used_stages(shader: &ShaderReflection, r: &crate::reflect::Resource) -> wgpu::ShaderStages {
    r.users.iter().fold(wgpu::ShaderStages::NONE, |acc, &i| acc | stage(shader.entry_points()[i].stage))
}

fn stage(s: naga::ShaderStage) -> wgpu::ShaderStages {
    match s {
        naga::ShaderStage::Vertex => wgpu::ShaderStages::VERTEX,
        naga::ShaderStage::Fragment => wgpu::ShaderStages::FRAGMENT,
        naga::ShaderStage::Compute => wgpu::ShaderStages::COMPUTE,
        naga::ShaderStage::Task => wgpu::ShaderStages::TASK,
        naga::ShaderStage::Mesh => wgpu::ShaderStages::MESH,
        _ => all_stages(),
    }
}

/// The widest visibility a binding may get without needing more of the device
/// than the shader does: storage buffers stay out of the vertex stage unless a
/// vertex entry point uses them (that needs vertex storage support).
fn widest(kind: &ResourceKind) -> wgpu::ShaderStages {
    match kind {
        // Storage textures too: a writable one may not be visible to vertex shaders.
        ResourceKind::Storage { .. }
        | ResourceKind::StorageTexture { .. }
        | ResourceKind::AccelerationStructure { .. } => {
            wgpu::ShaderStages::FRAGMENT | wgpu::ShaderStages::COMPUTE
        }
        _ => all_stages(),
    }
}

/// Per-stage counts of the bindings with the given visibilities, against the limits.
fn count_stages(
    others: &[&crate::reflect::Resource],
    vis: &[wgpu::ShaderStages],
    uniforms: u32,
    limits: &wgpu::Limits,
) -> Result<(), LimitErrorKind> {
    let stages = [
        (wgpu::ShaderStages::VERTEX, "vertex"),
        (wgpu::ShaderStages::FRAGMENT, "fragment"),
        (wgpu::ShaderStages::COMPUTE, "compute"),
    ];
    for (bit, stage_name) in stages {
        let counts = stage_counts(others, vis, bit);
        let checks = [
            (
                uniforms,
                limits.max_uniform_buffers_per_shader_stage,
                "uniform buffers",
                "max_uniform_buffers_per_shader_stage",
            ),
            (
                counts[0],
                limits.max_sampled_textures_per_shader_stage,
                "sampled textures",
                "max_sampled_textures_per_shader_stage",
            ),
            (counts[1], limits.max_samplers_per_shader_stage, "samplers", "max_samplers_per_shader_stage"),
            (
                counts[2],
                limits.max_storage_buffers_per_shader_stage,
                "storage buffers",
                "max_storage_buffers_per_shader_stage",
            ),
            (
                counts[5],
                limits.max_storage_textures_per_shader_stage,
                "storage textures",
                "max_storage_textures_per_shader_stage",
            ),
            (
                counts[6],
                limits.max_acceleration_structures_per_shader_stage,
                "acceleration structures",
                "max_acceleration_structures_per_shader_stage",
            ),
            (
                counts[3],
                limits.max_binding_array_elements_per_shader_stage,
                "binding array elements",
                "max_binding_array_elements_per_shader_stage",
            ),
            (
                counts[4],
                limits.max_binding_array_sampler_elements_per_shader_stage,
                "binding array samplers",
                "max_binding_array_sampler_elements_per_shader_stage",
            ),
        ];
        for (count, limit, what, limit_name) in checks {
            if count > limit {
                return Err(LimitErrorKind::PerStage { stage: stage_name, what, count, limit, limit_name });
            }
        }
    }
    Ok(())
}

/// The bindings visible in stage `bit`, by kind: sampled textures, samplers,
/// storage buffers, binding-array elements, binding-array samplers, storage
/// textures, acceleration structures.
fn stage_counts(
    others: &[&crate::reflect::Resource],
    vis: &[wgpu::ShaderStages],
    bit: wgpu::ShaderStages,
) -> [u32; 7] {
    let mut counts = [0u32; 7];
    for (r, v) in others.iter().zip(vis) {
        if !v.contains(bit) {
            continue;
        }
        let i = match r.kind {
            ResourceKind::Texture { .. } => 0,
            ResourceKind::Sampler { .. } => 1,
            ResourceKind::Storage { .. } => 2,
            ResourceKind::StorageTexture { .. } => 5,
            ResourceKind::AccelerationStructure { .. } => 6,
            _ => continue,
        };
        // As wgpu counts them: a binding array's elements only against
        // the binding-array limits, a plain binding against its kind's.
        if r.count > 1 {
            counts[3] = counts[3].saturating_add(r.count);
            if i == 1 {
                counts[4] = counts[4].saturating_add(r.count);
            }
        } else {
            counts[i] = counts[i].saturating_add(r.count);
        }
    }
    counts
}

/// Every stage a shared layout may be used from. Fixed, so that layouts of
/// shaders of different stages stay identical and interchangeable.
#[inline]
pub(crate) fn all_stages() -> wgpu::ShaderStages {
    wgpu::ShaderStages::VERTEX_FRAGMENT | wgpu::ShaderStages::COMPUTE
}
