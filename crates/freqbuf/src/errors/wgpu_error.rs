//! wgpu's own error, kept as its kind and text.
//!
//! `wgpu::Error` holds a boxed source that is `Send` and `Sync` on native
//! targets but neither on the web, so an [`Error`](super::Error) holding it
//! would cross threads (a worker, `anyhow`) on one platform only. Its kind
//! and its whole text are all a caller can act on, and they are the same
//! everywhere.

/// What wgpu reported: the error scope's kind and its message, whole.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct WgpuError {
    /// Which of wgpu's errors it was.
    pub kind: WgpuErrorKind,
    /// wgpu's text, every line of it (the cause is usually the last).
    pub message: String,
}

/// The kinds of `wgpu::Error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WgpuErrorKind {
    /// A validation error: freqbuf's checks let through something wgpu refuses.
    Validation,
    /// The device ran out of memory.
    OutOfMemory,
    /// An internal error of wgpu or the driver.
    Internal,
}

impl From<wgpu::Error> for WgpuError {
    fn from(e: wgpu::Error) -> Self {
        let kind = match e {
            wgpu::Error::OutOfMemory { .. } => WgpuErrorKind::OutOfMemory,
            wgpu::Error::Validation { .. } => WgpuErrorKind::Validation,
            wgpu::Error::Internal { .. } => WgpuErrorKind::Internal,
        };
        // wgpu's text, then what its sources add (the description usually holds them).
        let mut message = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            let text = s.to_string();
            if !message.contains(text.trim()) {
                message = format!("{message}\n{text}");
            }
            source = s.source();
        }
        Self { kind, message }
    }
}

impl WgpuError {
    /// The most specific line: wgpu's text ends with the cause.
    pub(crate) fn innermost(&self) -> &str {
        self.message.lines().map(str::trim).rfind(|l| !l.is_empty()).unwrap_or("")
    }
}
