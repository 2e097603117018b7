//! # freqbuf
//!
//! Shared uniform buffers for wgpu renderers, sorted by update frequency.
//!
//! freqbuf reflects every shader's uniform blocks with naga and sorts them
//! into one shared slot per binding point, grouped by [`Frequency`] (frame,
//! view, material, object) through a [`SlotPlan`]. Layouts that several
//! shaders declare for one slot are merged, and conflicts are typed errors.
//!
//! Data flows one way through the modules:
//! [`reflect`] (one shader) → [`registry`] (all shaders, merged slot layouts).
#![warn(missing_docs)]

pub mod error;
pub mod layout;
pub mod name;
pub mod plan;
pub mod reflect;
pub mod registry;

pub use error::{
    Error, LayoutError, LayoutErrorKind, Location, ParamError, ParamErrorKind, ReflectError,
    ReflectErrorKind,
};
pub use layout::SlotLayout;
pub use plan::{BindingPoint, Frequency, SlotPlan};
pub use reflect::{
    BlockLayout, EntryPoint, Member, MemberType, Resource, ResourceKind, ShaderReflection,
    ShaderSource,
};
pub use registry::{Registry, ShaderId, SlotId};

pub use naga;
pub use wgpu;
