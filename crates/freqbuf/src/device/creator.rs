//! `Creator`: wgpu object creation inside freqbuf's error scopes, from any
//! thread.
//!
//! Use it for the objects an application or a layer above freqbuf makes for
//! a manager's shaders (pipelines, modules), on the thread that makes them:
//! [`Manager::creator`](crate::Manager::creator) hands one out that owns a
//! handle to the device, so worker threads need no borrow of the manager.
//! freqbuf's own objects go through the same scopes inside the manager.

use crate::errors::Error;

/// Creates wgpu objects on one device inside freqbuf's error scopes, so
/// that a validation or out-of-memory error becomes [`Error::Wgpu`] instead
/// of reaching wgpu's panicking default handler. Cheap to clone, and
/// `Send + Sync` on native: wgpu's error scopes are per thread, so each
/// thread's creations report their own errors.
#[derive(Clone, Debug)]
pub struct Creator {
    device: wgpu::Device,
}

impl Creator {
    pub(crate) fn new(device: wgpu::Device) -> Self {
        Self { device }
    }

    /// Runs `create` on the device inside the error scopes; an error wgpu
    /// reports for it becomes [`Error::Wgpu`] naming `what`. Check limits
    /// and features first: this is the second net, as it is for freqbuf's
    /// own objects. With the `fault-injection` feature, each call counts as
    /// a creation.
    ///
    /// Cost: two error-scope pushes and pops, a few hundred nanoseconds; for
    /// cold paths (pipelines, modules), not per draw.
    pub fn scoped<T>(
        &self,
        what: impl FnOnce() -> String,
        create: impl FnOnce(&wgpu::Device) -> T,
    ) -> Result<T, Error> {
        crate::device::scope::scoped(&self.device, what, || create(&self.device))
    }
}
