//! Pipeline cache files as they come back from disk: the input is written to
//! the cache file, as is or (when its first byte is odd) behind a header
//! that matches this adapter, driver and checksum, so that the data itself
//! reaches wgpu and the driver. Loading never panics: a file that does not
//! match is dropped (`Stale`, `Corrupt`), one that does is given to wgpu,
//! which checks its own header inside, with `fallback`. Runs on lavapipe,
//! the one driver here with `PIPELINE_CACHE`.
#![no_main]

use std::sync::OnceLock;

use freqbuf_effects::{CacheLoad, PipelineCacheFile};
use libfuzzer_sys::fuzz_target;

struct Rig {
    device: wgpu::Device,
    file: PipelineCacheFile,
    /// A file `save` wrote, whose header the odd inputs keep.
    header: Vec<u8>,
}

fn rig() -> &'static Rig {
    static RIG: OnceLock<Rig> = OnceLock::new();
    RIG.get_or_init(|| {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::VULKAN,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapter = pollster::block_on(instance.request_adapter(&Default::default())).expect("lavapipe");
        let desc =
            wgpu::DeviceDescriptor { required_features: wgpu::Features::PIPELINE_CACHE, ..Default::default() };
        let device = pollster::block_on(adapter.request_device(&desc)).expect("PIPELINE_CACHE").0;
        let dir = std::env::temp_dir().join(format!("freqbuf-fuzz-cache-{}", std::process::id()));
        let file = PipelineCacheFile::new(&dir, &adapter.get_info()).expect("Vulkan keeps cache data");
        let (cache, _) = file.load(&device).expect("an empty cache");
        file.save(&cache).expect("a writable temp dir");
        let saved = std::fs::read(file.path()).unwrap_or_default();
        // The header: three lines (magic, key, length and checksum).
        let end = saved.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(2).map_or(0, |(i, _)| i + 1);
        Rig { device, file, header: saved[..end].to_vec() }
    })
}

/// FNV-1a, 64 bits, as the file's checksum.
fn checksum(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

fuzz_target!(|data: &[u8]| {
    let rig = rig();
    let bytes = match data.split_first() {
        Some((mode, rest)) if mode & 1 == 1 && !rig.header.is_empty() => {
            let mut lines = rig.header.splitn(3, |&b| b == b'\n');
            let (magic, key) = (lines.next().unwrap_or_default(), lines.next().unwrap_or_default());
            let mut b = [magic, b"\n", key, b"\n"].concat();
            b.extend_from_slice(format!("{} {:016x}\n", rest.len(), checksum(rest)).as_bytes());
            b.extend_from_slice(rest);
            b
        }
        _ => data.to_vec(),
    };
    std::fs::write(rig.file.path(), &bytes).expect("a writable temp dir");
    let (_cache, found) = rig.file.load(&rig.device).expect("a readable file on a device with the feature");
    if data.first().is_some_and(|m| m & 1 == 1) && !rig.header.is_empty() {
        assert!(matches!(found, CacheLoad::Loaded(_)), "{found:?}");
    }
});
