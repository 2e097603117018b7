//! # freqbuf
//!
//! Shared uniform buffers for wgpu renderers, sorted by update frequency.
//!
//! freqbuf reflects every shader's uniform blocks with naga and sorts them
//! into one shared slot per binding point, grouped by [`Frequency`] (frame,
//! view, material, object) through a [`SlotPlan`]. Layouts that several
//! shaders declare for one slot are merged, and conflicts are typed errors.
//! Each slot keeps a CPU shadow; [`Manager::flush`] uploads only the dirty
//! bytes, and a [`Binder`] sets only the bind groups and dynamic offsets that
//! changed, so switching shaders uploads nothing.
//!
//! ## When to use it, and when not
//!
//! Use freqbuf when many shaders share per-frame, per-view, per-material and
//! per-object values, and you want every shader's blocks laid out, merged and
//! checked from reflection rather than by hand: hundreds of shaders and
//! thousands of draws, where per-shader constant caches re-upload the same
//! values for every shader.
//!
//! Use something simpler when that is not your case:
//! - one or a few shaders with their own uniforms: a plain buffer per block
//!   with `queue.write_buffer`, or one dynamic-offset buffer you fill yourself;
//! - per-object data read by instance index, with the object group bound once
//!   per pass: a storage array (Bevy's `GpuArrayBuffer`, Ogre-Next's
//!   `drawId`), which needs vertex-stage storage buffers.
//!
//! ## One frame
//!
//! ```no_run
//! use freqbuf::{Binder, Draw, Manager, SlotPlan};
//! # fn frame(device: &wgpu::Device, queue: &wgpu::Queue, pass: &mut wgpu::RenderPass<'_>) -> Result<(), freqbuf::Error> {
//! let mut fb = Manager::new(device, SlotPlan::default()); // 0 frame, 1 view, 2 material, 3 object
//! let lit = fb.register_wgsl(
//!     "lit.wgsl",
//!     "struct View { view_proj: mat4x4<f32> }
//!      @group(1) @binding(0) var<uniform> view: View;
//!      struct Object { world: mat4x4<f32> }
//!      @group(3) @binding(0) var<uniform> object: Object;
//!      @vertex fn vs() -> @builtin(position) vec4<f32> { return view.view_proj * object.world[3]; }",
//! )?;
//! // Build the pipeline with fb.pipeline_layout(lit)? and fb.create_shader_module(lit)?.
//! let (view_proj, world) = (fb.param("view_proj")?, fb.param("world")?); // resolve once
//! let (view, object) = (fb.create_view(), fb.create_object());
//!
//! fb.view(view).set(view_proj, &[[1.0f32, 0.0, 0.0, 0.0]; 4])?; // CPU shadow only
//! fb.object(object).set(world, &[[0.0f32; 4]; 4])?;
//! fb.flush(queue)?; // the dirty bytes, at most one upload call per slot
//! let mut binder = Binder::new(); // one per pass
//! let i = binder.bind(&mut fb, pass, &Draw::new(lit).view(view).object(object))?;
//! pass.draw(0..3, i..i + 1); // i: the draw's element in array slots (0 without)
//! # Ok(()) }
//! ```
//!
//! ## Objects in a storage array
//!
//! Declare per-object data as a storage array at an object binding, and
//! each draw reads its element by instance index: the object group is bound
//! once per pass, and [`Binder::bind`] returns the element to draw with.
//!
//! ```wgsl
//! struct Object { world: mat4x4<f32> }
//! @group(3) @binding(0) var<storage, read> objects: array<Object>;
//! @vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> {
//!     return objects[i].world[3];
//! }
//! ```
//!
//! Values are set per object as in a uniform block (`fb.object(id).set(world, &m)`,
//! or many at once with a [`Batch`]), and the draw is `pass.draw(.., i..i + 1)`
//! with the `i` the binder returned. Where the vertex stage cannot read
//! storage buffers (WebGL2), the slot is batches of a uniform array instead
//! ([`Addressing`]), with the same calls. `examples/loop.rs` runs a whole
//! frame loop on such an array, drawn with multi-draw indirect.
//!
//! Data flows one way through the modules (private but `reflect`; every item
//! is re-exported here, at one path):
//! `reflect` (one shader) → `registry` (all shaders, merged slot layouts,
//! every registration rule; `device` checks each against the device, and
//! `codegen` writes the merged slots out) → `slot` and `instance` (CPU
//! shadows, handles), written through `write` → `upload` (flush) →
//! `binding` (bind group layouts, bind groups, the binder). `manager` owns
//! one of each and hands each layer what it reads.

