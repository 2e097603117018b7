//! Error types, one file per layer: reflection, slot layout, device limits,
//! parameters. As in naga, each error has an outer part that says which item
//! failed (the shader, the binding point, the parameter) and an inner `*Kind`
//! that says what went wrong; naga's own errors stay typed as sources, with
//! their spans. Source errors carry a [`Location`].
//!
//! One [`Error`] gathers them for every operation rather than one type per
//! operation: the operations share most failures (a stale handle or a foreign
//! id in set, bind and free; `Wgpu` and `NotFlushed` in register, flush and
//! bind), so per-operation enums would repeat those variants and force a
//! conversion at every layer boundary, while `Error`'s variants already say
//! which layer failed.

mod error;
mod layout;
mod limit;
mod location;
mod param;
mod reflect;
mod report;
mod rows;
mod wgpu_error;

pub use error::Error;
pub use layout::{LayoutErrorKind, MemberSite, ResourceSite};
pub(crate) use limit::LimitError;
pub use limit::LimitErrorKind;
pub use location::Location;
pub use param::{ParamError, ParamErrorKind};
pub use reflect::{ReflectError, ReflectErrorKind};
pub use report::Report;
pub(crate) use report::chain;
pub use rows::RowsErrorKind;
pub use wgpu_error::{WgpuError, WgpuErrorKind};
