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

/// What every bind reads from the manager, borrowed once
/// (`Manager::parts`, `Manager::bind_context`): the registry, the group layouts, the slots and the
/// instance table, at one generation. The three binding views hold it
/// beside how each reaches bind groups: [`BindState`] reads them frozen,
/// `DrawInputs` reads or builds them for one bind, and `BindContext` lends
/// the rest a binder call needs (device, statistics). The writes
/// (`InstanceMut`, the batches) hold the slots mutably, so they take their
/// own borrows. Copying it is free.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Parts<'a> {
    pub(crate) registry: &'a Registry,
    pub(crate) layouts: &'a Layouts,
    pub(crate) slots: &'a [Slot],
    pub(crate) instances: &'a InstanceTable,
    /// [`crate::Manager::generation`]: no bind group changes while it holds.
    pub(crate) generation: u64,
}

/// A frame's binding state, frozen: what [`crate::Binder::bind_prepared`]
/// reads. Made by [`crate::Manager::prepare`] and [`crate::Manager::state`];
/// copying it is free.
#[derive(Clone, Copy, Debug)]
pub struct BindState<'m> {
    pub(crate) parts: Parts<'m>,
    pub(crate) groups: &'m BindGroups,
}

impl BindState<'_> {
    /// The manager's generation this state was taken at.
    #[inline]
    pub fn generation(&self) -> u64 {
        self.parts.generation
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

/// Everything one bind reads: the manager's parts, and how it gets bind groups.
#[derive(Debug)]
pub(super) struct DrawInputs<'a> {
    pub(super) parts: Parts<'a>,
    pub(super) groups: GroupAccess<'a>,
}

impl<'a> From<BindState<'a>> for DrawInputs<'a> {
    #[inline]
    fn from(s: BindState<'a>) -> Self {
        Self { parts: s.parts, groups: GroupAccess::Shared(s.groups) }
    }
}
