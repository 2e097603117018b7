//! The draw binder: bind group layouts generated from reflection, and a
//! [`Binder`] that sets only the bind groups and dynamic offsets that changed.
//!
//! Each shader's bind group for group `g` has the layout of exactly the bindings
//! it uses in `g`. Shaders that use the same bindings share one layout (a
//! *variant*), so their bind groups are interchangeable and stay bound across
//! pipeline switches. Uniform slots are bound with dynamic offsets; textures,
//! samplers and storage buffers belong to the instance of the group's frequency
//! (usually the material), which owns one bind group per variant.

use smallvec::SmallVec;

use crate::error::Error;
use crate::instance::{MaterialId, ObjectId, ViewId};
use crate::plan::Frequency;
use crate::registry::{ShaderId, SlotId};

/// Bind group index limit freqbuf tracks per pass (wgpu's `max_bind_groups` is at most 8).
pub(crate) const MAX_GROUPS: usize = 8;

/// Index of a bind group layout variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct VariantId(pub(crate) u32);

/// One entry of a variant, in binding order.
#[derive(Clone, Debug)]
pub(crate) enum VariantEntry {
    /// A shared uniform slot, bound with a dynamic offset.
    Uniform(SlotId),
    /// A texture, sampler or storage buffer owned by the group's instance.
    Resource { binding: u32, ty: wgpu::BindingType, count: u32 },
}

/// A bind group layout shared by every shader that uses the same bindings in one group.
#[derive(Debug)]
pub(crate) struct Variant {
    pub(crate) group: u32,
    pub(crate) layout: wgpu::BindGroupLayout,
    pub(crate) entries: Vec<VariantEntry>,
    /// The uniform slots, in binding order (the order of dynamic offsets).
    pub(crate) uniforms: SmallVec<[SlotId; 4]>,
    /// The frequency whose instances own the non-uniform resources, if any.
    pub(crate) owner: Option<Frequency>,
    /// Bind groups by owner index (index 0 when there is no owner).
    pub(crate) cache: Vec<Option<CachedGroup>>,
}

/// A built bind group and the epoch of the inputs it was built from.
#[derive(Debug)]
pub(crate) struct CachedGroup {
    pub(crate) group: wgpu::BindGroup,
    pub(crate) stamp: u64,
    pub(crate) serial: u64,
}

/// What a pass needs from a shader: its groups' variants and its pipeline layout.
#[derive(Debug)]
pub(crate) struct ShaderBinding {
    pub(crate) groups: SmallVec<[(u32, VariantId); 4]>,
    /// Every slot's GPU copy is known to hold the shader's blocks (checked once,
    /// on a cold path, against the manager's `needs`).
    pub(crate) ready: bool,
    pub(crate) pipeline_layout: wgpu::PipelineLayout,
}

/// The instances one draw uses. Fields a shader does not need may be `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draw {
    /// The shader (its pipeline must have been made with its pipeline layout).
    pub shader: ShaderId,
    /// The view instance.
    pub view: Option<ViewId>,
    /// The material instance.
    pub material: Option<MaterialId>,
    /// The object instance.
    pub object: Option<ObjectId>,
}

impl Draw {
    /// A draw of `shader` with no instances yet.
    #[inline]
    pub fn new(shader: ShaderId) -> Self {
        Self { shader, view: None, material: None, object: None }
    }

    /// With a view.
    #[inline]
    pub fn view(mut self, v: ViewId) -> Self {
        self.view = Some(v);
        self
    }

    /// With a material.
    #[inline]
    pub fn material(mut self, m: MaterialId) -> Self {
        self.material = Some(m);
        self
    }

    /// With an object.
    #[inline]
    pub fn object(mut self, o: ObjectId) -> Self {
        self.object = Some(o);
        self
    }
}

/// Something bind groups can be set on: a render pass, compute pass or bundle encoder.
pub trait BindTarget {
    /// Forwards to the pass's `set_bind_group`.
    fn set_bind_group(&mut self, index: u32, group: &wgpu::BindGroup, offsets: &[u32]);
}

impl BindTarget for wgpu::RenderPass<'_> {
    #[inline]
    fn set_bind_group(&mut self, index: u32, group: &wgpu::BindGroup, offsets: &[u32]) {
        wgpu::RenderPass::set_bind_group(self, index, group, offsets);
    }
}

impl BindTarget for wgpu::ComputePass<'_> {
    #[inline]
    fn set_bind_group(&mut self, index: u32, group: &wgpu::BindGroup, offsets: &[u32]) {
        wgpu::ComputePass::set_bind_group(self, index, group, offsets);
    }
}

impl BindTarget for wgpu::RenderBundleEncoder<'_> {
    #[inline]
    fn set_bind_group(&mut self, index: u32, group: &wgpu::BindGroup, offsets: &[u32]) {
        wgpu::RenderBundleEncoder::set_bind_group(self, index, group, offsets);
    }
}

/// What is bound at one group index: the bind group's serial (0: nothing) and the offsets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Bound {
    pub(crate) serial: u64,
    pub(crate) offsets: SmallVec<[u32; 4]>,
}

/// Tracks what one pass has bound, so that each draw sets only what changed.
///
/// Make one per pass (or call [`Binder::reset`] when starting a new pass); bind
/// groups stay bound across `set_pipeline` as WebGPU specifies, so a shader
/// switch alone sets nothing.
#[derive(Debug, Default)]
pub struct Binder {
    pub(crate) bound: [Bound; MAX_GROUPS],
}

impl Binder {
    /// A binder for a new pass.
    #[inline]
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets what is bound (use it when reusing the binder for a new pass).
    #[inline]
    pub fn reset(&mut self) {
        self.bound = Default::default();
    }

    /// Sets the bind groups and dynamic offsets `draw` needs that differ from
    /// what this pass has bound.
    ///
    /// Cost: a few array lookups per group; a bind group is built only the
    /// first time a (layout, owner) pair is drawn, or after its inputs change.
    #[inline]
    pub fn bind<P: BindTarget>(
        &mut self,
        manager: &mut crate::Manager,
        pass: &mut P,
        draw: &Draw,
    ) -> Result<(), Error> {
        manager.bind_draw(self, pass, draw, u32::MAX)
    }

    /// Like [`Binder::bind`], but only for the group indices in `groups`; the
    /// caller binds the others itself (a group it manages outside freqbuf).
    #[inline]
    pub fn bind_groups<P: BindTarget>(
        &mut self,
        manager: &mut crate::Manager,
        pass: &mut P,
        draw: &Draw,
        groups: std::ops::Range<u32>,
    ) -> Result<(), Error> {
        let mask = (groups.start..groups.end.min(MAX_GROUPS as u32)).fold(0u32, |m, g| m | 1 << g);
        manager.bind_draw(self, pass, draw, mask)
    }
}

/// Layout entry for a uniform slot: dynamic offset, size checked at draw time.
pub(crate) fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: all_stages(),
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Every stage a shared layout may be used from. Fixed, so that layouts of
/// shaders of different stages stay identical and interchangeable.
#[inline]
pub(crate) fn all_stages() -> wgpu::ShaderStages {
    wgpu::ShaderStages::VERTEX_FRAGMENT | wgpu::ShaderStages::COMPUTE
}
