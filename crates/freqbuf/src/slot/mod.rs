//! Slots: the shared buffers values live in, one per binding point.
//!
//! The plan says which group and frequency a binding point has (`plan`);
//! the registry merges every shader's block at a point into one layout
//! (`layout`); a slot keeps its CPU shadow (its memory in `memory`) and GPU
//! buffer (`shadow`), the
//! bytes that changed since the last flush (`dirty`), how its elements are
//! addressed (`array`), and, for arrays found through another array's member
//! or written by the application, its slab source (`slab`) and caller-owned
//! handle (`rows`).

pub(crate) mod array;
pub(crate) mod dirty;
pub(crate) mod layout;
pub(crate) mod memory;
pub(crate) mod plan;
pub(crate) mod rows;
pub(crate) mod shadow;
pub(crate) mod slab;
