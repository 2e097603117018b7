//! Instances: one copy of a slot's data per view, material or object.
//!
//! Handles and the table that gives each its element (`handles`), lists of
//! objects in the order a draw list or caller-owned rows use (`list`),
//! material families (`family`), and the binding arrays a family's slab
//! indexes (`table`).

pub(crate) mod family;
pub(crate) mod handles;
pub(crate) mod list;
pub(crate) mod table;
