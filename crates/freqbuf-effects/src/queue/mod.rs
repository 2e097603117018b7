//! The render queue: items submitted in any order, encoded pass by pass (the
//! DX11 engine's order), sorted within a pass by pipeline, material and object
//! (back to front by depth in passes that blend), through the binder.
//!
//! Bins survive between frames, as Bevy's binned phases do: an item that is
//! added, changed or removed is moved into or out of its bin's sorted list by
//! binary search, and a bin is sorted again only when most of it changed.

use std::collections::BTreeMap;

use slotmap::SlotMap;

use freqbuf::ObjectId;

use crate::effect::{Blend, Effects};
use crate::error::{MaterialError, MaterialErrorKind};
use crate::material::Materials;

mod item;
mod link;
mod listed;

pub use item::{Geometry, QueueContext, QueueItem};

slotmap::new_key_type! {
    struct ItemKey;
}

/// An item in a [`RenderQueue`]: tagged with its queue and generational.
/// (`Default` is a null id no queue holds.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ItemId {
    tag: u32,
    key: ItemKey,
}

/// What an `encode` did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// Draw calls.
    pub draws: u64,
    /// `set_pipeline` calls.
    pub pipelines: u64,
    /// Bins sorted from scratch.
    pub full_sorts: u64,
    /// Items moved into or out of a sorted bin by binary search.
    pub moved: u64,
    /// Draw lists made for sorted bins (0 when every bin's list held).
    pub lists_made: u64,
}

/// (back-to-front depth or 0, pipeline, material, object or 0): tuples
/// compare in that order.
type SortKey = (u64, (u32, u32, u128), u64, u64);

#[derive(Debug)]
struct Entry {
    item: QueueItem,
    bin: String,
    key: SortKey,
    /// Its shader binds nothing per material (a slab): ordered front to
    /// back within its pipeline instead of by material (learned at `link`).
    free: bool,
}

#[derive(Debug, Default)]
struct Bin {
    sorted: Vec<(SortKey, ItemId)>,
    added: Vec<ItemId>,
    removed: Vec<(SortKey, ItemId)>,
    /// Moves on every change to the bin's order or items.
    version: u64,
    /// The sorted order as a draw list, made by a sorted encode.
    listed: Option<listed::Listed>,
    /// The version the last sorted encode saw.
    encoded: Option<u64>,
}

impl Default for RenderQueue {
    fn default() -> Self {
        Self::new()
    }
}

/// The order [`RenderQueue::encode`] draws a pass's items in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// The bin's order: by pipeline, material and object, or back to front
    /// in a blending pass.
    Sorted,
    /// The bin's order, through a [`freqbuf::DrawList`] the queue keeps for
    /// the bin while it holds (see [`RenderQueue::encode`]). It saves the
    /// binder's handle lookups, not the per-item pipeline lookup, so it pays
    /// off only where binding dominates: on a 10,000-item static bin it
    /// measured 6% slower than [`Order::Sorted`] (`benches/queue.rs`).
    Listed,
    /// The order the items were queued in (for comparison with sorting).
    Queued,
}

/// Items to draw, binned by pass name (`technique.pass`) and kept sorted.
#[derive(Debug)]
pub struct RenderQueue {
    tag: u32,
    items: SlotMap<ItemKey, Entry>,
    bins: BTreeMap<String, Bin>,
    /// Items inserted or updated since the last [`RenderQueue::link`].
    unlinked: Vec<ItemId>,
}

impl RenderQueue {
    /// An empty queue.
    pub fn new() -> Self {
        let tag = crate::tag::Counter::Queue.next();
        Self { tag, items: SlotMap::with_key(), bins: BTreeMap::new(), unlinked: Vec::new() }
    }

    /// Items queued.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Queues an item until it is removed; it is drawn every frame its pass is encoded.
    pub fn insert(
        &mut self,
        fx: &Effects,
        mats: &Materials,
        item: QueueItem,
    ) -> Result<ItemId, MaterialError> {
        let (bin, key) = placement(fx, mats, &item, false)?;
        let id = ItemId {
            tag: self.tag,
            key: self.items.insert(Entry { item, bin: bin.clone(), key, free: false }),
        };
        self.bins.entry(bin).or_default().added.push(id);
        self.unlinked.push(id);
        Ok(id)
    }

