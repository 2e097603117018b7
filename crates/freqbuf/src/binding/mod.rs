//! Binding: bind group layouts generated from reflection ([`layouts`]), the
//! bind group cache with placeholders and instance resources ([`groups`]),
//! the frozen per-frame [`state`] binders read, the draw [`binder`], and draw
//! lists resolved once ([`list`]). It reads slots, instances and the registry
//! and calls nothing above it.

mod binder;
mod draw;
mod groups;
mod layouts;
mod list;
mod placeholders;
mod state;

pub use binder::{BindTarget, Binder};
pub use draw::Draw;
pub(crate) use groups::{BindGroups, describe};
pub(crate) use layouts::{Layouts, ShaderBinding};
pub use list::DrawList;
pub(crate) use list::Recorder;
pub use state::BindState;
pub(crate) use state::{DrawInputs, GroupAccess};
