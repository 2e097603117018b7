//! Arena ids of the registry: shaders and slots. Each carries its registry's
//! tag, so that one registry (or manager) refuses the ids of another; and
//! the process-wide counters that tags and serials come from.

use std::sync::atomic::{AtomicU64, Ordering};

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

/// The process-wide counters, all in one place: each hands out numbers
/// unique in the process, never 0, because wgpu's own ids repeat across
/// Instances and a freqbuf object must tell its own from another's.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Counter {
    /// Tags registries (and their managers) apart: ids and handles carry it.
    RegistryTag,
    /// Serials of (manager, device) pairs: caches keyed by device.
    DeviceSerial,
    /// Serials of bind groups built, by any manager (0: nothing bound).
    BindGroup,
    /// Serials of draw lists: a recording names the list it replays.
    DrawList,
}

static COUNTERS: [AtomicU64; 4] = [const { AtomicU64::new(1) }; 4];

impl Counter {
    /// The next number; cost: one relaxed atomic add.
    #[inline]
    pub(crate) fn next(self) -> u64 {
        COUNTERS[self as usize].fetch_add(1, Ordering::Relaxed)
    }

    /// [`Counter::next`] for counters that fit tags of 32 bits.
    #[inline]
    pub(crate) fn next_tag(self) -> u32 {
        u32::try_from(self.next()).expect("fewer than 2^32 registries in one process")
    }
}
