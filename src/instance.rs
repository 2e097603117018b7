//! Instance handles: one copy of a slot's data per view, material or object.
//!
//! Handles are slotmap keys, stable across frees. Each handle maps to a dense
//! index that places the instance in every slot buffer of its frequency at
//! `index * stride`; freed indices are reused first, lowest first, so buffers stay compact.

use std::collections::BTreeSet;

use slotmap::{Key, SlotMap};

use crate::plan::Frequency;

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
        match self {
            InstanceId::Frame => Frequency::Frame,
            InstanceId::View(_) => Frequency::View,
            InstanceId::Material(_) => Frequency::Material,
            InstanceId::Object(_) => Frequency::Object,
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
pub(crate) struct Instances<K: Key> {
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
pub(crate) const PENDING: u32 = 1 << 31;

impl<K: Key> Instances<K> {
    pub(crate) fn new() -> Self {
        Self { map: SlotMap::with_key(), pending: Vec::new(), free: BTreeSet::new(), high: 0 }
    }

    /// A new handle and its dense index (a freed index when there is one),
    /// pending until the next flush.
    pub(crate) fn insert(&mut self) -> (K, u32) {
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
    pub(crate) fn remove(&mut self, key: K) -> Option<u32> {
        let index = self.map.remove(key)? & !PENDING;
        self.free.insert(index);
        // Freed indices at the top lower the count that buffers must hold.
        while self.high > 0 && self.free.remove(&(self.high - 1)) {
            self.high -= 1;
        }
        Some(index)
    }

    #[inline]
    pub(crate) fn get(&self, key: K) -> Option<u32> {
        self.map.get(key).map(|&v| v & !PENDING)
    }

    /// The dense index, with [`PENDING`] set if no flush happened since creation.
    #[inline]
    pub(crate) fn get_raw(&self, key: K) -> Option<u32> {
        self.map.get(key).copied()
    }

    /// A flush happened: every live instance is on the GPU (as far as capacity allows).
    pub(crate) fn mark_flushed(&mut self) {
        for key in self.pending.drain(..) {
            if let Some(v) = self.map.get_mut(key) {
                *v &= !PENDING;
            }
        }
    }

    /// One past the highest live index: the instance count buffers must hold.
    #[inline]
    pub(crate) fn high(&self) -> u32 {
        self.high
    }

    /// Live handles.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }
}
