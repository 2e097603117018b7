//! Code generation from merged slot layouts: WGSL declarations (`wgsl`) and
//! `#[repr(C)]` Rust structs (`rust`).

pub(crate) mod rust;
pub(crate) mod wgsl;
