//! WESL sources (`.wesl`), compiled one permutation at a time by the `wesl`
//! crate, as Bevy 0.20 compiles its shaders: `@if(...)` names are the
//! effect's flags, `[packages]` map package names to folders, and `[defs]`
//! become the virtual `constants` package. Behind the `wesl` feature; without
//! it, a `.wesl` source is refused by name.
//!
//! `discover` finds, once per effect, the files a source can import and the
//! names its `@if`s test; `compile` compiles one permutation of them into the
//! naga module the rest of the layer reflects, as it does naga_oil's.

use std::path::Path;

#[cfg(feature = "wesl")]
mod compile;
#[cfg(feature = "wesl")]
mod discover;
#[cfg(feature = "wesl")]
mod map;
#[cfg(feature = "wesl")]
mod public;

#[cfg(feature = "wesl")]
pub(crate) use compile::permutation;
#[cfg(feature = "wesl")]
pub(crate) use discover::{Library, Sources};

#[cfg(not(feature = "wesl"))]
mod stub;
#[cfg(not(feature = "wesl"))]
pub(crate) use stub::{Library, Sources, permutation};

/// Whether a file name is WESL's.
pub(in crate::effect) fn is_wesl(name: &str) -> bool {
    Path::new(name).extension().is_some_and(|e| e == "wesl")
}
