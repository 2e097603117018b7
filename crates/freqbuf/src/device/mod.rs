//! The device: every rule it imposes on a shader, checked before any wgpu
//! object exists (`limits`), the error scopes objects are created in
//! (`scope`), and the handle that opens them from any thread (`creator`).

pub(crate) mod creator;
pub(crate) mod limits;
pub(crate) mod scope;
