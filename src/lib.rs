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
//! [`reflect`] (one shader) → [`registry`] (all shaders, merged [`layout`]s) →
//! [`manager`] (slot shadows and GPU buffers, instances) → [`upload`] (flush) →
//! [`bind`] (bind groups and the draw binder).

pub mod bind;
pub mod error;
#[cfg(feature = "headless")]
pub mod headless;
pub mod instance;
pub mod layout;
mod limits;
pub mod manager;
#[cfg(any(feature = "glam", feature = "mint"))]
mod math;
pub mod name;
pub mod param;
pub mod plan;
pub mod reflect;
pub mod registry;
mod resources;
mod scope;
mod slot;
mod stack;
pub mod stats;
pub mod upload;

pub use bind::{BindTarget, Binder, Draw};
pub use error::{
    Error, LayoutError, LayoutErrorKind, LimitError, LimitErrorKind, Location, ParamError, ParamErrorKind,
    ReflectError, ReflectErrorKind,
};
pub use instance::{InstanceId, MaterialId, ObjectId, ViewId};
pub use layout::SlotLayout;
pub use manager::{InstanceMut, Manager, ManagerOptions};
pub use param::{Param, Uniform};
pub use plan::{BindingPoint, Frequency, SlotPlan};
pub use reflect::{
    BlockLayout, EntryPoint, Member, MemberType, Resource, ResourceKind, ShaderReflection, ShaderSource,
};
pub use registry::{Registry, ShaderId, SlotId};
pub use stats::{FrameStats, Stats};
pub use upload::FlushStrategy;

pub use naga;
pub use wgpu;
