//! `Slot`: one shared uniform buffer for one binding point.
//!
//! A slot holds every instance of its frequency at `index * stride` in one GPU
//! buffer, bound with a dynamic offset per instance (a uniform block), or whole
//! as a storage array indexed by instance, or in batches of a uniform array
//! where the device has no vertex storage (an array slot, `Addressing`), and
//! keeps a CPU shadow of the same bytes.
//! Writes go to the shadow and mark a byte range of the instance dirty; only
//! [`crate::Manager::flush`] touches the GPU. Use a slot (through the manager)
//! for data shared by many shaders; bind a plain buffer yourself for data that
//! one shader owns.

use crate::id::SlotId;
use crate::slot::array::Addressing;
use crate::slot::dirty::DirtySet;
use crate::slot::memory;
use crate::slot::plan::{BindingPoint, Frequency};

/// Buffer usages of a slot buffer: bound as uniform, written by copies or the scatter pass.
pub(crate) const SLOT_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::UNIFORM
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::STORAGE);

/// Instances a new slot buffer holds before it first grows.
const MIN_CAPACITY: u32 = 16;

/// Runtime state of one shared uniform slot.
#[derive(Debug)]
pub(crate) struct Slot {
    id: SlotId,
    binding: BindingPoint,
    frequency: Frequency,
    /// How draws address instances: dynamic offsets, or an array slot's element index.
    addressing: Addressing,
    /// Bytes of one instance that shaders read (the merged block size).
    size: u32,
    /// Distance between instances: `size` rounded up to the offset alignment
    /// (an array slot's elements: `size`, the array's own stride).
    stride: u32,
    align: u32,
    /// CPU copy of every instance; its length is `held * stride`, and empty
    /// where the caller owns the rows.
    shadow: Vec<u8>,
    /// Dirty instances; where the caller owns the rows, the rows never
    /// written since they were created, re-laid or lost ([`Slot::own_rows`]).
    dirty: DirtySet,
    /// Instances the slot holds.
    held: u32,
    /// The application owns the rows ([`crate::Rows`]): no shadow is kept.
    caller: bool,
    /// The GPU buffer; replaced (never resized) on growth.
    buffer: Option<wgpu::Buffer>,
    /// Instances the GPU buffer holds.
    gpu_capacity: u32,
    /// Stride the GPU buffer was laid out with.
    gpu_stride: u32,
    /// Block size the GPU buffer's bind groups expose: `size` as of the last flush.
    /// Draws address the buffer with `gpu_stride` and `gpu_size` until the next
    /// flush re-lays it, so a register between a flush and a draw cannot make a
    /// draw read another instance's bytes.
    gpu_size: u32,
    /// What a GPU debugger shows for its buffer, built once ([`label`]).
    label: String,
}

impl Slot {
    pub(crate) fn new(
        id: SlotId,
        binding: BindingPoint,
        frequency: Frequency,
        size: u32,
        align: u32,
        addressing: Addressing,
        family: Option<&str>,
    ) -> Self {
        let stride = stride(size, align, addressing);
        Self {
            label: label(frequency, family, binding, addressing, stride),
            id,
            binding,
            frequency,
            addressing,
            size,
            stride,
            align,
            shadow: Vec::new(),
            dirty: DirtySet::default(),
            held: 0,
            caller: false,
            buffer: None,
            gpu_capacity: 0,
            gpu_stride: 0,
            gpu_size: 0,
        }
    }

    #[inline]
    pub(crate) fn id(&self) -> SlotId {
        self.id
    }

    /// Its buffer's debug label, e.g. `freqbuf slot material[pbr] @2:0 (256 B stride)`.
    pub(crate) fn label(&self) -> &str {
        &self.label
    }

    #[inline]
    pub(crate) fn binding(&self) -> BindingPoint {
        self.binding
    }

    #[inline]
    pub(crate) fn frequency(&self) -> Frequency {
        self.frequency
    }

    /// How draws address this slot's instances.
    #[inline]
    pub(crate) fn addressing(&self) -> Addressing {
        self.addressing
    }

    /// Bytes of one instance that shaders read (the merged block size).
    #[inline]
    pub(crate) fn size(&self) -> u32 {
        self.size
    }

    /// Distance between instances in the shadow (the GPU copy catches up at flush).
    #[inline]
    pub(crate) fn stride(&self) -> u32 {
        self.stride
    }

    /// The CPU copy of every instance.
    #[inline]
    pub(crate) fn shadow(&self) -> &[u8] {
        &self.shadow
    }

