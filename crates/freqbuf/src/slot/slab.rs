//! Slabs: array slots found through another array's member, not through
//! the instance index.
//!
//! Use a slab instead of a material uniform slot when many materials of one
//! family draw with one pipeline (Bevy 0.20's bindless materials): every
//! material is one element of one storage array, so a material change binds
//! nothing and indirect runs span materials. The shader finds the element
//! through per-object data, `materials[objects[instance_index].material]`;
//! reflection follows that index ([`crate::reflect::IndexSource`]), and
//! freqbuf writes each draw's material element into the object's member
//! when the draw is linked ([`crate::Manager::link`], or
//! [`crate::Manager::draw_list`]; the writing and the checks are in
//! `binding/link.rs`). Or the shader reads the element from its immediate
//! data, `materials[imm.material]`: then the binder sets it per draw, which
//! needs no link but ends an indirect run at every material change. Values,
//! dirty tracking and flush are those of any array slot.

use crate::slot::plan::{BindingPoint, Frequency};

/// Where a slab's element index is read: a `u32` member of another array
/// slot's element, or of the immediate data, masked (`SlotLayout::slab`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlabSource {
    /// What holds the index: the objects' array, or the immediate data.
    pub from: SlabFrom,
    /// The member's path (`material_and_lightmap_bind_group_slot`).
    pub member: String,
    /// Its byte offset in the element.
    pub offset: u32,
    /// The bits freqbuf writes; the others stay the application's.
    pub mask: u32,
}

/// What holds a slab's element index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlabFrom {
    /// A member of the draw's element of the array slot at this point
    /// (written by linking).
    Array(BindingPoint),
    /// The immediate data, set by the binder per draw.
    Immediate,
}

impl std::fmt::Display for SlabFrom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SlabFrom::Array(p) => write!(f, "the array at {p}"),
            SlabFrom::Immediate => f.write_str("the immediate data"),
        }
    }
}

/// One pointer a draw of a shader needs: the element of the draw's
/// instance in slot `to`, written at `offset` (under `mask`) into the
/// draw's element of slot `from`, or set as immediate data at `offset`
/// (`from` is `None`) (slot indices: a scratch registry keeps them under
/// its own tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) from: Option<usize>,
    pub(crate) offset: u32,
    pub(crate) mask: u32,
    pub(crate) to: usize,
}

/// What linking has done to the instances, for the lists and binds that rely on it.
#[derive(Debug, Default)]
pub(crate) struct Links {
    /// Per frequency, a bit per dense index: the instance holds a pointer
    /// written by a link (freed instances lose it).
    linked: [Vec<u64>; Frequency::COUNT],
    /// Links that moved a pointer already written: lists made before may point wrong.
    moved: u64,
    /// Flushes so far, and the flush count when a pointer was last written.
    flushes: u64,
    written_at: Option<u64>,
}

impl Links {
    /// The count a draw list keeps: a list made before a pointer it relies
    /// on moved is stale.
    #[inline]
    pub(crate) fn moved(&self) -> u64 {
        self.moved
    }

    /// Whether a pointer was written since the last flush, so that the GPU
    /// copy does not hold it yet.
    #[inline]
    pub(crate) fn pending(&self) -> bool {
        self.written_at == Some(self.flushes)
    }

    /// Flushes so far.
    #[inline]
    pub(crate) fn flushes(&self) -> u64 {
        self.flushes
    }

    /// A pointer was written; `moved`: over one a link wrote before.
    pub(crate) fn wrote(&mut self, moved: bool) {
        self.written_at = Some(self.flushes);
        self.moved += u64::from(moved);
    }

    pub(crate) fn flushed(&mut self) {
        self.flushes += 1;
    }

    pub(crate) fn freed(&mut self, f: Frequency, index: u32) {
        if let Some(w) = self.linked[f.index()].get_mut(index as usize / 64) {
            *w &= !(1 << (index % 64));
        }
    }

    /// Marks `index` of `f` linked; whether it was already.
    pub(crate) fn link(&mut self, f: Frequency, index: u32) -> bool {
        let words = &mut self.linked[f.index()];
        let w = index as usize / 64;
        if words.len() <= w {
            words.resize(w + 1, 0);
        }
        let bit = 1 << (index % 64);
        let was = words[w] & bit != 0;
        words[w] |= bit;
        was
    }
}
