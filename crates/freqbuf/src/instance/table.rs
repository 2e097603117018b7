//! Tables: the binding arrays a family's slab indexes, filled by
//! `set_texture` and `set_sampler`.
//!
//! Use a table where a slab material's textures and samplers must not cost
//! a bind group per material (Bevy 0.20's `bindless_textures_2d`,
//! `bindless_samplers_filtering`): the family's one bind group holds every
//! material's resources, and each material's slab element holds their
//! elements in `u32` members (`material_indices[slot].base_color_texture`).
//! A resource that only some materials set, or that differs per draw
//! without a slab, stays an instance's own binding (`handles.rs`).
//!
//! Element 0 of every table is the placeholder, so a member never set
//! (a new material's zeros) reads a placeholder; a freed material's elements
//! go back to the table's free list and are reused.

use std::collections::HashMap;

use crate::instance::family::FamilyId;
use crate::reflect::ResourceClass;
use crate::slot::plan::{BindingPoint, Frequency};

/// A resource bound at one binding point (and array element) of an instance,
/// or at one element of a table.
#[derive(Clone, Debug)]
pub(crate) enum Bound {
    Texture(wgpu::TextureView),
    Sampler(wgpu::Sampler),
    Buffer(wgpu::Buffer),
    AccelerationStructure(wgpu::Tlas),
}

impl Bound {
    pub(crate) const fn class(&self) -> ResourceClass {
        match self {
            Bound::Texture(_) => ResourceClass::Texture,
            Bound::Sampler(_) => ResourceClass::Sampler,
            Bound::Buffer(_) => ResourceClass::Buffer,
            Bound::AccelerationStructure(_) => ResourceClass::AccelerationStructure,
        }
    }
}

/// A table: its binding point, its family at a per-family frequency, and
/// the class of what it holds.
pub(crate) type TableKey = (BindingPoint, Option<FamilyId>, ResourceClass);

/// Every table of a manager, and which elements each instance placed.
#[derive(Debug, Default)]
pub(crate) struct Tables {
    tables: HashMap<TableKey, Table>,
    /// Per instance (frequency, index): (table, member offset, element) it placed.
    placed: HashMap<(Frequency, u32), Vec<Placed>>,
    /// Changes whenever any table does, so bind groups know to rebuild.
    epoch: u64,
}

/// One element an instance placed: (table, member offset, element).
type Placed = (TableKey, u32, u32);

#[derive(Debug, Default)]
struct Table {
    /// Element 0 is the placeholder and never handed out.
    items: Vec<Option<Bound>>,
    free: Vec<u32>,
}

impl Tables {
    /// The change counter: bind groups holding tables are built from one value of it.
    #[inline]
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Element `element` of table `key`: `None` for the placeholder and unset elements.
    #[inline]
    pub(crate) fn get(&self, key: &TableKey, element: u32) -> Option<&Bound> {
        self.tables.get(key)?.items.get(element as usize)?.as_ref()
    }

    /// Places `bound` for the member at `offset` of instance `index` of `f`:
    /// in the element it placed there before, or a free one. Returns the
    /// element, or `Err(capacity)` when all `capacity` elements are taken
    /// (the placeholder's included).
    pub(crate) fn place(
        &mut self,
        key: TableKey,
        capacity: u32,
        (f, index, offset): (Frequency, u32, u32),
        bound: Bound,
    ) -> Result<u32, u32> {
        let table = self.tables.entry(key).or_insert_with(|| Table { items: vec![None], free: Vec::new() });
        let placed = self.placed.entry((f, index)).or_default();
        let before = placed.iter().find(|(k, o, _)| *k == key && *o == offset).map(|p| p.2);
        let element = match before {
            Some(e) => e,
            None => match table.free.pop() {
                Some(e) => e,
                None if (table.items.len() as u32) < capacity => {
                    table.items.push(None);
                    table.items.len() as u32 - 1
                }
                None => return Err(capacity),
            },
        };
        table.items[element as usize] = Some(bound);
        if before.is_none() {
            placed.push((key, offset, element));
        }
        self.epoch += 1;
        Ok(element)
    }

    /// Returns the elements instance `index` of `f` placed to their free lists.
    pub(crate) fn release(&mut self, f: Frequency, index: u32) {
        for (key, _, e) in self.placed.remove(&(f, index)).unwrap_or_default() {
            if let Some(t) = self.tables.get_mut(&key) {
                t.items[e as usize] = None;
                t.free.push(e);
            }
            self.epoch += 1;
        }
    }

    /// Drops every resource (they belonged to a lost device).
    pub(crate) fn clear(&mut self) {
        self.tables.clear();
        self.placed.clear();
        self.epoch += 1;
    }
}
