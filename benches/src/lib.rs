//! freqbuf's benchmark suite: the scene generator, freqbuf in every form the
//! stress example runs, and the baselines it is measured against, each
//! rendering the same scene with the same shaders and pipelines. The stress
//! and window examples and the criterion benches in `benches/benches/`
//! (`frame`, `binder`) use it; the core keeps only its micro-benchmarks.
//!
//! * `freqbuf`: shared slots, dirty-byte flush, the draw binder.
//! * `per_shader_cache` (D3DX Effect / bgfx): every shader owns a copy of every
//!   block it declares; shared values are set in every shader; at every draw
//!   where the shader or its values changed, its whole constant data is committed
//!   into a per-frame scratch ring bound with dynamic offsets, uploaded once.
//! * `full_rewrite`: frame, view and material data through freqbuf; every
//!   object's data re-uploaded every frame into one dynamic-offset buffer.
//! * `encode_floor`: the same draws with bind groups built and offsets computed
//!   beforehand, and no uploads: the cost of encoding alone.
//! * `storage_instancing` (Bevy's `GpuArrayBuffer`, Ogre-Next's `drawId`;
//!   scenes with `object_storage` only): object data in one storage array at
//!   its own stride, read by instance index; only changed objects uploaded,
//!   coalesced, scattered by a compute pass when they are many; the object
//!   group bound once per pass. Frame, view and material data go through
//!   freqbuf's uniform slots, the best uniform handling at hand.
//!
//! With `object_storage`, `full_rewrite` rewrites the whole storage array every
//! frame and `encode_floor` binds it once; `per_shader_cache` does not apply.

#![allow(missing_docs, reason = "a benchmark harness, not an API: each type's file says what it measures")]
#![allow(missing_debug_implementations, reason = "the methods hold GPU state that nobody prints")]

mod encode_floor;
mod freqbuf;
mod full_rewrite;
mod method;
mod objects;
mod per_shader_cache;
mod rows;
pub mod scene;
mod storage;
pub mod textures;

pub use encode_floor::EncodeFloor;
pub use freqbuf::Freqbuf;
pub use full_rewrite::FullRewrite;
pub use method::{
    ALIGN, BINDLESS_OBJECT_STRIDE, Cost, FORMAT, MATERIAL_STRIDE, Method, OBJECT_STRIDE, SIZE, Shared,
    Target, off, register_all, register_bindless,
};
pub use per_shader_cache::PerShaderCache;
pub use storage::StorageInstancing;
