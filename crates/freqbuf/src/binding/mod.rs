//! Binding: bind group layouts generated from reflection ([`layouts`]), the
//! bind group cache with placeholders and instance resources ([`groups`]),
//! the frozen per-frame [`state`] binders read, the draw [`binder`], and draw
//! lists resolved once ([`list`]), and lists issued as indirect runs ([`indirect`]). It reads slots, instances and the registry
//! and calls nothing above it.

mod binder;
mod draw;
mod groups;
mod indirect;
mod layouts;
mod list;
mod placeholders;
mod state;

pub use binder::{BindTarget, Binder};
pub use draw::Draw;
pub(crate) use groups::{BindGroups, describe};
pub(crate) use indirect::Run;
pub use indirect::{DrawArgs, IndirectDraws};
pub(crate) use layouts::{Layouts, ShaderBinding};
pub use list::DrawList;
pub(crate) use list::{Recorded, Recorder};
pub use state::BindState;
pub(crate) use state::{DrawInputs, GroupAccess};
