//! `BindState`: what binders read for one frame, frozen.
//!
//! A binder with exclusive access to the manager ([`crate::Binder::bind`])
//! builds a missing bind group on the spot. A `BindState` is the read-only
//! view [`crate::Manager::prepare`] returns once every group of a frame's
//! draws is built: it is `Copy`, `Send` and `Sync`, so each encoding thread
//! takes one and binds with [`crate::Binder::bind_prepared`], and it cannot
//! change under them, since it borrows the manager.

use crate::binding::group_layouts::Layouts;
use crate::binding::groups::BindGroups;
use crate::instance::handles::InstanceTable;
use crate::registry::Registry;
use crate::slot::shadow::Slot;
use crate::stats::FrameStats;

/// A frame's binding state, frozen: what [`crate::Binder::bind_prepared`]
/// reads. Made by [`crate::Manager::prepare`] and [`crate::Manager::state`];
/// copying it is free.
#[derive(Clone, Copy, Debug)]
pub struct BindState<'m> {
    pub(crate) registry: &'m Registry,
    pub(crate) layouts: &'m Layouts,
    pub(crate) slots: &'m [Slot],
    pub(crate) instances: &'m InstanceTable,
    pub(crate) groups: &'m BindGroups,
    /// [`crate::Manager::generation`]: no bind group changed while it holds.
    pub(crate) generation: u64,
}

impl BindState<'_> {
    /// The manager's generation this state was taken at.
    #[inline]
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// Bind groups for one bind: built on a miss (exclusive access to the
/// manager), or only read from a frozen state.
#[derive(Debug)]
pub(super) enum GroupAccess<'a> {
    /// `count`: the binds reach a pass, so they count in `stats`
    /// (not where groups are built into no pass: `prepare`, a recording).
    Build {
        device: &'a wgpu::Device,
        groups: &'a mut BindGroups,
        stats: &'a mut FrameStats,
        count: bool,
    },
    Shared(&'a BindGroups),
}

/// Everything one bind reads: the frame's state, and how it gets bind groups.
#[derive(Debug)]
pub(super) struct DrawInputs<'a> {
    pub(super) registry: &'a Registry,
    pub(super) layouts: &'a Layouts,
    pub(super) slots: &'a [Slot],
    pub(super) instances: &'a InstanceTable,
    pub(super) groups: GroupAccess<'a>,
    pub(super) generation: u64,
}

impl<'a> From<BindState<'a>> for DrawInputs<'a> {
    #[inline]
    fn from(s: BindState<'a>) -> Self {
        let BindState { registry, layouts, slots, instances, groups, generation } = s;
        Self { registry, layouts, slots, instances, groups: GroupAccess::Shared(groups), generation }
    }
}