    /// Replaces an item (a new material, depth or geometry); only it moves in its bin.
    pub fn update(
        &mut self,
        fx: &Effects,
        mats: &Materials,
        id: ItemId,
        item: QueueItem,
    ) -> Result<(), MaterialError> {
        self.owns(id)?;
        let free = self.items.get(id.key).is_some_and(|e| e.free);
        let (bin, key) = placement(fx, mats, &item, free)?;
        let Some(entry) = self.items.get_mut(id.key) else { return Ok(()) };
        self.unlinked.push(id);
        if entry.bin == bin && entry.key == key {
            entry.item = item;
            self.bins.entry(bin).or_default().version += 1;
            return Ok(());
        }
        let old = std::mem::replace(entry, Entry { item, bin: bin.clone(), key, free });
        self.bins.entry(old.bin).or_default().removed.push((old.key, id));
        self.bins.entry(bin).or_default().added.push(id);
        Ok(())
    }

    /// Removes an item; whether it was queued (`false`: removed already).
    pub fn remove(&mut self, id: ItemId) -> Result<bool, MaterialError> {
        self.owns(id)?;
        let Some(old) = self.items.remove(id.key) else { return Ok(false) };
        self.bins.entry(old.bin).or_default().removed.push((old.key, id));
        Ok(true)
    }

    /// An id of another queue is an error.
    fn owns(&self, id: ItemId) -> Result<(), MaterialError> {
        match id.tag == self.tag {
            true => Ok(()),
            false => Err(MaterialError {
                subject: "cannot use the queue item".into(),
                kind: Box::new(MaterialErrorKind::Foreign),
            }),
        }
    }

    /// Encodes the items of pass `name` (`technique.pass`) in `order`
    /// through `cx`: a pipeline is set when it changes, bind groups through
    /// the binder, vertex and index buffers when they change.
    ///
    /// With [`Order::Listed`], a sorted bin that did not change since its last
    /// encode is encoded as a [`freqbuf::DrawList`] the queue keeps: its handles are resolved once,
    /// and its bind commands are replayed while the manager's generation
    /// holds ([`freqbuf::Binder::bind_list`]). The list is made again when an
    /// item's material now picks another shader, or an instance was freed
    /// ([`QueueStats::lists_made`]). A bin that changed since its last encode
    /// is encoded draw by draw: a list made every frame costs more than it saves.
    ///
    /// Cost: settling the bin (a merge of what moved since the last encode),
    /// then one pipeline lookup per item, and a replay of the list's bind
    /// commands (one bind per item when the list is made, or in
    /// [`Order::Queued`]).
    pub fn encode(
        &mut self,
        name: &str,
        order: Order,
        cx: &mut QueueContext<'_, '_>,
    ) -> Result<QueueStats, MaterialError> {
        // A capture shows each pass's draws under its name (no allocation).
        cx.pass.push_debug_group(name);
        let encoded = self.encode_in_group(name, order, cx);
        cx.pass.pop_debug_group();
        encoded
    }

    fn encode_in_group(
        &mut self,
        name: &str,
        order: Order,
        cx: &mut QueueContext<'_, '_>,
    ) -> Result<QueueStats, MaterialError> {
        let mut stats = QueueStats::default();
        match order {
            Order::Sorted | Order::Listed => {
                let Some(bin) = self.bins.get_mut(name) else { return known(name, cx).map(|()| stats) };
                settle(bin, &self.items, &mut stats);
                // A list pays off from its second encode: a bin that changed since
                // its last encode is encoded draw by draw.
                let steady = bin.encoded == Some(bin.version);
                bin.encoded = Some(bin.version);
                match order == Order::Listed && steady {
                    true => listed::encode_bin(bin, &self.items, cx, &mut stats, None)?,
                    false => {
                        let order = bin.sorted.iter().map(|&(_, id)| id);
                        encode_items(order, &self.items, cx, &mut stats)?;
                    }
                }
            }
            Order::Queued => {
                known(name, cx)?;
                let tag = self.tag;
                let order =
                    self.items.iter().filter(|(_, e)| e.bin == name).map(|(key, _)| ItemId { tag, key });
                encode_items(order, &self.items, cx, &mut stats)?;
            }
        }
        Ok(stats)
    }

