//! `Manager`: the runtime facade. It owns the registry, one [`Slot`] per
//! shared uniform slot, the instance table, the binding layer and the
//! uploader, and passes each layer what it needs: values go into slot
//! shadows, `flush` uploads the dirty bytes and reports what it replaced, and
//! the [`Binder`](crate::Binder) binds what each draw needs.

use crate::binding::{BindGroups, Layouts};
use crate::device::creator::Creator;
use crate::device::limits::DeviceCaps;
use crate::errors::{Error, ParamError};
use crate::id::SlotId;
use crate::instance::handles::InstanceTable;
use crate::registry::Registry;
use crate::slot::array::Addressing;
use crate::slot::plan::{Frequency, SlotPlan};
use crate::slot::shadow::Slot;
use crate::stats::FrameStats;
use crate::upload::{FlushStrategy, Sink, Uploader};
use crate::write::param::Param;

mod batch;
mod bind;
mod instances;
mod rows;
mod shaders;

/// Shared, frequency-sorted uniform slots for every registered shader.
///
/// Per frame: set values through [`Manager::frame`], [`Manager::view`],
/// [`Manager::material`] and [`Manager::object`]; call [`Manager::flush`] once;
/// then encode draws with a [`Binder`](crate::Binder). A draw sees the values as they were at
/// the last flush before its submission, or is refused with
/// [`Error::NotFlushed`].
///
/// Bad input is an error, never a panic: shaders beyond the device's limits,
/// unknown or ambiguous names, wrong value types and resources that do not fit
/// their binding are refused, and a failed call changes nothing.
///
/// ```no_run
/// use freqbuf::{Error, Manager, SlotPlan};
/// use freqbuf::error::ParamErrorKind;
/// # fn f(device: &wgpu::Device) -> Result<(), Error> {
/// let mut fb = Manager::new(device, SlotPlan::default());
/// fb.register_wgsl(
///     "mat.wgsl",
///     "struct MatA { color: vec4<f32> }
///      struct MatB { color: vec4<f32>, rough: f32 }
///      @group(2) @binding(0) var<uniform> mat_a: MatA;
///      @group(2) @binding(1) var<uniform> mat_b: MatB;
///      @fragment fn fs() -> @location(0) vec4<f32> { return mat_a.color + mat_b.color * mat_b.rough; }",
/// )?;
/// // Two blocks declare `color`: the bare name is ambiguous, a qualified one is not.
/// assert!(matches!(fb.param("color").unwrap_err().kind, ParamErrorKind::Ambiguous { .. }));
/// let color = fb.param("mat_b.color")?;
/// let m = fb.create_material();
/// fb.material(m).set(color, &[1.0f32, 0.5, 0.2, 1.0])?;
/// // A value of the wrong type is refused and nothing is written.
/// assert!(fb.material(m).set(color, &1.0f32).is_err());
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Manager {
    device: wgpu::Device,
    caps: DeviceCaps,
    registry: Registry,
    slots: Vec<Slot>,
    instances: InstanceTable,
    layouts: Layouts,
    groups: BindGroups,
    uploader: Uploader,
    stats: FrameStats,
    /// Flushes that replaced a slot buffer, and recreations.
    replacements: u64,
    /// Unique to this manager's current device: a new one on `recreate`.
    device_serial: u64,
}

impl Manager {
    /// A manager for `device` with the given plan and default options.
    ///
    /// Limits (offset alignment, uniform binding size) are read from `device.limits()`.
    pub fn new(device: &wgpu::Device, plan: SlotPlan) -> Self {
        Self::with_strategy(device, plan, FlushStrategy::default())
    }

    /// A manager that flushes with `strategy` (for comparing strategies; the
    /// default, [`FlushStrategy::Auto`], picks per slot).
    pub fn with_strategy(device: &wgpu::Device, plan: SlotPlan, strategy: FlushStrategy) -> Self {
        Self::build(device, plan, strategy, wgpu::DownlevelFlags::compliant())
    }

    /// A manager for a device whose adapter has these downlevel flags
    /// (`adapter.get_downlevel_capabilities().flags`). [`Manager::new`]
    /// assumes a WebGPU-compliant device; pass the flags where it may not be
    /// (GLES, WebGL2): without `VERTEX_STORAGE`, array slots become batched
    /// uniform arrays (see [`SlotLayout::is_array`](crate::SlotLayout::is_array)).
    pub fn with_downlevel(device: &wgpu::Device, plan: SlotPlan, downlevel: wgpu::DownlevelFlags) -> Self {
        Self::build(device, plan, FlushStrategy::default(), downlevel)
    }

