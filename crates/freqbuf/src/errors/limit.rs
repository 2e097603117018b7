//! Limit errors: a shader that needs more than the device allows.

use super::location::Location;
use crate::slot::plan::BindingPoint;

/// What `limits::check` finds: converted to [`Error::Limit`](super::Error::Limit) with the shader's name.
#[derive(Clone, Debug)]
pub(crate) struct LimitError {
    pub(crate) binding: Option<(BindingPoint, String)>,
    pub(crate) location: Option<Location>,
    pub(crate) kind: LimitErrorKind,
}

/// What an [`Error::Limit`](crate::Error::Limit) is about: a shader that needs more than the device allows.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LimitErrorKind {
    /// The shader reads more immediate data than the device's `max_immediate_size`.
    #[error(
        "the shader reads {size} bytes of immediate data, over the limit of {limit} (max_immediate_size)"
    )]
    ImmediateSize {
        /// Bytes its `var<immediate>` takes.
        size: u32,
        /// The device's limit.
        limit: u32,
    },
    /// The group index is at or past the device's `max_bind_groups`.
    #[error("group {group} is past the device's last bind group (max_bind_groups = {limit})")]
    Group {
        /// The group index.
        group: u32,
        /// The number of groups the device allows.
        limit: u32,
    },
    /// The binding number is at or past `max_bindings_per_bind_group`.
    #[error("binding number {binding} is past the device's limit (max_bindings_per_bind_group = {limit})")]
    Binding {
        /// The binding number.
        binding: u32,
        /// The limit.
        limit: u32,
    },
    /// More bindings of a kind in one pipeline layout than the device allows.
    #[error("the shader uses {count} {what}, over the limit of {limit} ({limit_name})")]
    PerPipeline {
        /// What is counted.
        what: &'static str,
        /// How many the shader uses.
        count: u32,
        /// The device's limit.
        limit: u32,
        /// The `wgpu::Limits` field.
        limit_name: &'static str,
    },
    /// More bindings of a kind in one shader stage than the device allows.
    #[error("the {stage} stage uses {count} {what}, over the limit of {limit} ({limit_name})")]
    PerStage {
        /// The stage.
        stage: &'static str,
        /// What is counted.
        what: &'static str,
        /// How many the stage sees.
        count: u32,
        /// The device's limit.
        limit: u32,
        /// The `wgpu::Limits` field.
        limit_name: &'static str,
    },
    /// A binding array without a fixed size.
    #[error(
        "a binding array without a fixed size takes its length from the device's binding-array limits, and this device has no binding arrays; give the array a length"
    )]
    UnsizedBindingArray,
    /// A binding array shares its bind group with a uniform block, which wgpu forbids.
    #[error("a binding array may not share its group with the uniform block `{uniform}`; move one of them")]
    ArrayBesideUniform {
        /// The uniform block in the same group.
        uniform: String,
    },
    /// The device cannot read storage buffers in every stage, and an array
    /// slot cannot fall back to a batched uniform array.
    #[error(
        "the device cannot read storage buffers in every stage (DownlevelFlags::VERTEX_STORAGE, max_storage_buffers_per_shader_stage), and the array slot cannot fall back to a uniform array: {why}"
    )]
    ArrayFallback {
        /// Why not.
        why: String,
    },
    /// A buffer whose type is not a multiple of 16 bytes, on a device
    /// without `DownlevelFlags::BUFFER_BINDINGS_NOT_16_BYTE_ALIGNED` (WebGL2).
    #[error(
        "its type is {size} bytes, and this device needs buffer types of a multiple of 16 bytes (no DownlevelFlags::BUFFER_BINDINGS_NOT_16_BYTE_ALIGNED, as on WebGL2); pad the struct to {} bytes",
        size.next_multiple_of(16)
    )]
    Unaligned16 {
        /// Bytes the buffer's type takes.
        size: u32,
    },
    /// A uniform block holds a `matCx2`, which wgpu's GL backend lays out
    /// wrongly (wgpu#4371): use `vec2` members, or a storage buffer.
    #[error(
        "it holds a {ty}, and on wgpu's GL backend (WebGL2 included) naga's GLSL gives a uniform block's {ty} 16-byte columns where WGSL's are 8 bytes apart, so the shader would read wrong values (wgpu#4371); declare its columns as vec2<f32> members, or use a storage buffer"
    )]
    GlMatrix {
        /// The matrix type, in WGSL (`mat2x2`).
        ty: String,
    },
    /// The shader needs a capability the device's features do not give
    /// (f16, f64, i64, non-uniform indexing of binding arrays, ...).
    #[error("the device cannot run this shader{}", needs.map_or_else(String::new, |f| format!(" without Features::{f}")))]
    Capability {
        /// The wgpu feature that gives the capability, where freqbuf knows it.
        needs: Option<&'static str>,
        /// naga's validation error, with its spans.
        #[source]
        source: Box<naga::WithSpan<naga::valid::ValidationError>>,
    },
}

/// Kinds are equal when they are the same failure: naga's errors, which have
/// no `PartialEq`, compare by their messages.
impl PartialEq for LimitErrorKind {
    fn eq(&self, other: &Self) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other) && self.to_string() == other.to_string()
    }
}

impl Eq for LimitErrorKind {}