mod binding;
mod codegen;
mod device;
mod errors;
#[cfg(feature = "fault-injection")]
pub mod fault;
#[cfg(feature = "headless")]
mod headless;
mod id;
mod instance;
mod manager;
#[cfg(any(feature = "glam", feature = "mint"))]
mod math;
pub mod reflect;
mod registry;
mod slot;
mod stats;
mod upload;
mod write;

pub use binding::{BindState, BindTarget, Binder, Draw, DrawArgs, DrawList, IndirectDraws};
pub use device::creator::Creator;
pub use errors::{Error, ParamError, Report};
#[cfg(feature = "derive")]
pub use freqbuf_derive::ShaderStruct;
#[cfg(feature = "headless")]
pub use headless::Headless;
pub use id::{ShaderId, SlotId};
pub use instance::handles::{InstanceId, MaterialId, ObjectId, ViewId};
pub use instance::list::InstanceList;
pub use manager::Manager;
pub use registry::Registry;
pub use slot::array::Addressing;
pub use slot::layout::{SlotLayout, SlotMember};
pub use slot::plan::{BindingPoint, Frequency, Sharing, SlotPlan};
pub use slot::rows::Rows;
pub use slot::slab::{SlabFrom, SlabSource};
pub use stats::{BindCalls, FrameStats, Stats};
pub use write::batch::{Batch, StructBatch};
pub use write::param::{Param, Uniform};
pub use write::setters::InstanceMut;
pub use write::typed::{ShaderField, ShaderStruct, StructParam};

/// What went wrong, in detail: the `*Kind` enums inside [`Error`]'s and
/// [`ParamError`]'s variants, and the sites (file, line:column, member) they name.
pub mod error {
    pub use crate::errors::{
        LayoutErrorKind, LimitErrorKind, Location, MemberSite, ParamErrorKind, ReflectError,
        ReflectErrorKind, ResourceSite, RowsErrorKind, WgpuError, WgpuErrorKind,
    };
}

/// The shape of a [`ShaderStruct`]: its fields as `#[derive(ShaderStruct)]`
/// lays them out, which [`Manager::param_struct`] checks against reflection.
pub mod shape {
    pub use crate::write::typed::{FieldType, StructMember};
}

/// What `freqbuf-effects` shares with the core: reading untrusted shader
/// text (naga_oil and the WESL compiler recurse as naga does, and effect
/// files and modules are read under the same limits) and the suggestions of
/// every "did you mean". Not an API: the two crates move together, and a
/// renderer never needs these.
#[doc(hidden)]
pub mod __effects {
    pub use crate::reflect::name::closest;
    pub use crate::reflect::stack::on_deep_stack;

    /// Reads a regular file of at most `limit` bytes, as reflection does.
    pub fn read_file(path: &std::path::Path, limit: u64) -> Result<Vec<u8>, String> {
        crate::reflect::read_file(path, limit)
    }
}

/// What `#[derive(ShaderStruct)]` expands to calls; not an API.
#[doc(hidden)]
pub mod __derive {
    pub use crate::write::typed::{put_array, put_member, put_struct, struct_members_at};
}
pub use upload::FlushStrategy;

/// naga, whose types appear in reflection (`naga::ShaderStage`, `naga::ImageClass`, ...).
pub use naga;

/// The crate's README (what the registry shows), compiled as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadme;
