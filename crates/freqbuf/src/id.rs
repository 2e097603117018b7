//! Arena ids of the registry: shaders and slots. Each carries its registry's
//! tag, so that one registry (or manager) refuses the ids of another.

/// Defines an id type: an arena index and the tag of the registry that made it.
macro_rules! tagged_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name {
            tag: u32,
            index: u32,
        }

        impl $name {
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
    };
}

tagged_id!(
    /// A registered shader. It carries its registry's tag, so that a manager
    /// refuses the ids of another one.
    ShaderId
);

tagged_id!(
    /// A shared uniform slot, tagged like [`ShaderId`].
    SlotId
);

/// Tags registries apart; 0 is never handed out.
pub(crate) static NEXT_TAG: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