    /// The GPU buffer, once a flush made one.
    #[inline]
    pub(crate) fn gpu_buffer(&self) -> Option<&wgpu::Buffer> {
        self.buffer.as_ref()
    }

    /// Instances the GPU buffer holds.
    #[inline]
    pub(crate) fn gpu_capacity(&self) -> u32 {
        self.gpu_capacity
    }

    /// Stride the GPU buffer is laid out with.
    #[inline]
    pub(crate) fn gpu_stride(&self) -> u32 {
        self.gpu_stride
    }

    /// Block size the GPU buffer's bind groups expose.
    #[inline]
    pub(crate) fn gpu_size(&self) -> u32 {
        self.gpu_size
    }

    /// Whether the GPU buffer exists and is laid out with the shadow's stride.
    #[inline]
    pub(crate) fn gpu_matches_stride(&self) -> bool {
        self.buffer.is_some() && self.gpu_stride == self.stride
    }

    /// Makes `buffer`, holding `capacity` instances at the shadow's stride, the
    /// GPU copy; bind groups then expose the shadow's block size. Flush only.
    pub(crate) fn install(&mut self, buffer: wgpu::Buffer, capacity: u32) {
        self.buffer = Some(buffer);
        self.gpu_capacity = capacity;
        self.gpu_stride = self.stride;
        self.gpu_size = self.size;
    }

    /// Exposes a grown block on the same buffer; returns whether the size changed.
    pub(crate) fn expose_size(&mut self) -> bool {
        std::mem::replace(&mut self.gpu_size, self.size) != self.size
    }

    /// Instances the slot holds.
    #[inline]
    pub(crate) fn instances(&self) -> u32 {
        self.held
    }

    /// Makes room for `count` instances in the shadow; new bytes are zero
    /// (new rows of a caller-owned slot are unwritten).
    pub(crate) fn reserve(&mut self, count: u32) {
        if count > self.held {
            self.dirty.reserve(count as usize);
            match self.caller {
                true => (self.held..count).for_each(|i| self.dirty.mark(i, 0, 4)),
                false => memory::resize_zeroed(&mut self.shadow, count as usize * self.stride as usize),
            }
            self.held = count;
        }
    }

    /// Whether the application owns the rows ([`Slot::own_rows`]).
    #[inline]
    pub(crate) fn caller_owned(&self) -> bool {
        self.caller
    }

    /// Hands the rows to the application: the shadow goes, and every row is
    /// unwritten until a [`crate::Rows`] write packs it.
    pub(crate) fn own_rows(&mut self) {
        if !self.caller {
            self.caller = true;
            self.shadow = Vec::new();
            self.mark_all_unwritten();
        }
    }

    /// Whether row `index` of a caller-owned slot awaits its first write.
    #[inline]
    pub(crate) fn unwritten(&self, index: u32) -> bool {
        self.caller && self.dirty.contains(index)
    }

    /// Takes the unwritten rows below `below`, ascending (caller-owned slots).
    pub(crate) fn take_unwritten(&mut self, below: u32, mut take: impl FnMut(u32)) {
        self.dirty.drain_below(below, |i, _, _| take(i));
    }

    /// Marks row `index` unwritten again (its write did not reach the GPU).
    #[inline]
    pub(crate) fn mark_unwritten(&mut self, index: u32) {
        self.dirty.mark(index, 0, 4);
    }

    fn mark_all_unwritten(&mut self) {
        (0..self.held).for_each(|i| self.dirty.mark(i, 0, 4));
    }

    /// Re-lays the shadow for a larger block size, keeping every value.
    pub(crate) fn grow_block(&mut self, size: u32) {
        if size <= self.size {
            return;
        }
        self.size = size;
        self.relay(stride(size, self.align, self.addressing));
    }

    /// Moves every instance of the shadow to `stride`, keeping its bytes.
    fn relay(&mut self, stride: u32) {
        if stride == self.stride {
            return;
        }
        if self.caller {
            self.stride = stride;
            return self.mark_all_unwritten();
        }
        let n = self.instances() as usize;
        let keep = self.stride.min(stride) as usize;
        let mut shadow = Vec::new();
        memory::resize_zeroed(&mut shadow, n * stride as usize);
        for i in 0..n {
            let from = i * self.stride as usize;
            shadow[i * stride as usize..][..keep].copy_from_slice(&self.shadow[from..from + keep]);
        }
        self.shadow = shadow;
        self.stride = stride;
    }

