//! Where bind commands go ([`BindTarget`]): a render or compute pass, a
//! bundle encoder, a draw list's recorder, or nowhere ([`NoPass`], when
//! groups are only built); and the masks of group indices a bind sets.
//! Nothing here names the binder, so the draw list and the indirect runs
//! use it without using the binder.

use crate::device::limits::MAX_GROUPS;

/// Something bind groups can be set on: a render pass, compute pass or bundle encoder.
pub trait BindTarget {
    /// Forwards to the pass's `set_bind_group`.
    fn set_bind_group(&mut self, index: u32, group: &wgpu::BindGroup, offsets: &[u32]);
    /// Forwards to the pass's `set_immediates`: the element of a slab the
    /// shader finds through its immediate data (`slot/slab.rs`).
    fn set_immediates(&mut self, offset: u32, data: &[u8]);
}

macro_rules! bind_target {
    ($($t:ty),*) => {$(
        impl BindTarget for $t {
            #[inline]
            fn set_bind_group(&mut self, index: u32, group: &wgpu::BindGroup, offsets: &[u32]) {
                <$t>::set_bind_group(self, index, group, offsets);
            }
            #[inline]
            fn set_immediates(&mut self, offset: u32, data: &[u8]) {
                <$t>::set_immediates(self, offset, data);
            }
        }
    )*};
}

bind_target!(wgpu::RenderPass<'_>, wgpu::ComputePass<'_>, wgpu::RenderBundleEncoder<'_>);

/// Every group index, as a mask of the groups a bind sets.
pub(crate) const ALL_GROUPS: u32 = (1 << MAX_GROUPS) - 1;

/// A bind target that sets nothing: groups are built (and commands
/// recorded) without a pass.
pub(crate) struct NoPass;

impl BindTarget for NoPass {
    #[inline]
    fn set_bind_group(&mut self, _: u32, _: &wgpu::BindGroup, _: &[u32]) {}
    #[inline]
    fn set_immediates(&mut self, _: u32, _: &[u8]) {}
}

/// The bit mask of the group indices in `groups`.
#[inline]
pub(crate) fn mask(groups: std::ops::Range<u32>) -> u32 {
    (groups.start..groups.end.min(MAX_GROUPS as u32)).fold(0u32, |m, g| m | 1 << g)
}
