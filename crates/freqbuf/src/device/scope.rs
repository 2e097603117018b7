//! Error scopes: the second net behind freqbuf's own checks.
//!
//! wgpu's default handler panics on a validation error. Every object freqbuf
//! creates is created inside a validation and an out-of-memory scope, and a
//! captured error becomes [`Error::Wgpu`] instead.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use crate::errors::Error;

/// Runs `f` inside error scopes on `device`; an error wgpu reports for it
/// becomes `Error::Wgpu` naming `what`.
///
/// Cost: two scope pushes and pops, a few hundred nanoseconds; only on cold paths.
pub(crate) fn scoped<T>(
    device: &wgpu::Device,
    what: impl FnOnce() -> String,
    f: impl FnOnce() -> T,
) -> Result<T, Error> {
    #[cfg(feature = "fault-injection")]
    if crate::fault::hit(crate::fault::FaultSite::Create) {
        return Err(injected(what()));
    }
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    let first = ready(validation.pop());
    let second = ready(oom.pop());
    match first.or(second) {
        Some(e) => Err(Error::Wgpu { what: what(), source: e.into() }),
        None => Ok(out),
    }
}

/// Polls a future that native wgpu resolves at once. A future that is still
/// pending (the web backend) reports no error here; the browser reports it.
fn ready<T>(future: impl Future<Output = Option<T>>) -> Option<T> {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => None,
    }
}

/// The error an injected fault (feature `fault-injection`) reports.
#[cfg(feature = "fault-injection")]
pub(crate) fn injected(what: String) -> Error {
    let source =
        wgpu::Error::Validation { source: "injected fault".into(), description: "injected fault".into() };
    Error::Wgpu { what, source: source.into() }
}