    /// The bytes of one instance.
    #[inline]
    pub(crate) fn instance_bytes(&self, index: u32) -> &[u8] {
        let start = index as usize * self.stride as usize;
        &self.shadow[start..start + self.size as usize]
    }

    /// Writes `bytes` at `offset` in instance `index`, marking only the bytes
    /// that change as dirty. Returns whether anything changed.
    ///
    /// The caller has checked that the range lies inside the block.
    #[inline(always)]
    pub(crate) fn write(&mut self, index: u32, offset: u32, bytes: &[u8]) -> bool {
        let start = index as usize * self.stride as usize + offset as usize;
        let dst = &mut self.shadow[start..start + bytes.len()];
        let Some((first, last)) = crate::slot::dirty::changed_span(dst, bytes) else {
            return false;
        };
        // All of it: the bytes outside the span are equal, and a copy of the
        // value's fixed size inlines where a copy of the span calls memcpy.
        dst.copy_from_slice(bytes);
        // Copies move whole 4-byte words.
        let lo = (offset + first as u32) & !3;
        let hi = round_up(offset + last as u32 + 1, 4);
        self.dirty.mark(index, lo, hi);
        true
    }

    /// The shadow bytes `offset..offset + len` of instance `index`, if it holds them.
    #[inline]
    pub(crate) fn shadow_span(&self, index: u32, offset: u32, len: usize) -> Option<&[u8]> {
        let start = index as usize * self.stride as usize + offset as usize;
        self.shadow.get(start..start + len)
    }

    /// Writes every field of a typed block at its offset in instance `index`,
    /// each compared on its own (fields the struct lacks keep their bytes).
    /// `scratch` holds the struct's buffer form: at least `T::SIZE` bytes.
    pub(crate) fn write_struct<T: crate::ShaderStruct>(&mut self, index: u32, value: &T, scratch: &mut [u8]) {
        value.write_gpu(scratch);
        self.write_members::<T>(index, scratch);
    }

    /// Writes the fields of a typed block from its buffer form `bytes`, each
    /// compared on its own.
    pub(crate) fn write_members<T: crate::ShaderStruct>(&mut self, index: u32, bytes: &[u8]) {
        crate::write::typed::for_each_span(T::MEMBERS, 0, &mut |at, len| {
            self.write(index, at, &bytes[at as usize..(at + len) as usize]);
        });
    }

    /// Zeroes instance `index` (a reused index must not show its old values);
    /// a caller-owned row becomes unwritten.
    pub(crate) fn clear_instance(&mut self, index: u32) {
        if self.caller {
            return self.mark_unwritten(index);
        }
        let zeros = [0u8; 256];
        let mut offset = 0;
        while offset < self.size {
            let n = (self.size - offset).min(zeros.len() as u32);
            self.write(index, offset, &zeros[..n as usize]);
            offset += n;
        }
    }

    /// Number of dirty instances.
    #[inline]
    pub(crate) fn dirty_count(&self) -> usize {
        self.dirty.count()
    }

    /// Takes the dirty ranges of instances below `below` as absolute byte
    /// ranges in the buffer, sorted and coalesced where they touch or are at
    /// most `gap` bytes apart. Instances at or above `below` stay dirty.
    ///
    /// Cost: O(d) in the dirty instances d, plus one summary word per 4,096
    /// instances ([`DirtySet`]); clean instances are never visited.
    pub(crate) fn take_ranges(&mut self, gap: u32, below: u32, out: &mut Vec<(u64, u64)>) {
        let stride = self.stride as u64;
        let first = out.len();
        self.dirty.drain_below(below, |i, lo, hi| {
            let (lo, hi) = (i as u64 * stride + lo as u64, i as u64 * stride + hi as u64);
            match out[first..].last_mut() {
                Some(last) if lo <= last.1 + gap as u64 => last.1 = last.1.max(hi),
                _ => out.push((lo, hi)),
            }
        });
    }

    /// Takes every dirty instance as one byte range, from the first dirty
    /// byte to the last, where several share one span, all lie below `below`,
    /// and their dirty bytes cover at least `fraction` of that range (the clean
    /// bytes inside equal what the GPU holds). Otherwise takes nothing.
    ///
    /// Cost: the dirty set's summary words, with no visit of each instance.
    pub(crate) fn take_whole_span(&mut self, fraction: f32, below: u32) -> Option<(u64, u64)> {
        let (first, last, lo, hi) = self.dirty.uniform()?;
        if last >= below || first == last {
            return None;
        }
        let stride = self.stride as u64;
        let range = (first as u64 * stride + lo as u64, last as u64 * stride + hi as u64);
        let dirty = self.dirty.count() as u64 * (hi - lo) as u64;
        if !crate::slot::dirty::fills_span(dirty, range.1 - range.0, fraction) {
            return None;
        }
        self.dirty.clear();
        Some(range)
    }

