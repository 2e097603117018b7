//! What the queue draws: an item (a pass of a material, its instances and
//! geometry) and the context an encode draws through.

use std::ops::Range;

use freqbuf::{Binder, Manager, MaterialId, ObjectId, ViewId};

use crate::effect::{Effects, PassId, Targets};
use crate::material::Materials;

/// What one draw reads from buffers.
#[derive(Clone, Debug, PartialEq)]
pub struct Geometry {
    /// Vertex buffers by slot (empty for vertex pulling).
    pub vertex_buffers: Vec<wgpu::Buffer>,
    /// The index buffer and its format, for an indexed draw.
    pub index: Option<(wgpu::Buffer, wgpu::IndexFormat)>,
    /// Vertices, or indices when indexed.
    pub range: Range<u32>,
    /// Added to each index (indexed draws).
    pub base_vertex: i32,
    /// Instances; the queue adds the draw's array-slot element (see [`freqbuf::Binder::bind`]).
    pub instances: Range<u32>,
}

impl Geometry {
    /// Vertices `range` from no buffer (vertex pulling), one instance.
    pub fn vertices(range: Range<u32>) -> Self {
        Self { vertex_buffers: Vec::new(), index: None, range, base_vertex: 0, instances: 0..1 }
    }

    /// Indices `range` of `index` (in `format`) into `vertex_buffers` by
    /// slot, base vertex 0, one instance.
    pub fn indexed(
        vertex_buffers: Vec<wgpu::Buffer>,
        index: wgpu::Buffer,
        format: wgpu::IndexFormat,
        range: Range<u32>,
    ) -> Self {
        Self { vertex_buffers, index: Some((index, format)), range, base_vertex: 0, instances: 0..1 }
    }

    /// The same geometry drawn for `instances`.
    pub fn with_instances(mut self, instances: Range<u32>) -> Self {
        self.instances = instances;
        self
    }
}

/// One draw: a pass of a material's effect, its instances and its geometry.
#[derive(Clone, Debug)]
pub struct QueueItem {
    /// The technique pass (of the material's effect).
    pub pass: PassId,
    /// The material: its flags pick the permutation, its instance the values.
    pub material: MaterialId,
    /// The view instance, if the shader has view slots.
    pub view: Option<ViewId>,
    /// The object instance, if the shader has object slots.
    pub object: Option<ObjectId>,
    /// What to draw.
    pub geometry: Geometry,
    /// Distance from the camera, for back-to-front order in blending passes.
    pub depth: f32,
}

/// What [`RenderQueue::encode`](super::RenderQueue::encode) draws through: the layers, the targets the
/// pipelines are built for, the pass and its binder.
#[derive(Debug)]
pub struct QueueContext<'a, 'p> {
    /// The effects whose pipelines the items draw with.
    pub effects: &'a mut Effects,
    /// The manager the items' instances live in.
    pub manager: &'a mut Manager,
    /// The materials the items name.
    pub materials: &'a Materials,
    /// The pass's color and depth formats.
    pub targets: &'a Targets,
    /// The render pass to encode into.
    pub pass: &'a mut wgpu::RenderPass<'p>,
    /// The pass's binder.
    pub binder: &'a mut Binder,
}

impl<'a, 'p> QueueContext<'a, 'p> {
    /// The context of one render pass, in field order.
    pub fn new(
        effects: &'a mut Effects,
        manager: &'a mut Manager,
        materials: &'a Materials,
        targets: &'a Targets,
        pass: &'a mut wgpu::RenderPass<'p>,
        binder: &'a mut Binder,
    ) -> Self {
        Self { effects, manager, materials, targets, pass, binder }
    }
}
