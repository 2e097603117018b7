//! The draw binder: sets only the bind groups and dynamic offsets that changed.
//!
//! Uniform slots are bound with dynamic offsets; textures, samplers and storage
//! buffers belong to the instance of the group's frequency (usually the
//! material), which owns one bind group per variant.
//!
//! Every way of binding goes through one path, `bind_resolved`: resolve each
//! group of the draw's shader to a bind group and offsets (skipped while its
//! inputs hold), then set it unless the same (bind group, offsets) is bound.
//! [`Binder::bind_prepared`] reads a frozen [`BindState`]; [`Binder::bind`]
//! and [`Binder::bind_groups`] borrow the manager's state as a
//! [`BindContext`] and build groups on a miss; draw lists (`list.rs`),
//! indirect runs (`indirect.rs`) and bundle encoders go through the same path.
//!
//! The path counts the calls it makes in [`Binder::calls`]; an entry that
//! borrows the manager adds the calls sent to the application's pass to its
//! statistics. Groups built into no pass ([`NoPass`]) use a scratch binder,
//! so nothing is counted there.

use std::sync::atomic::Ordering;

use smallvec::SmallVec;

use crate::binding::context::BindContext;
use crate::binding::draw::Draw;
use crate::binding::groups::GroupInputs;
use crate::binding::state::{BindState, DrawInputs, GroupAccess, Parts};
use crate::binding::target::{ALL_GROUPS, BindTarget, NoPass};
use crate::device::limits::MAX_GROUPS;
use crate::errors::Error;
use crate::id::{ShaderId, SlotId};
use crate::instance::family::FamilyId;
use crate::instance::handles::{NOT_GIVEN, checked};
use crate::registry::Registry;
use crate::slot::array::Addressing;
use crate::slot::plan::Frequency;
use crate::slot::shadow::Slot;
use crate::slot::slab::Link;
use crate::stats::Reason;

/// What is bound at one group index: the bind group's serial (0: nothing)
/// and its dynamic offsets. The binder decides what to set by comparing
/// these alone, as wgpu-core's binder does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct BoundGroup {
    serial: u64,
    offsets: SmallVec<[u32; Frequency::COUNT]>,
}

/// The inputs one group index was last resolved from. While they hold, the
/// group resolves to what is bound, so the slot and bind group lookups are
/// skipped: for the frame and view groups that is most draws. Without it the
/// binder bench took 1.59× (10k draws) to 1.69× (100k) as long (docs/perf.md).
#[derive(Clone, Debug, Default)]
struct Memo {
    /// Whether the inputs below decide the bind group and offsets alone (no
    /// array slot, whose element varies per draw).
    reusable: bool,
    /// The manager (its registry's tag), its generation and the variant.
    tag: u32,
    generation: u64,
    variant: u32,
    /// Frequencies whose dense index the group depends on, and those indices.
    deps: u8,
    index: [u32; Frequency::COUNT],
}

impl Memo {
    /// Whether these inputs resolve to what was resolved last: bind groups
    /// change only when the generation moves.
    #[inline]
    fn holds(&self, tag: u32, generation: u64, variant: u32, index: &[u32; Frequency::COUNT]) -> bool {
        self.reusable
            && self.variant == variant
            && self.generation == generation
            && self.tag == tag
            && (0..Frequency::COUNT).all(|f| self.deps & (1 << f) == 0 || self.index[f] == index[f])
    }
}

/// Tracks what one pass has bound, so that each draw sets only what changed.
///
/// Make one per pass (or call [`Binder::reset`] when starting a new pass); bind
/// groups stay bound across `set_pipeline` as WebGPU specifies, so a shader
/// switch alone sets no bind group.
///
/// A shader that finds a slab's element through its immediate data
/// (`materials[imm.material]`) gets that element set with `set_immediates`
/// by the bind, unless the previous bind was of the same shader and set the
/// same element. wgpu clears immediates when `set_pipeline` changes the
/// pipeline layout, so set the pipeline before the bind of its first draw;
/// a pipeline set between two binds of one shader without a bind of its own
/// (a shader freqbuf does not bind) needs [`Binder::reset`] first. The
/// element goes only where the slab's group is among those bound
/// ([`Binder::bind_groups`]), 4 bytes at the member's offset: the
/// application's own `set_immediates` must not overlap them.
///
/// The entries that build bind groups on a miss take the
/// [`Manager`](crate::Manager) (`&mut Manager`; a box or guard of one
/// coerces), which lends its binding state for the call.
#[derive(Debug, Default)]
pub struct Binder {
    /// Per group index, side by side: one cache line per group a draw checks.
    groups: [(Memo, BoundGroup); MAX_GROUPS],
    /// `set_bind_group` calls sent to passes (replays included).
    pub(super) calls: u64,
    /// The shader (tag and index) whose immediates were last set, and the
    /// (offset, element) pairs set since.
    immediates: (Option<ShaderId>, SmallVec<[(u32, u32); 2]>),
}

