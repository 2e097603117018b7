//! The effects layer's errors, split as the core's are: an outer part that
//! says which item failed and a typed inner `*Kind`. The core's
//! [`freqbuf::Error`] stays typed inside them as a source.

mod effect;
mod effect_kind;
mod format;

pub use effect::{EffectError, EffectErrorKind};
pub use effect::{MaterialError, MaterialErrorKind};
pub(crate) use format::chain;

use std::fmt;

/// `Debug` as [`freqbuf::Report`] writes it, as the core's errors do: what
/// `main` and `unwrap` print is the message and its causes.
macro_rules! debug_as_report {
    ($($t:ty),*) => {$(
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&freqbuf::Report(self), f)
            }
        }
    )*};
}

debug_as_report!(EffectError, MaterialError);

/// Up to three known names closest to `name`, best first: the core's rule,
/// so that both crates suggest alike.
pub(crate) use freqbuf::__effects::closest;
