//! Array slots: `var<storage, read> objects: array<Object>` at a planned binding.
//!
//! Use an array slot instead of a uniform slot for data with one element per
//! instance that many draws read, usually objects: its group is bound once
//! per pass and each draw passes its element as the instance index
//! (`first_instance`), so a draw costs no `set_bind_group`, and elements sit
//! at the struct's own stride instead of 256-byte steps. Keep uniform slots
//! for frame, view and material data, and for shaders that instance draws
//! themselves.
//!
//! A device that cannot read storage buffers in the vertex stage (no
//! `DownlevelFlags::VERTEX_STORAGE`, or `max_storage_buffers_per_shader_stage`
//! of 0, as on WebGL2) gets batches of a uniform array instead, as Bevy's
//! `BatchedUniformBuffer` does: the declaration is rewritten to
//! `var<uniform> objects: array<Object, N>`, a batch of `N` elements is bound
//! at a dynamic offset, and the instance index counts within the batch. Values,
//! params and flush are the same either way.

use std::num::NonZeroU32;

use naga::{AddressSpace, ArraySize, TypeInner};

use crate::reflect::{Resource, ShaderReflection};

/// How draws address a slot's instances on the manager's device
/// ([`Manager::slot_addressing`](crate::Manager::slot_addressing)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Addressing {
    /// A uniform block: instances a stride apart, a dynamic offset per draw.
    Dynamic,
    /// An array slot in a storage buffer bound whole; the instance index picks the element.
    Storage,
    /// An array slot as a uniform array of `per` elements (no storage buffers
    /// in every stage, as on WebGL2): a dynamic offset per batch, the
    /// instance index within it.
    Batched {
        /// Elements per batch.
        per: u32,
    },
}

impl Addressing {
    /// How an array slot with elements `stride` bytes apart is addressed on a
    /// device with `limits`, which can (`storage`) or cannot read storage
    /// buffers in every stage.
    pub(crate) fn for_array(storage: bool, limits: &wgpu::Limits, stride: u32) -> Self {
        if storage { Self::Storage } else { Self::Batched { per: batch_len(limits, stride).max(1) } }
    }
}

/// Elements per uniform batch: as many as one uniform binding holds, such
/// that a batch starts at an allowed dynamic offset. 0 when none fits.
pub(crate) fn batch_len(limits: &wgpu::Limits, stride: u32) -> u32 {
    let align = limits.min_uniform_buffer_offset_alignment;
    let step = align / gcd(stride, align);
    let fit = (limits.max_uniform_buffer_binding_size / stride.max(1) as u64).min(u32::MAX as u64) as u32;
    fit / step * step
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The shader's module with every array slot declared as a uniform array of
/// its batch length, for devices without vertex storage. Errs with the array
/// slot that cannot be a uniform array and why (the caller validates the result).
pub(crate) fn batched_module<'s>(
    shader: &'s ShaderReflection,
    limits: &wgpu::Limits,
) -> Result<naga::Module, (&'s Resource, String)> {
    let mut module = shader.module().clone();
    for r in shader.used_resources().filter(|r| r.is_array_slot()) {
        let fail = |why: String| (r, why);
        // A slab's element is any a pointer names, not one within the draw's batch.
        let through = shader.indexing().iter().find_map(|i| match &i.by {
            crate::reflect::IndexSource::Member { array, member, .. } if i.array == r.binding => {
                shader.resource(*array).filter(|a| a.is_array_slot()).map(|_| member)
            }
            _ => None,
        });
        if let Some(member) = through {
            return Err(fail(format!(
                "it is a slab, found through member `{member}` of another array, and a uniform batch holds only the elements near the draw's; register the permutation without slabs on this device (Bevy's BINDLESS off)"
            )));
        }
        let Some((_, var)) =
            module.global_variables.iter_mut().find(|(_, v)| v.binding.map(Into::into) == Some(r.binding))
        else {
            continue;
        };
        let TypeInner::Array { base, stride, .. } = module.types[var.ty].inner else {
            continue;
        };
        if stride % 16 != 0 {
            return Err(fail(format!(
                "its elements are {stride} bytes apart, and uniform arrays need a multiple of 16"
            )));
        }
        let per = NonZeroU32::new(batch_len(limits, stride)).ok_or_else(|| {
            fail(format!(
                "one {stride}-byte element does not fit max_uniform_buffer_binding_size ({})",
                limits.max_uniform_buffer_binding_size
            ))
        })?;
        let inner = TypeInner::Array { base, size: ArraySize::Constant(per), stride };
        var.ty = module.types.insert(naga::Type { name: None, inner }, naga::Span::UNDEFINED);
        var.space = AddressSpace::Uniform;
    }
    Ok(module)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_start_at_allowed_offsets_and_fit_one_binding() {
        let limits = wgpu::Limits::defaults();
        for stride in [16, 48, 64, 80, 96, 144, 256, 272, 1024] {
            let per = batch_len(&limits, stride);
            assert!(per > 0, "stride {stride}");
            assert_eq!(per as u64 * stride as u64 % 256, 0, "stride {stride}");
            assert!(per as u64 * stride as u64 <= limits.max_uniform_buffer_binding_size);
        }
        assert_eq!(batch_len(&limits, 80), 816);
        assert_eq!(batch_len(&limits, 70_000), 0);
    }
}