impl Binder {
    /// A binder for a new pass.
    #[inline]
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets what is bound (use it when reusing the binder for a new pass).
    #[inline]
    pub fn reset(&mut self) {
        self.groups = Default::default();
        self.immediates = Default::default();
    }

    /// `set_bind_group` calls this binder has sent to passes, replays of
    /// recorded commands included (the manager's statistics count only those
    /// of the entries that take it, not [`Binder::bind_prepared`]'s).
    #[inline]
    pub fn calls(&self) -> u64 {
        self.calls
    }

    /// Like [`Binder::bind`](Binder::bind) on a frozen [`BindState`], so
    /// that several threads, each with its own binder and pass or bundle
    /// encoder, encode one frame's draws at once. Every bind group the draw
    /// needs must have been built by [`crate::Manager::prepare`] (or an
    /// exclusive bind) since it last changed, else [`Error::NotPrepared`].
    /// Its `set_bind_group` calls are counted by [`Binder::calls`], not in
    /// the manager's statistics.
    ///
    /// Cost: as [`Binder::bind`](Binder::bind), never building anything.
    #[inline]
    pub fn bind_prepared<P: BindTarget>(
        &mut self,
        state: &BindState<'_>,
        pass: &mut P,
        draw: &Draw,
    ) -> Result<u32, Error> {
        self.bind_with((*state).into(), pass, draw, ALL_GROUPS)
    }

    /// One bind with the manager's state: groups built on a miss, and the
    /// calls sent to `pass` added to its statistics, on error too.
    #[inline]
    pub(crate) fn bind_counted<P: BindTarget>(
        &mut self,
        cx: &mut BindContext<'_>,
        pass: &mut P,
        draw: &Draw,
        mask: u32,
    ) -> Result<u32, Error> {
        self.bind_with(cx.inputs(), pass, draw, mask)
    }

