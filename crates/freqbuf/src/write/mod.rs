//! Writes: how values reach a slot's shadow.
//!
//! Resolved names (`param`), the rules every writer checks and one
//! instance's writer (`setters`), many instances at once (`batch`) through
//! the write-behind queue (`behind`), and `#[derive(ShaderStruct)]` values
//! (`typed`). A write tells binding what it changed; it never binds.

pub(crate) mod batch;
pub(crate) mod behind;
pub(crate) mod param;
pub(crate) mod setters;
pub(crate) mod typed;
