//! `PipelineCacheFile`: the pipeline cache a run saves is what the next run
//! loads; a file of another driver, or one cut short or changed, is dropped
//! (the cache starts empty), never given to wgpu.

use crate::common;

use common::gpu;
use freqbuf::{Manager, SlotPlan};
use freqbuf_effects::{CacheLoad, Effects, PipelineCacheFile, Targets};

const SOURCE: &str = "
struct M { color: vec4<f32> }
@group(2) @binding(0) var<uniform> m: M;
@vertex fn vs() -> @builtin(position) vec4<f32> { return m.color; }
@fragment fn fs() -> @location(0) vec4<f32> {
#ifdef HALF
    return m.color * 0.5;
#else
    return m.color;
#endif
}
";
const TOML: &str = "flags = [\"HALF\"]\nsource = \"c.wgsl\"
[[technique]]\nname = \"t\"
  [[technique.pass]]\n  name = \"color\"\n  vertex = \"vs\"\n  fragment = \"fs\"
";

#[test]
fn a_saved_pipeline_cache_is_what_the_next_start_loads_and_a_stale_or_corrupt_file_is_dropped() {
    let Some(h) = gpu::device() else { return };
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN.with_env(),
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let Ok(adapter) = pollster::block_on(instance.request_adapter(&Default::default())) else {
        return gpu::skip(&format!("{}: no Vulkan adapter", h.info.name));
    };
    if !adapter.features().contains(wgpu::Features::PIPELINE_CACHE) {
        return gpu::skip_unoffered(h, "PIPELINE_CACHE");
    }
    let desc =
        wgpu::DeviceDescriptor { required_features: wgpu::Features::PIPELINE_CACHE, ..Default::default() };
    let device = pollster::block_on(adapter.request_device(&desc)).expect("checked above").0;
    let info = adapter.get_info();
    let dir = std::env::temp_dir().join(format!("freqbuf-pipeline-cache-{}", std::process::id()));
    let file = PipelineCacheFile::new(&dir, &info).expect("Vulkan keeps pipeline cache data");
    let targets = Targets::color(wgpu::TextureFormat::Rgba8Unorm);

    // A start: load (nothing yet), warm through the cache, save at exit.
    let start = |expect: CacheLoad| {
        let (cache, found) = file.load(&device).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
        assert_eq!(found, expect);
        let mut fx = Effects::new();
        let id = fx.add("c.effect.toml", TOML, SOURCE).unwrap();
        let mut fb = Manager::new(&device, SlotPlan::default());
        fx.set_pipeline_cache(&fb, Some(cache.clone()));
        let warmed = fx.warm(&mut fb, id, &targets).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
        assert_eq!(warmed.pipelines, 2, "with and without HALF");
        cache
    };
    let first = start(CacheLoad::Missing);
    file.save(&first).unwrap();
    let saved = first.get_data().expect("a Vulkan cache has data");
    let second = start(CacheLoad::Loaded(saved.len()));
    file.save(&second).unwrap();

    // Another driver's file at the same path: stale, dropped.
    let mut other = info.clone();
    other.driver_info = format!("{} (another build)", info.driver_info);
    PipelineCacheFile::new(&dir, &other).unwrap().save(&first).unwrap();
    start(CacheLoad::Stale);

    // Cut short, one byte changed, or not a cache file at all: corrupt, dropped.
    file.save(&first).unwrap();
    let bytes = std::fs::read(file.path()).unwrap();
    for (what, broken) in [
        ("cut short", bytes[..bytes.len() - 1].to_vec()),
        ("a byte changed", {
            let mut b = bytes.clone();
            *b.last_mut().unwrap() ^= 1;
            b
        }),
        ("not a cache file", b"hello".to_vec()),
    ] {
        std::fs::write(file.path(), broken).unwrap();
        let (_, found) = file.load(&device).unwrap();
        assert_eq!(found, CacheLoad::Corrupt, "{what}");
    }

    // Saves at once, from two threads: each succeeds, and the file left loads.
    std::thread::scope(|scope| {
        for cache in [&first, &second] {
            scope.spawn(|| {
                for _ in 0..100 {
                    file.save(cache).unwrap_or_else(|e| panic!("{}", common::chain(&e)));
                }
            });
        }
    });
    assert!(matches!(file.load(&device).unwrap().1, CacheLoad::Loaded(_)));
    let left = std::fs::read_dir(&dir).unwrap().filter(|e| e.as_ref().unwrap().path() != file.path()).count();
    assert_eq!(left, 0, "no temporary file is left behind");

    // A device without the feature: refused, typed, before wgpu sees anything.
    let plain = pollster::block_on(adapter.request_device(&Default::default())).unwrap().0;
    let e = file.load(&plain).unwrap_err();
    assert_eq!(
        common::chain(&e),
        format!(
            "cannot keep a pipeline cache in {}: the device lacks wgpu::Features::PIPELINE_CACHE; request it, where the adapter offers it, to keep a pipeline cache",
            file.path().display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
