//! `BindContext`: the one borrow of the manager's state a binder takes.
//!
//! The binder's entries that build bind groups on a miss
//! ([`Binder::bind`](crate::Binder::bind), `bind_groups`, `bind_list`,
//! `bind_list_groups`, `draw_indirect`) take `&mut impl BindSource`: the
//! [`Manager`](crate::Manager) (or what derefs to it) lends a `BindContext`
//! for the call. `binding/` never names the manager.

use std::ops::DerefMut;

use crate::binding::group_layouts::Layouts;
use crate::binding::groups::BindGroups;
use crate::binding::state::{DrawInputs, GroupAccess};
use crate::device::limits::DeviceCaps;
use crate::instance::handles::InstanceTable;
use crate::registry::Registry;
use crate::slot::shadow::Slot;
use crate::stats::Stats;

/// What lends a binder the binding state: the [`Manager`](crate::Manager),
/// or what derefs to it mutably. Not an API: it lets `binding/` take the
/// manager without naming it.
pub trait BindSource {
    /// Lends the state for one binder call. Cost: a few pointer copies and
    /// the generation (two additions).
    fn bind_context(&mut self) -> BindContext<'_>;
}

/// Whatever holds the manager mutably (`&mut Manager`, a `Box`, a lock
/// guard), as a `&mut Manager` parameter accepted it by deref coercion.
impl<T> BindSource for T
where
    T: DerefMut,
    T::Target: BindSource,
{
    #[inline]
    fn bind_context(&mut self) -> BindContext<'_> {
        (**self).bind_context()
    }
}

/// The manager's binding state, lent for one binder call: what draws read,
/// the bind group cache (built on a miss), the device and the statistics.
/// Made only by the manager; its fields are the crate's.
#[derive(Debug)]
pub struct BindContext<'a> {
    pub(crate) registry: &'a Registry,
    pub(crate) layouts: &'a Layouts,
    pub(crate) slots: &'a [Slot],
    pub(crate) instances: &'a InstanceTable,
    pub(crate) groups: &'a mut BindGroups,
    pub(crate) device: &'a wgpu::Device,
    /// [`crate::Manager::device_serial`]: what the indirect argument buffer keys on.
    pub(crate) device_serial: u64,
    pub(crate) caps: &'a DeviceCaps,
    pub(crate) stats: &'a mut Stats,
    /// [`crate::Manager::generation`], fixed for the call: binding frees nothing.
    pub(crate) generation: u64,
}

impl BindContext<'_> {
    /// What one bind reads, with bind groups built on a miss. Cost: none.
    #[inline]
    pub(super) fn inputs(&mut self) -> DrawInputs<'_> {
        DrawInputs {
            registry: self.registry,
            layouts: self.layouts,
            slots: self.slots,
            instances: self.instances,
            groups: GroupAccess::Build { device: self.device, groups: self.groups, stats: self.stats },
            generation: self.generation,
        }
    }

    /// Counts `calls` `set_bind_group` calls sent to a pass. Cost: an addition.
    #[inline]
    pub(crate) fn sent(&mut self, calls: u64) {
        self.stats.set_bind_group_calls += calls;
    }
}
