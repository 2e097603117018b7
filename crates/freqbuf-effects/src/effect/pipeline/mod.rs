//! wgpu pipelines: the requests a draw makes (`request.rs`), the store of
//! modules and pipelines for one device (`pipelines.rs`), building them
//! (`job.rs`) and many of them on threads as they are made (`build.rs`),
//! warming, the pipeline log and its replay, and the application's pipeline
//! cache file.

pub(super) mod build;
pub(super) mod cache_file;
pub(super) mod job;
pub(super) mod log;
pub(super) mod logged;
pub(super) mod pipelines;
pub(super) mod request;
pub(super) mod warm;
