//! `DrawList`: draws whose instance handles are resolved once.
//!
//! Use a draw list instead of binding [`Draw`]s one by one when the same
//! draws are encoded frame after frame (Unreal's cached mesh draw commands):
//! each handle is looked up once, when the list is made, instead of once per
//! draw per frame, which at 100,000 objects is a cache miss per draw. Values,
//! flushes, buffer growth and new resources need no new list; freeing any
//! instance does (its index may go to another handle), and binding a stale
//! list is [`Error::StaleList`]. For draws that change every frame, bind
//! [`Draw`]s; for draws that never change, replay a render bundle.
//!
//! A list also keeps the bind commands its last encode made (bind group,
//! dynamic offsets, immediates, first instance), and replays them while the manager's
//! generation holds: bind groups and offsets change only when it moves.
//! [`Binder::bind_list`](crate::Binder::bind_list) binds a list and records
//! it (`replay.rs`); indirect runs replay the same recording (`indirect.rs`).
//! Nothing here names the binder.

use std::collections::HashMap;

use smallvec::SmallVec;

use crate::binding::context::BindContext;
use crate::binding::draw::Draw;
use crate::binding::target::BindTarget;
use crate::errors::Error;
use crate::id::ShaderId;
use crate::instance::handles::{InstanceTable, NOT_GIVEN, checked};
use crate::registry::Registry;
use crate::slot::plan::Frequency;
use crate::slot::slab::Links;
use crate::stats::{BindCalls, Reason};

/// Draws with their instances resolved to slot indices, made by
/// [`crate::Manager::draw_list`] and bound by [`crate::Binder::bind_list`].
#[derive(Clone, Debug)]
pub struct DrawList {
    /// The manager's registry tag and its free count when the list was made.
    tag: u32,
    frees: u64,
    /// Unique per list made (clones share it: they hold the same draws).
    serial: u64,
    pub(super) draws: Vec<(ShaderId, [u32; Frequency::COUNT])>,
    /// For a list with slab draws: the pointer moves when it was made, and
    /// the flush count if its pointers were not flushed yet (`slot/slab.rs`).
    links: Option<(u64, Option<u64>)>,
    /// The bind commands of the last encode, if it bound every draw.
    pub(super) recorded: Option<Recorded>,
}

/// The bind commands one encode of a list made, from a binder with nothing bound.
#[derive(Clone, Debug, Default)]
pub(crate) struct Recorded {
    /// The manager's generation and the groups bound (a bit per group index).
    pub(crate) generation: u64,
    pub(crate) mask: u32,
    groups: Vec<wgpu::BindGroup>,
    /// (group index, bind group in `groups`, dynamic offsets), in order; an
    /// immediate is (`IMMEDIATE`, element, `[offset]`).
    cmds: Vec<(u32, u32, SmallVec<[u32; Frequency::COUNT]>)>,
    /// How many of `cmds` are `set_bind_group` calls.
    binds: u64,
    /// Per draw: where its commands end in `cmds`, and its first instance.
    pub(crate) draws: Vec<(u32, u32)>,
    /// [`Recorded::counts`], boxed: inline, its 320 bytes made the replay
    /// loop of the binder bench's listed draws 10 to 40% slower.
    counts: Box<BindCalls>,
}

impl Recorded {
    /// Sets draw `i`'s bind groups on `pass` and returns its first instance.
    #[inline]
    pub(crate) fn replay<P: BindTarget>(&self, pass: &mut P, i: usize) -> u32 {
        self.replay_commands(pass, self.commands(i));
        self.draws[i].1
    }

    /// Draw `i`'s bind commands: where they are in the recording.
    #[inline]
    pub(crate) fn commands(&self, i: usize) -> std::ops::Range<u32> {
        let start = if i == 0 { 0 } else { self.draws[i - 1].0 };
        start..self.draws[i].0
    }

    /// `set_bind_group` calls one replay of every command makes.
    #[inline]
    pub(crate) fn calls(&self) -> u64 {
        self.binds
    }

    /// Commands recorded: bind groups and immediates.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.cmds.len()
    }

    /// Those calls by group index, all replays, counted as they were recorded.
    #[inline]
    pub(crate) fn counts(&self) -> &BindCalls {
        &self.counts
    }

    /// Sets the bind groups of the commands in `range` on `pass`.
    #[inline]
    pub(crate) fn replay_commands<P: BindTarget>(&self, pass: &mut P, range: std::ops::Range<u32>) {
        for (group, k, offsets) in &self.cmds[range.start as usize..range.end as usize] {
            match *group {
                IMMEDIATE => pass.set_immediates(offsets[0], &k.to_le_bytes()),
                g => pass.set_bind_group(g, &self.groups[*k as usize], offsets),
            }
        }
    }
}

