//! The core's integration tests, one module per topic, linked into one
//! binary: each test binary links wgpu, which costs CI seconds per binary.

use freqbuf_testing as common;

mod arrays;
mod batch;
mod buffer_arrays;
mod bundles;
mod entry_points;
mod families;
mod faults;
mod foreign;
mod immediate_slabs;
mod indirect;
mod indirect_model;
mod inputs;
mod limits;
mod messages;
mod names;
mod ray_queries;
mod recreate;
mod reflect;
mod render;
mod resources;
mod rows;
mod runtime;
mod rust_corpus;
mod scale;
mod slabs;
mod tables;
mod typed;
mod values;
mod visibility;
