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
    map: SlotMap<K, u32>,
    /// Freed indices, lowest reused first so that buffers stay compact.
    free: BTreeSet<u32>,
    high: u32,
    /// Per dense index: the manager's flush count when its current holder was created.
    /// The holder is on the GPU once a flush has happened since (`born < flushes`).
    born: Vec<u64>,
}

impl<K: Key> Instances<K> {
    pub(crate) fn new() -> Self {
        Self { map: SlotMap::with_key(), free: BTreeSet::new(), high: 0, born: Vec::new() }
    }

    /// A new handle and its dense index (a freed index when there is one),
    /// created after `flushes` flushes.
    pub(crate) fn insert(&mut self, flushes: u64) -> (K, u32) {
        let index = self.free.pop_first().unwrap_or_else(|| {
            self.high += 1;
            self.high - 1
        });
        if self.born.len() <= index as usize {
            self.born.resize(index as usize + 1, 0);
        }
        self.born[index as usize] = flushes;
        (self.map.insert(index), index)
    }

    /// Frees a handle; returns its index, or `None` when it was already freed.
    pub(crate) fn remove(&mut self, key: K) -> Option<u32> {
        let index = self.map.remove(key)?;
        self.free.insert(index);
        // Freed indices at the top lower the count that buffers must hold.
        while self.high > 0 && self.free.remove(&(self.high - 1)) {
            self.high -= 1;
        }
        Some(index)
    }

    #[inline]
    pub(crate) fn get(&self, key: K) -> Option<u32> {
        self.map.get(key).copied()
    }

    /// Whether the instance at `index` was created before the last of `flushes` flushes.
    #[inline]
    pub(crate) fn flushed(&self, index: u32, flushes: u64) -> bool {
        self.born.get(index as usize).is_some_and(|&b| b < flushes)
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
