//! Binding: bind group layouts generated from reflection (`group_layouts`), the
//! bind group cache with placeholders and instance resources ([`groups`]),
//! the frozen per-frame [`state`] binders read, the draw [`binder`] and
//! where it sends commands ([`target`]), draw lists resolved once
//! ([`list`]), lists issued as indirect runs with their argument upload
//! ([`indirect`]), and the binder's entries over both ([`replay`]). The
//! bind path and every `Binder` body are here; the five entries that take the manager
//! are lines in `manager/bind.rs` that lend its state through one
//! [`context`] and call in. It reads slots, instances and the
//! registry and calls nothing above it.

mod binder;
mod context;
mod draw;
mod group_layouts;
mod groups;
mod indirect;
mod link;
mod list;
mod placeholders;
mod replay;
mod state;
mod target;

pub use binder::Binder;
pub(crate) use context::BindContext;
pub use draw::Draw;
pub(crate) use group_layouts::{Layouts, ShaderBinding};
pub(crate) use groups::{BindGroups, describe};
pub use indirect::{DrawArgs, IndirectDraws};
pub(crate) use link::write_links;
pub use list::DrawList;
pub use state::BindState;
pub(crate) use state::Parts;
pub use target::BindTarget;
pub(crate) use target::{ALL_GROUPS, mask};
