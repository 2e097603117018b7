//! Instance handles: one copy of a slot's data per view, material or object.
//!
//! Handles are slotmap keys, stable across frees. Each handle maps to a dense
//! index that places the instance in every slot buffer of its frequency at
//! `index * stride`; freed indices are reused first, lowest first, so buffers stay compact.

use std::collections::BTreeSet;

use slotmap::{DefaultKey, Key, KeyData, SlotMap};

use crate::errors::Error;
use crate::instance::family::FamilyId;
pub(crate) use crate::instance::table::Bound;
use crate::instance::table::Tables;
use crate::reflect::ResourceClass;
use crate::slot::plan::{BindingPoint, Frequency};
use crate::slot::slab::Links;

/// An instance handle without its type: the manager's tag (so that a handle
/// of another manager is caught) and a generational key (so that a freed one is).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct RawKey {
    tag: u32,
    key: KeyData,
}

/// A typed instance handle of one frequency.
macro_rules! handle {
    ($(#[$doc:meta])* $name:ident, $frequency:expr) => {
        $(#[$doc])*
        ///
        /// Tagged with its manager and generational: a freed handle is
        /// [`Error::StaleHandle`], one of another manager [`Error::Foreign`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub(crate) RawKey);

        impl $name {
            /// The frequency of the slots it has data in.
            pub const FREQUENCY: Frequency = $frequency;

            /// The handle as one number, unique among its manager's live and
            /// freed handles of this type: for sort keys.
            #[inline]
            pub fn to_bits(self) -> u64 {
                self.0.key.as_ffi()
            }
        }

        impl From<$name> for InstanceId {
            #[inline]
            fn from(h: $name) -> Self {
                InstanceId { frequency: $frequency, key: Some(h.0) }
            }
        }

        impl TryFrom<InstanceId> for $name {
            type Error = InstanceId;
            /// The typed handle, or the id back when it is of another frequency.
            #[inline]
            fn try_from(id: InstanceId) -> Result<Self, InstanceId> {
                match id.key {
                    Some(k) if id.frequency == $frequency => Ok($name(k)),
                    _ => Err(id),
                }
            }
        }

        impl FromRaw for $name {
            const FREQUENCY: Frequency = $frequency;
            #[inline]
            fn from_raw(key: RawKey) -> Self {
                $name(key)
            }
        }
    };
}

/// Makes a typed handle from a new key (the manager's `create`).
pub(crate) trait FromRaw {
    const FREQUENCY: Frequency;
    fn from_raw(key: RawKey) -> Self;
}

handle!(
    /// A view instance (a camera, a shadow cascade).
    ViewId,
    Frequency::View
);
handle!(
    /// A material instance.
    MaterialId,
    Frequency::Material
);
handle!(
    /// An object instance (one drawn thing's per-object data).
    ObjectId,
    Frequency::Object
);

/// Any instance: the frame, or a view, material or object handle
/// (`ViewId::into()`), of any frequency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InstanceId {
    frequency: Frequency,
    /// `None` for the frame, whose one instance every manager has.
    key: Option<RawKey>,
}

impl InstanceId {
    /// The one frame instance.
    pub const FRAME: InstanceId = InstanceId { frequency: Frequency::Frame, key: None };

    /// The frequency of the slots this instance has data in.
    #[inline]
    pub fn frequency(self) -> Frequency {
        self.frequency
    }

    #[inline]
    pub(crate) fn new(frequency: Frequency, key: Option<RawKey>) -> Self {
        Self { frequency, key }
    }

    /// Its key (`None` for the frame).
    #[inline]
    pub(crate) fn key(self) -> Option<RawKey> {
        self.key
    }
}

/// Handles of one frequency and their dense indices.
#[derive(Debug)]
struct Instances<K: Key> {
    /// Dense index, with [`PENDING`] set until the first flush after creation.
    /// One `u32`, so that the draw's one lookup yields both and the map stays small.
    map: SlotMap<K, u32>,
    /// Handles created since the last flush, whose [`PENDING`] bit it clears.
    pending: Vec<K>,
    /// Freed indices, lowest reused first so that buffers stay compact.
    free: BTreeSet<u32>,
    high: u32,
}

/// Marks an instance created after the last flush (it cannot be drawn yet).
/// Dense indices stay below it: a slot buffer holds far fewer instances.
const PENDING: u32 = 1 << 31;

impl<K: Key> Instances<K> {
    fn new() -> Self {
        Self { map: SlotMap::with_key(), pending: Vec::new(), free: BTreeSet::new(), high: 0 }
    }

    /// A new handle and its dense index (a freed index when there is one),
    /// pending until the next flush.
    fn insert(&mut self) -> (K, u32) {
        let index = self.free.pop_first().unwrap_or_else(|| {
            self.high += 1;
            self.high - 1
        });
        debug_assert!(index < PENDING, "more than 2^31 instances");
        let key = self.map.insert(index | PENDING);
        self.pending.push(key);
        (key, index)
    }

    /// Frees a handle; returns its index, or `None` when it was already freed.
    fn remove(&mut self, key: K) -> Option<u32> {
        let index = self.map.remove(key)? & !PENDING;
        self.free.insert(index);
        // Freed indices at the top lower the count that buffers must hold.
        while self.high > 0 && self.free.remove(&(self.high - 1)) {
            self.high -= 1;
        }
        Some(index)
    }

    #[inline]
    fn get(&self, key: K) -> Option<u32> {
        self.map.get(key).map(|&v| v & !PENDING)
    }

    /// The dense index, with [`PENDING`] set if no flush happened since creation.
    #[inline]
    fn get_raw(&self, key: K) -> Option<u32> {
        self.map.get(key).copied()
    }

    /// A flush happened: every live instance is on the GPU (as far as capacity allows).
    fn mark_flushed(&mut self) {
        for key in self.pending.drain(..) {
            if let Some(v) = self.map.get_mut(key) {
                *v &= !PENDING;
            }
        }
    }

    /// One past the highest live index: the instance count buffers must hold.
    #[inline]
    fn high(&self) -> u32 {
        self.high
    }

    /// Live handles.
    #[inline]
    fn len(&self) -> usize {
        self.map.len()
    }
}

/// Marks a frequency the draw gives no instance of.
pub(crate) const NOT_GIVEN: u32 = u32::MAX;
/// Marks an instance handle that was freed.
pub(crate) const FREED: u32 = u32::MAX - 1;
/// Marks an instance created after the last flush.
pub(crate) const NOT_FLUSHED: u32 = u32::MAX - 2;
/// Marks an instance handle of another manager.
pub(crate) const FOREIGN: u32 = u32::MAX - 3;

/// The error for a marker [`InstanceTable::dense`] gave, or the index.
#[inline]
pub(crate) fn checked(index: u32, f: Frequency) -> Result<u32, Error> {
    match index {
        FREED => Err(Error::StaleHandle(f)),
        NOT_FLUSHED => Err(Error::NotFlushed(f)),
        FOREIGN => Err(Error::Foreign("instance handle")),
        i => Ok(i),
    }
}

/// Every instance of every frequency, and the textures, samplers and storage
/// buffers each owns. Indexed by frequency, so no caller matches over kinds.
#[derive(Debug)]
pub(crate) struct InstanceTable {
    /// The manager's tag, carried by every handle it makes.
    tag: u32,
    /// Instances by frequency; the frame's holds its one instance, made here.
    sets: [Instances<DefaultKey>; Frequency::COUNT],
    /// The instance a draw that names none of a frequency gets: the frame's.
    implied: [Option<RawKey>; Frequency::COUNT],
    resources: [Vec<InstanceResources>; Frequency::COUNT],
    /// The family of each instance made in one, by dense index (`None`: it
    /// holds values in every family's slots).
    families: [Vec<Option<FamilyId>>; Frequency::COUNT],
    /// Resource change counter: each change takes the next value.
    epoch: u64,
    /// Instances freed so far: a draw list's dense indices hold while it does.
    frees: u64,
    /// Slab pointers written into instances (`slot/slab.rs`).
    links: Links,
    /// Binding arrays a family's slab indexes, filled by `set_texture` (`instance/table.rs`).
    tables: Tables,
}

impl InstanceTable {
    pub(crate) fn new(tag: u32) -> Self {
        let mut sets: [Instances<DefaultKey>; Frequency::COUNT] = std::array::from_fn(|_| Instances::new());
        let frame = &mut sets[Frequency::Frame.index()];
        let (key, index) = frame.insert();
        debug_assert_eq!(index, 0, "the frame is index 0 of its set");
        frame.mark_flushed();
        let mut implied = [None; Frequency::COUNT];
        implied[Frequency::Frame.index()] = Some(RawKey { tag, key: key.data() });
        let families = Default::default();
        Self {
            tag,
            sets,
            implied,
            resources: Default::default(),
            families,
            epoch: 0,
            frees: 0,
            links: Links::default(),
            tables: Tables::default(),
        }
    }

    /// A new instance of `K`'s frequency and its dense index, pending until
    /// the next flush; in `family` if given.
    pub(crate) fn insert<K: FromRaw>(&mut self, family: Option<FamilyId>) -> (K, u32) {
        let f = K::FREQUENCY.index();
        let (key, index) = self.sets[f].insert();
        let families = &mut self.families[f];
        if families.len() <= index as usize {
            families.resize(index as usize + 1, None);
        }
        families[index as usize] = family;
        (K::from_raw(RawKey { tag: self.tag, key: key.data() }), index)
    }

    /// The family an instance was made in, if any.
    #[inline]
    pub(crate) fn family(&self, f: Frequency, index: u32) -> Option<FamilyId> {
        self.families[f.index()].get(index as usize).copied().flatten()
    }

    /// The key an id stands for: its own, or the frame's for the frame.
    #[inline]
    fn key(&self, id: InstanceId) -> Result<KeyData, Error> {
        let f = id.frequency;
        match id.key.or(self.implied[f.index()]) {
            Some(k) if k.tag == self.tag => Ok(k.key),
            Some(_) => Err(Error::Foreign("instance handle")),
            None => Err(Error::StaleHandle(f)),
        }
    }

    /// Frees an instance and drops its resources; returns its frequency and
    /// index. The frame cannot be freed ([`Error::StaleHandle`]).
    pub(crate) fn remove(&mut self, id: InstanceId) -> Result<(Frequency, u32), Error> {
        let f = id.frequency;
        if id.key.is_none() {
            return Err(Error::StaleHandle(f)); // the frame
        }
        let key = self.key(id)?;
        #[allow(
            clippy::unnecessary_lazy_evaluations,
            reason = "an Error built per call and dropped cost 20% of batch writes (docs/perf.md)"
        )]
        let index = self.sets[f.index()].remove(key.into()).ok_or_else(|| Error::StaleHandle(f))?;
        self.frees += 1;
        self.links.freed(f, index);
        self.tables.release(f, index);
        if let Some(r) = self.resources[f.index()].get_mut(index as usize) {
            if !r.items.is_empty() {
                r.items.clear();
                self.epoch += 1;
                r.epoch = self.epoch;
            }
        }
        Ok((f, index))
    }

    /// The dense index of a live instance.
    #[inline]
    pub(crate) fn index(&self, id: InstanceId) -> Result<u32, Error> {
        let key = self.key(id)?;
        #[allow(
            clippy::unnecessary_lazy_evaluations,
            reason = "an Error built per call and dropped cost 20% of batch writes (docs/perf.md)"
        )]
        self.sets[id.frequency.index()].get(key.into()).ok_or_else(|| Error::StaleHandle(id.frequency))
    }

    /// Dense indices of a draw's instances by frequency, or [`NOT_GIVEN`],
    /// [`FREED`], [`NOT_FLUSHED`], [`FOREIGN`] (see [`checked`]).
    #[inline]
    pub(crate) fn dense(&self, keys: &[Option<RawKey>; Frequency::COUNT]) -> [u32; Frequency::COUNT] {
        // The frame's implied instance is index 0, always flushed: no lookup.
        std::array::from_fn(|i| match keys[i] {
            None if self.implied[i].is_some() => 0,
            None => NOT_GIVEN,
            Some(k) if k.tag != self.tag => FOREIGN,
            Some(k) => match self.sets[i].get_raw(k.key.into()) {
                None => FREED,
                Some(i) if i & PENDING == 0 => i,
                Some(_) => NOT_FLUSHED,
            },
        })
    }

    /// One past the highest live index of `f`: the instances its slot buffers must hold.
    #[inline]
    pub(crate) fn high(&self, f: Frequency) -> u32 {
        self.sets[f.index()].high()
    }

    /// Live instances of `f` (the frame has one).
    pub(crate) fn len(&self, f: Frequency) -> usize {
        self.sets[f.index()].len()
    }

    /// A flush happened: every live instance is on the GPU.
    pub(crate) fn mark_flushed(&mut self) {
        self.sets.iter_mut().for_each(Instances::mark_flushed);
        self.links.flushed();
    }

    /// The slab pointers linking has written.
    #[inline]
    pub(crate) fn links(&self) -> &Links {
        &self.links
    }

    #[inline]
    pub(crate) fn links_mut(&mut self) -> &mut Links {
        &mut self.links
    }

    /// The binding arrays slabs index.
    #[inline]
    pub(crate) fn tables(&self) -> &Tables {
        &self.tables
    }

    #[inline]
    pub(crate) fn tables_mut(&mut self) -> &mut Tables {
        &mut self.tables
    }

    /// The resources of instance `index` of `f`, if it ever set one.
    #[inline]
    pub(crate) fn resources(&self, f: Frequency, index: u32) -> Option<&InstanceResources> {
        self.resources[f.index()].get(index as usize)
    }

    /// Binds `bound` at `point` (element `element`) of an instance.
    pub(crate) fn set_resource(
        &mut self,
        f: Frequency,
        index: u32,
        point: BindingPoint,
        element: u32,
        bound: Bound,
    ) {
        let table = &mut self.resources[f.index()];
        if table.len() <= index as usize {
            table.resize_with(index as usize + 1, InstanceResources::default);
        }
        self.epoch += 1;
        table[index as usize].set(point, element, bound, self.epoch);
    }

    /// The resource change counter: it moves whenever a texture, sampler or
    /// buffer is set on an instance or dropped with it.
    #[inline]
    pub(crate) fn resource_epoch(&self) -> u64 {
        self.epoch
    }

    /// The manager's tag.
    #[inline]
    pub(crate) fn tag(&self) -> u32 {
        self.tag
    }

    /// Instances freed so far (a freed index may go to another handle).
    #[inline]
    pub(crate) fn frees(&self) -> u64 {
        self.frees
    }

    /// Drops every resource (they belonged to a lost device).
    pub(crate) fn clear_resources(&mut self) {
        self.tables.clear();
        self.epoch += 1;
        for r in self.resources.iter_mut().flatten() {
            r.items.clear();
            r.epoch = self.epoch;
        }
    }
}

/// The resources one instance owns.
#[derive(Debug, Default)]
pub(crate) struct InstanceResources {
    /// Changes whenever an item changes, so bind groups know to rebuild.
    pub(crate) epoch: u64,
    items: Vec<(BindingPoint, u32, Bound)>,
}

impl InstanceResources {
    /// The resource of `class` at `point` (element `element`): one of each
    /// class may share a point, for pipelines that declare different ones there.
    pub(crate) fn get(&self, point: BindingPoint, element: u32, class: ResourceClass) -> Option<&Bound> {
        let at = |(p, e, b): &&(BindingPoint, u32, Bound)| *p == point && *e == element && b.class() == class;
        self.items.iter().find(at).map(|(_, _, b)| b)
    }

    fn set(&mut self, point: BindingPoint, element: u32, bound: Bound, epoch: u64) {
        let class = bound.class();
        match self.items.iter_mut().find(|(p, e, b)| *p == point && *e == element && b.class() == class) {
            Some(item) => item.2 = bound,
            None => self.items.push((point, element, bound)),
        }
        self.epoch = epoch;
    }
}