    /// Builds every bind group `draws` need, for [`crate::Manager::prepare`]:
    /// a scratch binder binds them into no pass, so nothing is counted.
    /// Cost: one [`Binder::bind`] per draw, without a pass.
    pub(crate) fn build_groups<'d>(
        cx: &mut BindContext<'_>,
        draws: impl IntoIterator<Item = &'d Draw>,
    ) -> Result<(), Error> {
        let mut scratch = Binder::new();
        draws
            .into_iter()
            .try_for_each(|d| scratch.bind_with(cx.uncounted(), &mut NoPass, d, ALL_GROUPS).map(drop))
    }

    /// Binds the groups in `mask` that `draw` needs. The hot path: no
    /// allocation, a few array lookups per group.
    #[inline]
    pub(super) fn bind_with<P: BindTarget>(
        &mut self,
        inputs: DrawInputs<'_>,
        pass: &mut P,
        draw: &Draw,
        mask: u32,
    ) -> Result<u32, Error> {
        let index = inputs.parts.instances.dense(draw.keys());
        self.bind_resolved(inputs, pass, draw.shader(), index, mask)
    }

    /// [`Binder::bind_with`] for a draw whose instances are already resolved
    /// to dense indices (or the `instance` markers), as a [`DrawList`](crate::DrawList) holds them.
    ///
    /// Over 80 lines on purpose: split into four helpers (the element checks,
    /// the slab pointer, the cached group, the ready shader) it took 10 to 12%
    /// longer in the binder bench (`reference_scene_10k_draws` 242 -> 273 µs,
    /// `prepared_shared_10k_draws` 238 -> 266 µs, lavapipe, 2 cores).
    #[inline]
    pub(super) fn bind_resolved<P: BindTarget>(
        &mut self,
        inputs: DrawInputs<'_>,
        pass: &mut P,
        shader_id: ShaderId,
        index: [u32; Frequency::COUNT],
        mask: u32,
    ) -> Result<u32, Error> {
        let DrawInputs { parts: Parts { registry, layouts, slots, instances, generation }, mut groups } =
            inputs;
        // Another shader's pipeline may have another layout, which cleared the immediates.
        if self.immediates.0.is_some_and(|s| s != shader_id) {
            self.immediates = Default::default();
        }
        let si = shader_id.index();
        let shader = match layouts.shaders.get(si) {
            Some(s) if registry.owns(shader_id) => s,
            _ => return Err(Error::UnknownShader(si)),
        };
        if !shader.ready.load(Ordering::Relaxed) {
            layouts.check_ready(si, mask, slots)?;
        }
        let instance = |f: Frequency| match index[f.index()] {
            NOT_GIVEN => Err(missing_instance(registry, shader_id, f)),
            i => checked(i, f),
        };
        // The draw's instance index: its element in the shader's array slots.
        let mut first = 0;
        let tag = shader_id.tag();
        for &(group, vid) in &layouts.shaders[si].groups {
            if mask & (1 << group) == 0 {
                continue;
            }
            if self.groups[group as usize].0.holds(tag, generation, vid.0, &index) {
                continue;
            }
            let v = &layouts.variants[vid.0 as usize];
            let mut offsets = SmallVec::<[u32; Frequency::COUNT]>::new();
            let (mut deps, mut reusable) = (0u8, v.arrays.is_empty());
            for &s in &v.uniforms {
                let slot = &slots[s.index()];
                deps |= 1 << slot.frequency() as u8;
                let i = instance(slot.frequency())?;
                same_family(registry, shader_id, s, || instances.family(slot.frequency(), i))?;
                // The GPU copy is laid out as of the last flush: its stride and capacity.
                if i >= slot.gpu_capacity() {
                    return Err(Error::NotFlushed(slot.frequency()));
                }
                if slot.unwritten(i) {
                    return Err(unwritten(slot, i));
                }
                match slot.addressing() {
                    Addressing::Batched { per } => {
                        reusable = false;
                        first = i % per;
                        offsets.push((i - first) * slot.gpu_stride());
                    }
                    _ => offsets.push(i * slot.gpu_stride()),
                }
            }
            for (k, &s) in v.arrays.iter().enumerate() {
                let slot = &slots[s.index()];
                let i = instance(slot.frequency())?;
                same_family(registry, shader_id, s, || instances.family(slot.frequency(), i))?;
                if i >= slot.gpu_capacity() {
                    return Err(Error::NotFlushed(slot.frequency()));
                }
                if slot.unwritten(i) {
                    return Err(unwritten(slot, i));
                }
                if v.slabs & (1 << k) == 0 {
                    first = i;
                    continue;
                }
                // A slab: the draw's object must point at element `i`, on the GPU too
                // (unless the application points into it itself: no link), or
                // the immediate data must hold it.
                let link = registry.links(shader_id).iter().find(|l| l.to == s.index());
                match link {
                    Some(link @ &Link { from: None, offset, mask, .. }) => {
                        if i & mask != i {
                            return Err(super::link::slab_full(registry, shader_id, link, i));
                        }
                        self.immediate(pass, shader_id, offset, i);
                    }
                    // Rows the application owns hold the pointers it packed.
                    Some(link @ &Link { from: Some(k), .. }) if !slots[k].caller_owned() => {
                        let from = slots[k].frequency();
                        if !super::link::points_at(slots, k, link, instance(from)?, i) {
                            return Err(super::link::unlinked(
                                registry,
                                shader_id,
                                link,
                                from,
                                slot.frequency(),
                            ));
                        }
                        if instances.links().pending() {
                            return Err(Error::NotFlushed(from));
                        }
                    }
                    _ => {}
                }
            }
            let (owner, owned) = match v.owner {
                Some(f) => {
                    deps |= 1 << f as u8;
                    let i = instance(f)?;
                    (i, instances.resources(f, i))
                }
                None => (0, None),
            };
            // Both counters only grow: their sum moves when either does.
            let stamp = owned.map_or(0, |r| r.epoch) + if v.tables { instances.tables().epoch() } else { 0 };
            let cached = match &mut groups {
                GroupAccess::Build { device, groups, stats, .. } => match groups.get(vid, owner, stamp) {
                    Some(c) => c,
                    None => {
                        stats.shared.bind_groups_created += 1;
                        let inputs =
                            GroupInputs { device, registry, slots, owned, tables: instances.tables() };
                        groups.build(vid, v, owner, stamp, inputs)?
                    }
                },
                GroupAccess::Shared(groups) => groups.get(vid, owner, stamp).ok_or_else(|| {
                    Error::NotPrepared { shader: registry[shader_id].name().to_owned(), group }
                })?,
            };
            let (memo, bound) = &mut self.groups[group as usize];
            let was = (memo.tag, memo.variant);
            *memo = Memo { reusable, tag, generation, variant: vid.0, deps, index };
            // The comparison wgpu-core's binder makes: (bind group, offsets).
            if bound.serial == cached.serial && same(&bound.offsets, &offsets) {
                continue;
            }
            let reason = match () {
                () if bound.serial == 0 => Reason::First,
                () if was.0 == tag && was.1 != vid.0 => Reason::Layout,
                () if bound.serial != cached.serial => Reason::NewGroup,
                () => Reason::Offsets,
            };
            pass.set_bind_group(group, &cached.group, &offsets);
            *bound = BoundGroup { serial: cached.serial, offsets };
            self.calls += 1;
            // Only the manager's statistics say why: a binder with shared access pays nothing.
            if let GroupAccess::Build { stats, count: true, .. } = &mut groups {
                stats.shared.set_bind_group_calls += 1;
                stats.bind_calls.count(group, reason);
            }
        }
        Ok(first)
    }
}