    /// Encodes pass `name` as [`Order::Listed`] does, with the bin's draw
    /// list issued as multi-draw-indirect runs ([`freqbuf::Binder::draw_indirect`]):
    /// one call per run of items that share a pipeline, bind groups and
    /// vertex and index buffers, with arguments kept while the bin holds
    /// (`queue` writes the ones that change). A bin whose items draw other
    /// than one instance, or mix indexed and non-indexed geometry, is
    /// encoded draw by draw from its list; so is a bin's first encode after
    /// it changed. Cost: the per-item pipeline lookup of `Order::Listed`,
    /// then a call per run.
    pub fn encode_indirect(
        &mut self,
        name: &str,
        queue: &wgpu::Queue,
        cx: &mut QueueContext<'_, '_>,
    ) -> Result<QueueStats, MaterialError> {
        cx.pass.push_debug_group(name);
        let encoded = self.encode_indirect_in_group(name, queue, cx);
        cx.pass.pop_debug_group();
        encoded
    }

    fn encode_indirect_in_group(
        &mut self,
        name: &str,
        queue: &wgpu::Queue,
        cx: &mut QueueContext<'_, '_>,
    ) -> Result<QueueStats, MaterialError> {
        let mut stats = QueueStats::default();
        let Some(bin) = self.bins.get_mut(name) else { return known(name, cx).map(|()| stats) };
        settle(bin, &self.items, &mut stats);
        let steady = bin.encoded == Some(bin.version);
        bin.encoded = Some(bin.version);
        if steady {
            listed::encode_bin(bin, &self.items, cx, &mut stats, Some(queue))?;
        } else {
            let order = bin.sorted.iter().map(|&(_, id)| id);
            encode_items(order, &self.items, cx, &mut stats)?;
        }
        Ok(stats)
    }

    /// The items of pass `name` in the order `encode` draws them.
    pub fn order(&mut self, name: &str) -> (Vec<ItemId>, QueueStats) {
        let mut stats = QueueStats::default();
        let Some(bin) = self.bins.get_mut(name) else { return (Vec::new(), stats) };
        settle(bin, &self.items, &mut stats);
        (bin.sorted.iter().map(|&(_, id)| id).collect(), stats)
    }

    /// Forgets every bin's order, so that the next encode sorts each bin from
    /// scratch: what a queue without persistent bins does every frame (for comparison).
    pub fn resort_all(&mut self) {
        for (key, e) in &self.items {
            let id = ItemId { tag: self.tag, key };
            if let Some(bin) = self.bins.get_mut(&e.bin) {
                bin.removed.push((e.key, id));
                bin.added.push(id);
            }
        }
    }

    /// Brings every bin's order up to date without encoding (what `encode` does first).
    pub fn settle(&mut self) -> QueueStats {
        let mut stats = QueueStats::default();
        for bin in self.bins.values_mut() {
            settle(bin, &self.items, &mut stats);
        }
        stats
    }
}

/// Whether a pass is named `name`: a pass with nothing queued draws nothing,
/// a name no effect has is an error, since it is a typo.
fn known(name: &str, cx: &QueueContext<'_, '_>) -> Result<(), MaterialError> {
    if cx.effects.pass_names().any(|n| n == name) {
        return Ok(());
    }
    let suggestions = crate::error::closest(name, cx.effects.pass_names());
    Err(MaterialError {
        subject: format!("cannot encode pass `{name}`"),
        kind: Box::new(MaterialErrorKind::UnknownPass { suggestions }),
    })
}

/// The bin and sort key of an item: pipeline, material, object (front to
/// back instead of by material where `free`: materials bind nothing); or,
/// in a blending pass, back to front.
fn placement(
    fx: &Effects,
    mats: &Materials,
    item: &QueueItem,
    free: bool,
) -> Result<(String, SortKey), MaterialError> {
    let flags = mats.checked_flags(item.material)?;
    // A material of another effect (and family) is refused when queued, not at encode.
    fx.same_effect(item.pass, flags)?;
    let pass = fx.checked_pass(item.pass)?;
    let pipeline = fx.pipeline_key(item.pass, flags);
    let material = item.material.to_bits();
    let object = item.object.map_or(0, ObjectId::to_bits);
    // Depths as unsigned keys in the order of the floats.
    let bits = item.depth.to_bits();
    let ordered = if bits >> 31 == 1 { !bits } else { bits | 1 << 31 };
    let key = match (pass.blend == Blend::Opaque, free) {
        (true, false) => (0, pipeline, material, object),
        // Nearer first, within the pipeline: early depth rejection.
        (true, true) => (0, pipeline, u64::from(ordered), object),
        // Farther first: a descending order of depths, as ascending keys.
        (false, _) => (u64::from(!ordered), pipeline, material, 0),
    };
    Ok((pass.name.clone(), key))
}