    fn build(
        device: &wgpu::Device,
        plan: SlotPlan,
        strategy: FlushStrategy,
        downlevel: wgpu::DownlevelFlags,
    ) -> Self {
        let caps = DeviceCaps::new(device, downlevel);
        let registry = Registry::with_limit(plan, caps.max_uniform());
        Self {
            device: device.clone(),
            instances: InstanceTable::new(registry.tag()),
            registry,
            slots: Vec::new(),
            layouts: Layouts::default(),
            groups: BindGroups::default(),
            uploader: Uploader::new(strategy, caps.limits.clone()),
            stats: FrameStats::default(),
            replacements: 0,
            device_serial: crate::id::Counter::DeviceSerial.next(),
            caps,
        }
    }

    /// The reflection registry: shaders, merged slot layouts, bindings.
    #[inline]
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The byte distance between instances in a slot's buffer (`None` for a foreign id).
    pub fn slot_stride(&self, slot: SlotId) -> Option<u32> {
        self.owned_slot(slot).map(Slot::stride)
    }

    /// How draws address a slot's instances on this device: a dynamic offset
    /// per draw, a storage buffer indexed by instance, or uniform batches
    /// where the device has no storage buffers in every stage (`None` for a
    /// foreign id). Decided when the slot is created, from the device's
    /// limits and downlevel flags.
    pub fn slot_addressing(&self, slot: SlotId) -> Option<crate::Addressing> {
        self.owned_slot(slot).map(Slot::addressing)
    }

    /// The slot behind `slot`, unless the id is another manager's.
    fn owned_slot(&self, slot: SlotId) -> Option<&Slot> {
        self.slots.get(slot.index()).filter(|_| self.registry.owns_slot(slot))
    }

    /// The device the manager creates its objects on: after
    /// [`Manager::recreate`], the new one.
    #[inline]
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The features and limits of [`Manager::device`], read once when the
    /// manager was made or moved: unlike `device.features()` and
    /// `device.limits()`, a call costs no lookup into wgpu, so per-draw
    /// code may ask.
    #[inline]
    pub fn features(&self) -> wgpu::Features {
        self.caps.features
    }

    /// See [`Manager::features`].
    #[inline]
    pub fn limits(&self) -> &wgpu::Limits {
        &self.caps.limits
    }

    /// A number that changes whenever the manager moves to another device
    /// ([`Manager::recreate`]) and differs between managers. A cache of wgpu
    /// objects made for this manager keys on it, and drops its objects when
    /// it moves, as the effects layer's pipeline cache does.
    #[inline]
    pub fn device_serial(&self) -> u64 {
        self.device_serial
    }

    /// A handle that creates wgpu objects on [`Manager::device`] inside
    /// freqbuf's error scopes, from any thread (pipelines built on worker
    /// threads, for instance). After [`Manager::recreate`] it still creates
    /// on the old device: ask again.
    ///
    /// Cost: a clone of the device handle.
    pub fn creator(&self) -> Creator {
        Creator::new(self.device.clone())
    }

    /// The flush strategy in use.
    pub fn flush_strategy(&self) -> FlushStrategy {
        self.uploader.strategy
    }

    /// Changes the flush strategy (for comparing strategies on one scene).
    pub fn set_flush_strategy(&mut self, strategy: FlushStrategy) {
        self.uploader.strategy = strategy;
    }

    /// A slot whose dirty bytes cover at least `fraction` of the span from its
    /// first to its last dirty byte uploads that span in one write (default
    /// 0.2, measured; above 1.0 never, 0.0 always). For benchmarks.
    pub fn set_span_fraction(&mut self, fraction: f32) {
        self.uploader.span_fraction = fraction;
    }

    /// Resolves a name or path (`view_proj`, `lights[3].color`, `GMRTs[2]`) to a
    /// [`Param`], once. Unknown names get suggestions.
    pub fn param(&self, name: &str) -> Result<Param, ParamError> {
        self.registry.resolve(name, None)
    }

    /// [`Manager::param`] among the slots shaders of `family` use: the shared
    /// ones and that family's own (materials, by default). Needed when
    /// several families' blocks declare the name
    /// ([`ParamErrorKind::InFamilies`](crate::error::ParamErrorKind::InFamilies)).
    pub fn param_in(&self, family: &str, name: &str) -> Result<Param, ParamError> {
        self.registry.resolve_in(family, name, None)
    }

    /// The uniform block `name` (its variable or struct name) resolved for
    /// the Rust struct `T` ([`ShaderStruct`](crate::ShaderStruct), usually
    /// derived): every field must be a member of the block with the same
    /// WGSL type at the same offset, or the error lists each one that is not.
    /// Set it with [`InstanceMut::set_struct`](crate::InstanceMut::set_struct).
    /// Cost: a pass over the slots and one member lookup per field, once.
    pub fn param_struct<T: crate::ShaderStruct>(
        &self,
        name: &str,
    ) -> Result<crate::StructParam<T>, ParamError> {
        self.registry.struct_param(name, None)
    }

