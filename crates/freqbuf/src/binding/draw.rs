//! A draw: a shader and the instance of each frequency it reads.
//!
//! Build one per draw call (it is a few words, `Copy`), or collect them into a
//! [`DrawList`](crate::DrawList) when the same draws repeat across frames.

use crate::id::ShaderId;
use crate::instance::handles::{InstanceId, MaterialId, ObjectId, RawKey, ViewId};
use crate::slot::plan::Frequency;

/// The instances one draw uses, one per frequency; a frequency the shader
/// does not read may be left out, and the frame is implied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draw {
    shader: ShaderId,
    instances: [Option<RawKey>; Frequency::COUNT],
}

impl Draw {
    /// A draw of `shader` with no instances yet.
    #[inline]
    pub fn new(shader: ShaderId) -> Self {
        Self { shader, instances: [None; Frequency::COUNT] }
    }

    /// With an instance of any frequency (replacing one of its frequency).
    #[inline]
    pub fn with(mut self, id: impl Into<InstanceId>) -> Self {
        let id = id.into();
        self.instances[id.frequency().index()] = id.key();
        self
    }

    /// With a view.
    #[inline]
    pub fn view(self, v: ViewId) -> Self {
        self.with(v)
    }

    /// With a material.
    #[inline]
    pub fn material(self, m: MaterialId) -> Self {
        self.with(m)
    }

    /// With an object.
    #[inline]
    pub fn object(self, o: ObjectId) -> Self {
        self.with(o)
    }

    /// The shader (its pipeline must have been made with its pipeline layout).
    #[inline]
    pub fn shader(&self) -> ShaderId {
        self.shader
    }

    /// The instance of `f` the draw names, if any; the frame's is implied.
    #[inline]
    pub fn instance(&self, f: Frequency) -> Option<InstanceId> {
        match self.instances[f.index()] {
            Some(key) => Some(InstanceId::new(f, Some(key))),
            None if f == Frequency::Frame => Some(InstanceId::FRAME),
            None => None,
        }
    }

    /// The instance keys by frequency, for the instance table.
    #[inline]
    pub(crate) fn keys(&self) -> &[Option<RawKey>; Frequency::COUNT] {
        &self.instances
    }
}
