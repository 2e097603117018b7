//! `BindContext`: the one borrow of the manager's state a binder takes.
//!
//! The binder's entries that build bind groups on a miss
//! ([`Binder::bind`](crate::Binder::bind), `bind_groups`, `bind_list`,
//! `bind_list_groups`, `draw_indirect`) take `&mut Manager`; they are
//! written in `manager/bind.rs`, where the manager lends a `BindContext` for
//! the call, and hand it to the bind path here. `binding/` never names the
//! manager.

use crate::binding::groups::BindGroups;
use crate::binding::state::{DrawInputs, GroupAccess, Parts};
use crate::device::limits::DeviceCaps;
use crate::stats::{BindCalls, FrameStats};

/// The manager's binding state, lent for one binder call: what draws read,
/// the bind group cache (built on a miss), the device and the statistics.
/// Made only by the manager (`Manager::bind_context`).
#[derive(Debug)]
pub(crate) struct BindContext<'a> {
    /// [`crate::Manager::generation`] is fixed for the call: binding frees nothing.
    pub(crate) parts: Parts<'a>,
    pub(crate) groups: &'a mut BindGroups,
    pub(crate) device: &'a wgpu::Device,
    /// [`crate::Manager::device_serial`]: what the indirect argument buffer keys on.
    pub(crate) device_serial: u64,
    pub(crate) caps: &'a DeviceCaps,
    pub(crate) stats: &'a mut FrameStats,
}

impl BindContext<'_> {
    /// What one bind into a pass reads, with bind groups built on a miss
    /// and the calls counted in the statistics. Cost: none.
    #[inline]
    pub(super) fn inputs(&mut self) -> DrawInputs<'_> {
        self.draw_inputs(true)
    }

    /// [`BindContext::inputs`] for binds into no pass: nothing is counted.
    #[inline]
    pub(super) fn uncounted(&mut self) -> DrawInputs<'_> {
        self.draw_inputs(false)
    }

    #[inline]
    fn draw_inputs(&mut self, count: bool) -> DrawInputs<'_> {
        DrawInputs {
            parts: self.parts,
            groups: GroupAccess::Build { device: self.device, groups: self.groups, stats: self.stats, count },
        }
    }

    /// Counts the `set_bind_group` calls sent to a pass. Cost: a few additions.
    #[inline]
    pub(crate) fn sent(&mut self, calls: &BindCalls) {
        self.stats.shared.set_bind_group_calls += calls.total();
        self.stats.bind_calls.add(calls);
    }
}