    /// [`Manager::param_struct`] among the blocks of `family`'s shaders.
    pub fn param_struct_in<T: crate::ShaderStruct>(
        &self,
        family: &str,
        name: &str,
    ) -> Result<crate::StructParam<T>, ParamError> {
        self.registry.struct_param(name, Some(family))
    }

    /// Uploads the dirty bytes of every slot: at most one upload call per slot,
    /// and work proportional to the dirty bytes, not to the instance count.
    /// Also makes slots and instances created since the last flush usable.
    ///
    /// Draws submitted after this call see the values set before it.
    pub fn flush(&mut self, queue: &wgpu::Queue) -> Result<(), Error> {
        self.flush_to(queue, Sink::Own(None))
    }

    /// [`Manager::flush`] into the application's frame encoder: the copies
    /// and scatter dispatches are recorded into `encoder` instead of a
    /// submit of freqbuf's own, so a frame makes one submit. Draws recorded
    /// after this call into `encoder` (or into later submits) see the values
    /// set before it. The bytes go up through freqbuf's staging belt, copied
    /// by commands recorded into `encoder` (an upload over 16 MiB through
    /// `queue.write_buffer`, which wgpu applies before the next submit's
    /// command buffers).
    ///
    /// Submit `encoder` before the next flush: the manager counts these bytes
    /// as on the GPU (a dropped encoder leaves the buffers as they were until
    /// the values are set again, and keeps the belt memory its copies read
    /// from being reused), and an upload over 16 MiB of a later flush lands
    /// before any later submit. Two `flush_into`s before either encoder is
    /// submitted still each carry the values of their own flush: the belt's
    /// copies run in encoder order.
    ///
    /// Cost: as `flush`, without its submits.
    pub fn flush_into(
        &mut self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), Error> {
        self.flush_to(queue, Sink::External(encoder))
    }

    fn flush_to(&mut self, queue: &wgpu::Queue, sink: Sink<'_>) -> Result<(), Error> {
        self.instances.mark_flushed();
        let highs = Frequency::ALL.map(|f| self.instances.high(f));
        let report = self.uploader.flush(&self.device, queue, &mut self.slots, highs, &mut self.stats, sink);
        for &slot in &report.replaced {
            self.groups.invalidate(self.layouts.users_of(slot));
        }
        self.replacements += u64::from(!report.replaced.is_empty() || report.rows_lost);
        report.error.map_or(Ok(()), Err)
    }

    /// Changes whenever something a recorded draw depends on may have
    /// changed: a flush that replaced a slot buffer (growth, a new stride)
    /// or left caller-owned rows unwritten ([`crate::Rows`]), `recreate`, a texture, sampler or buffer set on (or dropped with) an
    /// instance, or any free (the freed index may go to another handle, whose
    /// values a recorded offset would then read).
    ///
    /// A `wgpu::RenderBundle` recorded through a [`Binder`](crate::Binder) keeps the bind
    /// groups and offsets of its recording: replay it while this is unchanged
    /// (flushes update values in place, so it sees them), and record it again
    /// when it changes. This is the same rule that makes a
    /// [`DrawList`](crate::DrawList) [`Error::StaleList`]. Cost: two additions.
    #[inline]
    pub fn generation(&self) -> u64 {
        self.replacements + self.instances.resource_epoch() + self.instances.frees()
    }

    /// Statistics since the last call of `take_stats`.
    #[inline]
    pub fn stats(&self) -> &FrameStats {
        &self.stats
    }

    /// Returns the statistics gathered since the last call and starts new ones.
    pub fn take_stats(&mut self) -> FrameStats {
        let fresh = FrameStats { slots: vec![Default::default(); self.slots.len()], ..Default::default() };
        std::mem::replace(&mut self.stats, fresh)
    }

    /// Creates runtime slots for new registry slots and grows changed ones.
    fn sync_slots(&mut self) {
        let align = self.caps.limits.min_uniform_buffer_offset_alignment;
        for (id, layout) in self.registry.slots() {
            match self.slots.get_mut(id.index()) {
                // Bind groups keep the GPU layout until the next flush re-lays the buffer.
                Some(slot) => slot.grow_block(layout.size()),
                None => {
                    let addressing = match layout.is_array() {
                        true => self.caps.array_addressing(layout.size()),
                        false => Addressing::Dynamic,
                    };
                    let (binding, frequency) = (layout.binding(), layout.frequency());
                    let (size, family) = (layout.size(), layout.family());
                    let mut slot = Slot::new(id, binding, frequency, size, align, addressing, family);
                    slot.reserve(self.instances.high(layout.frequency()));
                    self.slots.push(slot);
                }
            }
        }
    }
}
