//! Fault injection (feature `fault-injection`, for tests): makes the n-th
//! fallible wgpu step on this thread fail as if wgpu had reported an error,
//! so that tests can check that a failed flush, registration or bind loses
//! nothing and that the retry succeeds. Off unless a test arms it; a release
//! build without the feature has none of this.

use std::cell::Cell;

/// Where a fault can be injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultSite {
    /// Any wgpu object freqbuf creates (buffers, bind groups, layouts, pipelines).
    Create,
    /// A flush's staging upload.
    Upload,
    /// A flush's scatter dispatch.
    Scatter,
    /// Any of the above.
    Any,
}

thread_local! {
    /// The armed site and how many more steps at it succeed first.
    static ARMED: Cell<Option<(FaultSite, u32)>> = const { Cell::new(None) };
}

/// Makes the `n`-th (from 0) later step at `site` on this thread fail, once.
pub fn fail_nth(site: FaultSite, n: u32) {
    ARMED.set(Some((site, n)));
}

/// Disarms a fault that has not fired; returns whether one was armed.
pub fn disarm() -> bool {
    ARMED.take().is_some()
}

/// Counts a step at `site`; true when it is the one armed to fail.
pub(crate) fn hit(site: FaultSite) -> bool {
    match ARMED.get() {
        Some((armed, n)) if armed == site || armed == FaultSite::Any => {
            ARMED.set(if n == 0 { None } else { Some((armed, n - 1)) });
            n == 0
        }
        _ => false,
    }
}