    /// Marks the absolute byte range `lo..hi` of the shadow dirty again (a
    /// flush took it but could not move it); bytes past a block's end are not.
    pub(crate) fn remark(&mut self, lo: u64, hi: u64) {
        let (stride, end) = (self.stride as u64, self.size.next_multiple_of(4) as u64);
        if hi <= lo {
            return;
        }
        for i in lo / stride..=(hi - 1) / stride {
            let base = i * stride;
            let (a, b) = (lo.saturating_sub(base).min(end), (hi - base).min(end));
            if a < b {
                self.dirty.mark(i as u32, a as u32 & !3, round_up(b as u32, 4));
            }
        }
    }

    /// Forgets the GPU buffer (the device was lost) and re-lays the shadow for
    /// `align`; every instance becomes dirty, so the next flush uploads it all.
    pub(crate) fn reset_gpu(&mut self, align: u32) {
        self.buffer = None;
        self.gpu_capacity = 0;
        self.gpu_stride = 0;
        self.gpu_size = 0;
        self.align = align;
        self.relay(stride(self.size, align, self.addressing));
        if self.caller {
            return self.mark_all_unwritten();
        }
        let size = self.size.next_multiple_of(4);
        for i in 0..self.instances() {
            self.dirty.mark(i, 0, size);
        }
    }

    /// Forgets all dirty state (after a full upload).
    pub(crate) fn clear_dirty(&mut self) {
        self.dirty.clear();
    }
}

/// The distance between instances: an offset-aligned step for dynamic
/// offsets, the element size for array slots.
fn stride(size: u32, align: u32, addressing: Addressing) -> u32 {
    match addressing {
        Addressing::Dynamic => round_up(size.max(4), align),
        Addressing::Storage | Addressing::Batched { .. } => size.max(4),
    }
}

/// Rounds `n` up to a multiple of `align` (a power of two).
#[inline]
pub(crate) const fn round_up(n: u32, align: u32) -> u32 {
    (n + align - 1) & !(align - 1)
}

/// The GPU capacity to grow to for `count` instances: the next power of two.
#[inline]
pub(crate) fn grown_capacity(count: u32, addressing: Addressing) -> u32 {
    let n = count.max(MIN_CAPACITY).next_power_of_two();
    match addressing {
        // The last batch's binding window must lie inside the buffer.
        Addressing::Batched { per } => n.next_multiple_of(per),
        _ => n,
    }
}

/// A slot buffer's debug label: what it holds, whose, where it binds, and
/// how instances are laid out, so a capture tells a material slot of one
/// family from the object array: `freqbuf slot material[pbr] @2:0 (256 B
/// stride)`, `freqbuf object array @3:0 (112 B per instance)`.
fn label(
    frequency: Frequency,
    family: Option<&str>,
    at: BindingPoint,
    addressing: Addressing,
    stride: u32,
) -> String {
    let family = family.map_or_else(String::new, |f| format!("[{f}]"));
    let (g, b) = (at.group, at.binding);
    match addressing {
        Addressing::Dynamic => format!("freqbuf slot {frequency}{family} @{g}:{b} ({stride} B stride)"),
        Addressing::Storage => {
            format!("freqbuf {frequency} array{family} @{g}:{b} ({stride} B per instance)")
        }
        Addressing::Batched { per } => {
            format!("freqbuf {frequency} array{family} @{g}:{b} ({stride} B per instance, batches of {per})")
        }
    }
}

#[cfg(test)]
mod label_tests {
    use super::*;

    #[test]
    fn labels_say_what_whose_where_and_how() {
        let at = BindingPoint::new(2, 0);
        let slot =
            Slot::new(SlotId::new(1, 0), at, Frequency::Material, 48, 256, Addressing::Dynamic, Some("pbr"));
        assert_eq!(slot.label(), "freqbuf slot material[pbr] @2:0 (256 B stride)");
        let at = BindingPoint::new(3, 0);
        let slot = Slot::new(SlotId::new(1, 1), at, Frequency::Object, 112, 256, Addressing::Storage, None);
        assert_eq!(slot.label(), "freqbuf object array @3:0 (112 B per instance)");
    }
}
