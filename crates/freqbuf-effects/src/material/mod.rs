//! Materials and auto constants: the application layer of
//! Ogre's material scripts and auto constants and of Unreal's material
//! instances, on the shared slots.
//!
//! They are in the effects crate rather than one of their own: a material
//! is an effect and its flags, and they add no dependency beyond it.

mod auto;
mod math;
mod store;
mod value;

pub use auto::{AutoConstants, Camera, Semantic};
pub use math::{IntoColumns, IntoVec2};
pub use store::{Materials, validate_tables};
pub(crate) use value::check_tables;
