//! The effects layer's integration tests, one module per topic, linked into
//! one binary (each test binary links wgpu). They share the core's GPU
//! helpers through the `freqbuf-testing` crate.

use freqbuf_testing as common;

mod cache_file;
mod constraints;
mod contradictions;
mod defs;
mod device_flags;
mod effects;
mod families;
mod materials;
mod materials_families;
mod queue;
mod queue_devices;
mod queue_slabs;
mod stages;
mod store_writes;
mod warm;
#[cfg(feature = "wesl")]
mod wesl;