/// Applies a bin's pending changes: by one merge pass when they are few
/// (removals filtered out in one sweep, additions sorted and merged in as
/// one run: O(n + c log c) for c changes in a bin of n, never more than a
/// sort), by sorting again when they are many.
fn settle(bin: &mut Bin, items: &SlotMap<ItemKey, Entry>, stats: &mut QueueStats) {
    // An item changed twice since the last settle is added once, with its current key.
    bin.added.sort_unstable();
    bin.added.dedup();
    let changes = bin.added.len() + bin.removed.len();
    if changes == 0 {
        return;
    }
    bin.version += 1;
    if changes * 8 > bin.sorted.len() {
        let removed = bin.removed.drain(..).collect::<std::collections::HashSet<_>>();
        bin.sorted.retain(|e| !removed.contains(e));
        bin.sorted.extend(bin.added.drain(..).filter_map(|id| Some((items.get(id.key)?.key, id))));
        bin.sorted.sort_unstable();
        stats.full_sorts += 1;
        return;
    }
    let mut removed = std::mem::take(&mut bin.removed);
    removed.sort_unstable();
    let (before, mut r) = (bin.sorted.len(), 0);
    bin.sorted.retain(|e| {
        while r < removed.len() && removed[r] < *e {
            r += 1;
        }
        let keep = removed.get(r) != Some(e);
        r += usize::from(!keep);
        keep
    });
    stats.moved += (before - bin.sorted.len()) as u64;
    removed.clear();
    bin.removed = removed;
    let mut added =
        bin.added.drain(..).filter_map(|id| Some((items.get(id.key)?.key, id))).collect::<Vec<_>>();
    added.sort_unstable();
    stats.moved += added.len() as u64;
    merge_from_back(&mut bin.sorted, &added);
}

/// Merges the sorted `run` into the sorted `sorted`, from the back, in place.
fn merge_from_back(sorted: &mut Vec<(SortKey, ItemId)>, run: &[(SortKey, ItemId)]) {
    let (mut i, mut j) = (sorted.len(), run.len());
    sorted.resize(i + j, Default::default());
    let mut k = sorted.len();
    while j > 0 {
        k -= 1;
        if i > 0 && sorted[i - 1] > run[j - 1] {
            sorted[k] = sorted[i - 1];
            i -= 1;
        } else {
            sorted[k] = run[j - 1];
            j -= 1;
        }
    }
}

fn encode_items(
    order: impl Iterator<Item = ItemId>,
    items: &SlotMap<ItemKey, Entry>,
    cx: &mut QueueContext<'_, '_>,
    stats: &mut QueueStats,
) -> Result<(), MaterialError> {
    let QueueContext { effects: fx, manager: fb, materials: mats, targets, pass, binder } = cx;
    let mut pipeline: Option<wgpu::RenderPipeline> = None;
    let mut geometry: Option<&Geometry> = None;
    for id in order {
        let Some(Entry { item, .. }) = items.get(id.key) else { continue };
        let flags = mats.checked_flags(item.material)?;
        let (shader, p) = fx.render_pipeline(fb, item.pass, flags, targets)?;
        if pipeline.as_ref() != Some(p) {
            pass.set_pipeline(p);
            pipeline = Some(p.clone());
            stats.pipelines += 1;
        }
        let first = binder.bind(fb, *pass, &listed::draw(shader, item))?;
        geometry = Some(draw_geometry(pass, &item.geometry, geometry, first));
        stats.draws += 1;
    }
    Ok(())
}

/// Sets `g`'s vertex and index buffers unless `last` had the same, and draws
/// it with its instances shifted by `first`, the draw's array-slot element.
/// Sets `g`'s vertex and index buffers unless `last` had the same.
fn set_geometry(pass: &mut wgpu::RenderPass<'_>, g: &Geometry, last: Option<&Geometry>) {
    if last.is_none_or(|last| last.vertex_buffers != g.vertex_buffers || last.index != g.index) {
        for (slot, b) in g.vertex_buffers.iter().enumerate() {
            pass.set_vertex_buffer(slot as u32, b.slice(..));
        }
        if let Some((b, format)) = &g.index {
            pass.set_index_buffer(b.slice(..), *format);
        }
    }
}

fn draw_geometry<'g>(
    pass: &mut wgpu::RenderPass<'_>,
    g: &'g Geometry,
    last: Option<&Geometry>,
    first: u32,
) -> &'g Geometry {
    set_geometry(pass, g, last);
    let instances = g.instances.start + first..g.instances.end + first;
    match g.index {
        Some(_) => pass.draw_indexed(g.range.clone(), g.base_vertex, instances),
        None => pass.draw(g.range.clone(), instances),
    }
    g
}
