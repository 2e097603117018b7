//! Instance handles: one copy of a slot's data per view, material or object.
//!
//! Handles are slotmap keys, stable across frees. Each handle maps to a dense
//! index that places the instance in every slot buffer of its frequency at
//! `index * stride`; freed indices are reused first, lowest first, so buffers stay compact.

use std::collections::BTreeSet;

use slotmap::{DefaultKey, Key, KeyData, SlotMap};

use crate::error::Error;
use crate::plan::{BindingPoint, Frequency};

slotmap::new_key_type! {
    /// A view instance (a camera, a shadow cascade).
    pub struct ViewId;
    /// A material instance.
    pub struct MaterialId;
    /// An object instance (one drawn thing's per-object data).
    pub struct ObjectId;
}

/// Any instance: the frame, or a view, material or object handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InstanceId {
    /// The one frame instance.
    Frame,
    /// A view.
    View(ViewId),
    /// A material.
    Material(MaterialId),
    /// An object.
    Object(ObjectId),
}

impl InstanceId {
    /// The frequency of the slots this instance has data in.
    #[inline]
    pub fn frequency(self) -> Frequency {
        self.parts().0
    }

    /// The one place that tells the kinds apart: the frequency and the
    /// untyped key (`None` for the frame).
    #[inline]
    fn parts(self) -> (Frequency, Option<KeyData>) {
        match self {
            InstanceId::Frame => (Frequency::Frame, None),
            InstanceId::View(k) => (Frequency::View, Some(k.data())),
            InstanceId::Material(k) => (Frequency::Material, Some(k.data())),
            InstanceId::Object(k) => (Frequency::Object, Some(k.data())),
        }
    }
}

impl From<ViewId> for InstanceId {
    fn from(v: ViewId) -> Self {
        InstanceId::View(v)
    }
}
impl From<MaterialId> for InstanceId {
    fn from(v: MaterialId) -> Self {
        InstanceId::Material(v)
    }
}
impl From<ObjectId> for InstanceId {
    fn from(v: ObjectId) -> Self {
        InstanceId::Object(v)
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

/// Every instance of every frequency, and the textures, samplers and storage
/// buffers each owns. Indexed by frequency, so no caller matches over kinds.
#[derive(Debug)]
pub(crate) struct InstanceTable {
    /// Views, materials and objects (the frame is index 0 of no set).
    sets: [Instances<DefaultKey>; 3],
    resources: [Vec<InstanceResources>; 4],
    /// Resource change counter: each change takes the next value.
    epoch: u64,
    /// Instances freed so far: a draw list's dense indices hold while it does.
    frees: u64,
}

impl InstanceTable {
    pub(crate) fn new() -> Self {
        Self {
            sets: [Instances::new(), Instances::new(), Instances::new()],
            resources: Default::default(),
            epoch: 0,
            frees: 0,
        }
    }

    #[inline]
    fn set(&self, f: Frequency) -> Option<&Instances<DefaultKey>> {
        (f as usize).checked_sub(1).map(|i| &self.sets[i])
    }

    /// A new instance of `f` (not the frame) and its dense index, pending until the next flush.
    pub(crate) fn insert<K: From<KeyData>>(&mut self, f: Frequency) -> (K, u32) {
        debug_assert!(f != Frequency::Frame, "the frame is never created");
        let (key, index) = self.sets[f as usize - 1].insert();
        (K::from(key.data()), index)
    }

    /// Frees an instance and drops its resources; returns its frequency and index.
    pub(crate) fn remove(&mut self, id: InstanceId) -> Result<(Frequency, u32), Error> {
        let (f, key) = id.parts();
        let index =
            key.and_then(|k| self.sets[f as usize - 1].remove(k.into())).ok_or(Error::StaleHandle(f))?;
        self.frees += 1;
        if let Some(r) = self.resources[f as usize].get_mut(index as usize) {
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
        let (f, key) = id.parts();
        match (self.set(f), key) {
            (Some(set), Some(k)) => set.get(k.into()).ok_or(Error::StaleHandle(f)),
            _ => Ok(0),
        }
    }

    /// Dense indices of a draw's instances by frequency, or [`NOT_GIVEN`],
    /// [`FREED`], [`NOT_FLUSHED`]. The frame is always 0.
    #[inline]
    pub(crate) fn dense(&self, keys: [Option<KeyData>; 3]) -> [u32; 4] {
        let one = |i: usize| match keys[i].map(|k| self.sets[i].get_raw(k.into())) {
            None => NOT_GIVEN,
            Some(None) => FREED,
            Some(Some(i)) if i & PENDING == 0 => i,
            Some(Some(_)) => NOT_FLUSHED,
        };
        [0, one(0), one(1), one(2)]
    }

    /// One past the highest live index of `f`: the instances its slot buffers must hold.
    #[inline]
    pub(crate) fn high(&self, f: Frequency) -> u32 {
        self.set(f).map_or(1, Instances::high)
    }

    /// Live instances of `f` (the frame counts as one).
    pub(crate) fn len(&self, f: Frequency) -> usize {
        self.set(f).map_or(1, Instances::len)
    }

    /// A flush happened: every live instance is on the GPU.
    pub(crate) fn mark_flushed(&mut self) {
        self.sets.iter_mut().for_each(Instances::mark_flushed);
    }

    /// The resources of instance `index` of `f`, if it ever set one.
    #[inline]
    pub(crate) fn resources(&self, f: Frequency, index: u32) -> Option<&InstanceResources> {
        self.resources[f as usize].get(index as usize)
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
        let table = &mut self.resources[f as usize];
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

    /// Instances freed so far (a freed index may go to another handle).
    #[inline]
    pub(crate) fn frees(&self) -> u64 {
        self.frees
    }

    /// Drops every resource (they belonged to a lost device).
    pub(crate) fn clear_resources(&mut self) {
        self.epoch += 1;
        for r in self.resources.iter_mut().flatten() {
            r.items.clear();
            r.epoch = self.epoch;
        }
    }
}

/// A resource bound at one binding point (and array element) of an instance.
#[derive(Clone, Debug)]
pub(crate) enum Bound {
    Texture(wgpu::TextureView),
    Sampler(wgpu::Sampler),
    Buffer(wgpu::Buffer),
}

/// The resources one instance owns.
#[derive(Debug, Default)]
pub(crate) struct InstanceResources {
    /// Changes whenever an item changes, so bind groups know to rebuild.
    pub(crate) epoch: u64,
    items: Vec<(BindingPoint, u32, Bound)>,
}

impl InstanceResources {
    pub(crate) fn get(&self, point: BindingPoint, element: u32) -> Option<&Bound> {
        self.items.iter().find(|(p, e, _)| *p == point && *e == element).map(|(_, _, b)| b)
    }

    fn set(&mut self, point: BindingPoint, element: u32, bound: Bound, epoch: u64) {
        match self.items.iter_mut().find(|(p, e, _)| *p == point && *e == element) {
            Some(item) => item.2 = bound,
            None => self.items.push((point, element, bound)),
        }
        self.epoch = epoch;
    }
}
