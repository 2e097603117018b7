//! The device: every rule it imposes on a shader, checked before any wgpu
//! object exists (`limits`), and the error scopes objects are created in
//! (`scope`).

pub(crate) mod limits;
pub(crate) mod scope;
