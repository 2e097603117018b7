//! Per-frame statistics: what the manager uploaded and bound.

use crate::device::limits::MAX_GROUPS;
use crate::id::SlotId;

/// Counters for one frame (or one slot in one frame).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Bytes written from the CPU to the GPU.
    pub bytes_uploaded: u64,
    /// CPU→GPU upload calls (`queue.write_buffer`).
    pub upload_calls: u64,
    /// `copy_buffer_to_buffer` commands recorded.
    pub copy_commands: u64,
    /// Compute dispatches recorded by the scatter upload.
    pub dispatches: u64,
    /// `set_bind_group` calls made by the binder entries that take the
    /// manager (not `Binder::bind_prepared`, which has shared access).
    pub set_bind_group_calls: u64,
    /// Instances that had dirty bytes at flush.
    pub dirty_instances: u64,
    /// Slot buffers replaced by larger ones.
    pub buffer_growths: u64,
    /// Bind groups created.
    pub bind_groups_created: u64,
    /// Draw commands [`Binder::draw_indirect`](crate::Binder::draw_indirect)
    /// issued: one per run with indirect first instances, else one per draw.
    pub draw_calls: u64,
    /// Slots uploaded as one span from their first to their last dirty byte,
    /// because the dirty bytes covered at least the span fraction of it
    /// ([`Manager::set_span_fraction`](crate::Manager::set_span_fraction));
    /// the others moved only their dirty ranges.
    pub whole_spans: u64,
    /// Staging buffers made: the staging buffer is kept across flushes and
    /// only made again to hold a larger chunk.
    pub staging_buffers_created: u64,
}

impl Stats {
    fn add(&mut self, o: &Stats) {
        self.bytes_uploaded += o.bytes_uploaded;
        self.upload_calls += o.upload_calls;
        self.copy_commands += o.copy_commands;
        self.dispatches += o.dispatches;
        self.set_bind_group_calls += o.set_bind_group_calls;
        self.dirty_instances += o.dirty_instances;
        self.buffer_growths += o.buffer_growths;
        self.bind_groups_created += o.bind_groups_created;
        self.draw_calls += o.draw_calls;
        self.whole_spans += o.whole_spans;
        self.staging_buffers_created += o.staging_buffers_created;
    }
}

/// `set_bind_group` calls by group index and by why each was made, so that
/// every call can be accounted for: each call counts once at its group index
/// and once under one reason.
///
/// Kept as one counter per (group index, reason), so that counting a call
/// costs one addition (the binder bench's binds into a target that does
/// nothing took 10 to 13% longer with a counter per group and per reason).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BindCalls {
    counts: [[u64; Reason::COUNT]; MAX_GROUPS],
}

/// Why a `set_bind_group` call was made (see [`BindCalls`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reason {
    First,
    Layout,
    NewGroup,
    Offsets,
    Replayed,
}

impl Reason {
    const COUNT: usize = 5;
}

impl BindCalls {
    /// Counts one call at group index `group`. Cost: one addition.
    #[inline]
    pub(crate) fn count(&mut self, group: u32, reason: Reason) {
        self.counts[group as usize][reason as usize] += 1;
    }

    fn reason(&self, reason: Reason) -> u64 {
        self.counts.iter().map(|g| g[reason as usize]).sum()
    }

    /// Calls per group index.
    pub fn by_group(&self) -> [u64; MAX_GROUPS] {
        self.counts.map(|g| g.iter().sum())
    }

    /// Nothing was bound at that index yet as far as the binder knows: a new
    /// binder, [`Binder::reset`](crate::Binder::reset), or the first bind
    /// after `bind_list` or `draw_indirect`, which leave the recording's
    /// state bound without the binder holding it.
    pub fn first(&self) -> u64 {
        self.reason(Reason::First)
    }

    /// The draw's shader has another bind group layout at that index than
    /// the last draw that resolved it (a pipeline change that the layouts
    /// do not share).
    pub fn layout(&self) -> u64 {
        self.reason(Reason::Layout)
    }

    /// The same layout, another bind group: another instance owns the group
    /// (a material change), or the group was made again (a grown slot, a new texture).
    pub fn new_group(&self) -> u64 {
        self.reason(Reason::NewGroup)
    }

    /// The same bind group at other dynamic offsets (another view or object
    /// in a uniform slot, another batch of a uniform array).
    pub fn offsets(&self) -> u64 {
        self.reason(Reason::Offsets)
    }

    /// Replayed from a draw list's recording: `bind_list` once its list has
    /// one, and every `draw_indirect` call (it records into no pass first).
    pub fn replayed(&self) -> u64 {
        self.reason(Reason::Replayed)
    }

    /// Every call counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().flatten().sum()
    }

    pub(crate) fn add(&mut self, o: &BindCalls) {
        for (a, b) in self.counts.iter_mut().flatten().zip(o.counts.iter().flatten()) {
            *a += b;
        }
    }
}

/// Statistics since the last [`crate::Manager::take_stats`], in total and per slot.
#[derive(Clone, Debug, Default)]
pub struct FrameStats {
    /// Counters that belong to no one slot (bind calls, the shared staging upload).
    pub shared: Stats,
    /// Counters per slot, indexed by [`SlotId::index`].
    pub slots: Vec<Stats>,
    /// The `set_bind_group` calls of `shared` by group index and by reason
    /// (here, not in [`Stats`], so that the per-slot counters stay small).
    pub bind_calls: BindCalls,
}

impl FrameStats {
    /// Everything added up.
    pub fn total(&self) -> Stats {
        let mut t = self.shared;
        for s in &self.slots {
            t.add(s);
        }
        t
    }

    /// One slot's counters.
    pub fn slot(&self, id: SlotId) -> Stats {
        self.slots.get(id.index()).copied().unwrap_or_default()
    }

    pub(crate) fn slot_mut(&mut self, id: SlotId) -> &mut Stats {
        if self.slots.len() <= id.index() {
            self.slots.resize(id.index() + 1, Stats::default());
        }
        &mut self.slots[id.index()]
    }
}
