//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod gpu;
pub mod rules;
pub mod scene;
