//! A `wgpu::PipelineCache`'s data between runs, in a file whose header says
//! what made it: the adapter and driver, wgpu's major version and this
//! crate's version, and a checksum of the data. A file that another adapter,
//! driver or version wrote, or that was cut short or changed, is dropped and
//! the cache starts empty: never trusted. wgpu checks its own header inside
//! the data again (`fallback: true` makes a refusal an empty cache).
//!
//! Use it with [`Effects::set_pipeline_cache`](crate::Effects::set_pipeline_cache)
//! and [`Effects::warm`](crate::Effects::warm) (or a replayed pipeline log):
//! load at start-up, warm, save at exit.

use std::path::{Path, PathBuf};

use crate::error::{EffectError, EffectErrorKind};

/// The header's first line.
const MAGIC: &str = "freqbuf pipeline cache 1";
/// The wgpu major version the crate builds against: its cache data's ABI.
const WGPU_MAJOR: &str = "30";

/// Where a pipeline cache's data is kept for one adapter and driver.
#[derive(Clone, Debug)]
pub struct PipelineCacheFile {
    path: PathBuf,
    key: String,
}

/// What [`PipelineCacheFile::load`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheLoad {
    /// The saved data, of that many bytes, for this adapter, driver and versions.
    Loaded(usize),
    /// No file yet: the cache starts empty.
    Missing,
    /// A file another adapter, driver, wgpu or freqbuf version wrote: dropped.
    Stale,
    /// A file cut short or changed since it was written: dropped.
    Corrupt,
}

impl PipelineCacheFile {
    /// The file for `adapter` in directory `dir`, named as wgpu names cache
    /// keys (`wgpu::util::pipeline_cache_key`); `None` where the backend
    /// keeps no pipeline cache data (wgpu has it for Vulkan only).
    pub fn new(dir: impl AsRef<Path>, adapter: &wgpu::AdapterInfo) -> Option<Self> {
        let name = wgpu::util::pipeline_cache_key(adapter)?;
        let key = format!(
            "adapter {:?} {:x}:{:x} {:?}; driver {:?} {:?}; wgpu {WGPU_MAJOR}; freqbuf-effects {}",
            adapter.name,
            adapter.vendor,
            adapter.device,
            adapter.backend,
            adapter.driver,
            adapter.driver_info,
            env!("CARGO_PKG_VERSION"),
        );
        Some(Self { path: dir.as_ref().join(name), key })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A pipeline cache for `device` (made from the same adapter), holding
    /// the saved data where the file's header matches, else empty; and
    /// what was found. A device without `wgpu::Features::PIPELINE_CACHE` is
    /// an error, as is a file that exists but cannot be read.
    pub fn load(&self, device: &wgpu::Device) -> Result<(wgpu::PipelineCache, CacheLoad), EffectError> {
        if !device.features().contains(wgpu::Features::PIPELINE_CACHE) {
            return Err(self.error(EffectErrorKind::NoPipelineCache));
        }
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(self.error(EffectErrorKind::Io(e.to_string()))),
        };
        let (data, found) = bytes.as_deref().map_or((None, CacheLoad::Missing), |b| self.data(b));
        let desc =
            wgpu::PipelineCacheDescriptor { label: Some("freqbuf pipeline cache"), data, fallback: true };
        // SAFETY: the data is what `save` wrote from a cache of a device of
        // this adapter and driver (the header says so, and its checksum holds),
        // and wgpu validates its own header inside it again.
        let cache = unsafe { device.create_pipeline_cache(&desc) };
        Ok((cache, found))
    }

    /// Writes `cache`'s data under this file's header (through a temporary
    /// file of this call's own, so that a crash mid-write leaves the old
    /// file, and of saves at once the last rename wins whole). A cache with
    /// no data writes nothing.
    pub fn save(&self, cache: &wgpu::PipelineCache) -> Result<(), EffectError> {
        let Some(data) = cache.get_data() else { return Ok(()) };
        let header = format!("{MAGIC}\n{}\n{} {:016x}\n", self.key, data.len(), checksum(&data));
        let mut bytes = header.into_bytes();
        bytes.extend_from_slice(&data);
        let io = |e: std::io::Error| self.error(EffectErrorKind::Write(e.to_string()));
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        // A name of this save's own: two saves at once (two threads, two
        // processes) must not write, or rename away, each other's file.
        static SAVES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = SAVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut name = self.path.file_name().unwrap_or_default().to_owned();
        name.push(format!(".{}-{n}.partial", std::process::id()));
        let temporary = self.path.with_file_name(name);
        let written =
            std::fs::write(&temporary, &bytes).and_then(|()| std::fs::rename(&temporary, &self.path));
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written.map_err(io)
    }

    /// The data after a header that matches, and what was found.
    fn data<'a>(&self, bytes: &'a [u8]) -> (Option<&'a [u8]>, CacheLoad) {
        let mut lines = bytes.splitn(4, |&b| b == b'\n');
        let (Some(magic), Some(key), Some(sum), Some(data)) =
            (lines.next(), lines.next(), lines.next(), lines.next())
        else {
            return (None, CacheLoad::Corrupt);
        };
        if magic != MAGIC.as_bytes() {
            return (None, CacheLoad::Corrupt);
        }
        if key != self.key.as_bytes() {
            return (None, CacheLoad::Stale);
        }
        let expected = std::str::from_utf8(sum).ok().and_then(|s| {
            let (len, sum) = s.split_once(' ')?;
            Some((len.parse::<usize>().ok()?, u64::from_str_radix(sum, 16).ok()?))
        });
        match expected {
            Some((len, sum)) if len == data.len() && sum == checksum(data) => {
                (Some(data), CacheLoad::Loaded(len))
            }
            _ => (None, CacheLoad::Corrupt),
        }
    }

    fn error(&self, kind: EffectErrorKind) -> EffectError {
        EffectError { file: self.path.display().to_string(), location: None, kind: Box::new(kind) }
    }
}

/// FNV-1a, 64 bits: catches a file cut short or changed, not an attacker
/// (whoever can write the file can write a matching sum).
fn checksum(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}
