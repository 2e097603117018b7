//! Arena ids of the registry: shaders and slots. Each carries its registry's
//! tag, so that one registry (or manager) refuses the ids of another.

/// A registered shader. It carries its registry's tag, so that a manager
/// refuses the ids of another one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ShaderId {
    tag: u32,
    index: u32,
}

/// A shared uniform slot, tagged like [`ShaderId`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlotId {
    tag: u32,
    index: u32,
}

impl ShaderId {
    #[inline]
    pub(crate) fn new(tag: u32, index: u32) -> Self {
        Self { tag, index }
    }

    /// The tag of the registry that made it.
    #[inline]
    pub(crate) fn tag(self) -> u32 {
        self.tag
    }

    /// The arena index.
    #[inline]
    pub fn index(self) -> usize {
        self.index as usize
    }
}

impl SlotId {
    #[inline]
    pub(crate) fn new(tag: u32, index: u32) -> Self {
        Self { tag, index }
    }

    /// The tag of the registry that made it.
    #[inline]
    pub(crate) fn tag(self) -> u32 {
        self.tag
    }

    /// The arena index.
    #[inline]
    pub fn index(self) -> usize {
        self.index as usize
    }
}

/// Tags registries apart; 0 is never handed out.
pub(crate) static NEXT_TAG: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