impl Binder {
    /// Sets element `e` at `offset` of `shader`'s immediate data, unless the
    /// binds since the last of another shader set it (`bind_resolved`
    /// forgets what was set when the shader changes: the new pipeline's
    /// layout may have cleared it).
    #[inline]
    fn immediate<P: BindTarget>(&mut self, pass: &mut P, shader: ShaderId, offset: u32, e: u32) {
        let (last, set) = &mut self.immediates;
        *last = Some(shader);
        match set.iter_mut().find(|(o, _)| *o == offset) {
            Some((_, v)) if *v == e => return,
            Some((_, v)) => *v = e,
            None => set.push((offset, e)),
        }
        pass.set_immediates(offset, &e.to_le_bytes());
    }
}

/// A draw's instance made in another family than the shader's per-family
/// slot `slot` is refused: its index there is another family's instance (a
/// placeholder, or another material's values). An instance of no family may
/// be drawn with any. Checked only where a group is resolved again.
///
/// The instance's family is looked up only for a per-family slot: for the
/// shared ones (objects, views) that skips a read per draw from an array as
/// long as the instances.
#[inline]
fn same_family(
    registry: &Registry,
    shader: ShaderId,
    slot: SlotId,
    own: impl FnOnce() -> Option<FamilyId>,
) -> Result<(), Error> {
    match registry[slot].family_id() {
        Some(fam) => match own() {
            Some(own) if own != fam => Err(other_family(registry, shader, slot, fam, own)),
            _ => Ok(()),
        },
        None => Ok(()),
    }
}

/// The error for a draw whose instance is of another family; out of line,
/// so that the checks around it stay small enough to inline.
#[cold]
#[inline(never)]
fn other_family(registry: &Registry, shader: ShaderId, slot: SlotId, fam: FamilyId, own: FamilyId) -> Error {
    Error::OtherFamily {
        shader: registry[shader].name().to_owned(),
        frequency: registry[slot].frequency(),
        shader_family: registry.family_name(fam).to_owned(),
        instance_family: registry.family_name(own).to_owned(),
    }
}

/// The error for a draw without an instance of a frequency its shader reads.
#[cold]
#[inline(never)]
fn missing_instance(registry: &Registry, shader: ShaderId, frequency: Frequency) -> Error {
    Error::MissingInstance { shader: registry[shader].name().to_owned(), frequency }
}

/// Slice equality without a call to `memcmp`, which costs more than the one to
/// four offsets a group has (it was 40% of the binder's time).
#[inline]
fn same(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// A draw reads row `index` of a caller-owned slot that no write has packed.
#[cold]
fn unwritten(slot: &Slot, index: u32) -> Error {
    let kind = crate::error::RowsErrorKind::Unwritten { frequency: slot.frequency(), index };
    Error::Rows { binding: slot.binding(), kind }
}