/// The group index that marks a recorded `set_immediates`.
const IMMEDIATE: u32 = u32::MAX;

/// A bind target that forwards to `pass` and records what it is given.
#[derive(Debug)]
pub(super) struct Recorder<'a, P> {
    pub(super) pass: &'a mut P,
    pub(super) recorded: Recorded,
    index: HashMap<wgpu::BindGroup, u32>,
}

impl<'a, P: BindTarget> Recorder<'a, P> {
    pub(super) fn new(pass: &'a mut P, generation: u64, mask: u32) -> Self {
        Self { pass, recorded: Recorded { generation, mask, ..Default::default() }, index: HashMap::new() }
    }

    /// Ends the current draw's commands.
    #[inline]
    pub(super) fn end_draw(&mut self, first: u32) {
        let end = self.recorded.cmds.len() as u32;
        self.recorded.draws.push((end, first));
    }
}

impl<P: BindTarget> BindTarget for Recorder<'_, P> {
    fn set_bind_group(&mut self, index: u32, group: &wgpu::BindGroup, offsets: &[u32]) {
        self.pass.set_bind_group(index, group, offsets);
        let k = match self.index.get(group) {
            Some(&k) => k,
            None => {
                let k = self.recorded.groups.len() as u32;
                self.recorded.groups.push(group.clone());
                self.index.insert(group.clone(), k);
                k
            }
        };
        self.recorded.cmds.push((index, k, SmallVec::from_slice(offsets)));
        self.recorded.binds += 1;
        self.recorded.counts.count(index, Reason::Replayed);
    }

    fn set_immediates(&mut self, offset: u32, data: &[u8]) {
        self.pass.set_immediates(offset, data);
        let e = u32::from_le_bytes(data.try_into().expect("the binder sets one u32"));
        self.recorded.cmds.push((IMMEDIATE, e, SmallVec::from_slice(&[offset])));
    }
}

impl DrawList {
    /// Resolves `draws` against the instance table; a freed handle is
    /// [`Error::StaleHandle`], one created since the last flush [`Error::NotFlushed`].
    pub(crate) fn new<'d>(
        tag: u32,
        instances: &InstanceTable,
        draws: impl IntoIterator<Item = &'d Draw>,
    ) -> Result<Self, Error> {
        let draws = draws
            .into_iter()
            .map(|d| {
                let index = instances.dense(d.keys());
                for (&f, &i) in Frequency::ALL.iter().zip(&index) {
                    if i != NOT_GIVEN {
                        checked(i, f)?;
                    }
                }
                Ok((d.shader(), index))
            })
            .collect::<Result<_, Error>>()?;
        let serial = crate::id::Counter::DrawList.next();
        Ok(Self { tag, frees: instances.frees(), serial, draws, links: None, recorded: None })
    }

    /// Keeps what linking its draws left: a later move of a pointer makes
    /// the list stale, and a pointer not yet flushed makes it wait for a flush.
    pub(crate) fn linked(&mut self, registry: &Registry, links: &Links) {
        if self.draws.iter().any(|(s, _)| registry.links(*s).iter().any(|l| l.from.is_some())) {
            self.links = Some((links.moved(), links.pending().then(|| links.flushes())));
        }
    }

    /// [`Error::StaleList`] unless the list was made by the lending manager
    /// since its last free. Cost: two comparisons.
    #[inline]
    pub(crate) fn check(&self, cx: &BindContext<'_>) -> Result<(), Error> {
        if self.tag != cx.parts.registry.tag() || self.frees != cx.parts.instances.frees() {
            return Err(Error::StaleList);
        }
        let links = cx.parts.instances.links();
        match self.links {
            Some((moved, _)) if moved != links.moved() => Err(Error::StaleList),
            Some((_, Some(at))) if at == links.flushes() => Err(Error::NotFlushed(Frequency::Object)),
            _ => Ok(()),
        }
    }

    /// The bind commands of the last encode, if made at `generation` for `mask`.
    #[inline]
    pub(crate) fn recorded(&self, generation: u64, mask: u32) -> Option<&Recorded> {
        self.recorded.as_ref().filter(|r| r.generation == generation && r.mask == mask)
    }

    /// The resolved draws, in order.
    #[inline]
    pub(crate) fn draws(&self) -> &[(ShaderId, [u32; Frequency::COUNT])] {
        &self.draws
    }

    /// Unique per list made; with a recording's generation, it names one plan of indirect runs.
    #[inline]
    pub(crate) fn serial(&self) -> u64 {
        self.serial
    }

    /// The number of draws.
    #[inline]
    pub fn len(&self) -> usize {
        self.draws.len()
    }

    /// Whether the list has no draws.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.draws.is_empty()
    }
}
