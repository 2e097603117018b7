//! A real device for GPU tests: lavapipe here. With CI=true a missing adapter
//! fails the test; elsewhere the test says why it skipped.

use std::sync::OnceLock;

use freqbuf::Headless;

/// The shared device with WebGPU default limits, or `None` (after saying why) outside CI.
pub fn device() -> Option<&'static Headless> {
    static DEV: OnceLock<Option<Headless>> = OnceLock::new();
    DEV.get_or_init(|| open(Headless::new())).as_ref()
}

/// The shared device with the adapter's own limits (lavapipe: offset alignment 32).
pub fn adapter_limits_device() -> Option<&'static Headless> {
    static DEV: OnceLock<Option<Headless>> = OnceLock::new();
    DEV.get_or_init(|| open(Headless::with_adapter_limits())).as_ref()
}

fn open(requested: Result<Headless, Box<dyn std::error::Error + Send + Sync>>) -> Option<Headless> {
    match requested {
        Ok(h) => {
            // Once per device, so that a run's log says what it tested on.
            eprintln!("GPU tests run on {} ({:?}, {})", h.info.name, h.info.backend, h.info.driver_info);
            Some(h)
        }
        Err(e) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CI=true requires a GPU adapter, and there is none: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED: this test needs a GPU adapter: {e}");
            None
        }
    }
}

/// A test that needs more than the shared device (a Vulkan adapter, a
/// feature): fails under CI=true, where lavapipe has it; elsewhere says why it skipped.
pub fn skip(why: &str) {
    assert!(std::env::var("CI").as_deref() != Ok("true"), "CI=true requires it: {why}");
    eprintln!("SKIPPED: {why}");
}

/// What no driver CI runs on offers, by backend: one `backend what why`
/// a line; `.ci/run` prints it at the end of every run.
const UNOFFERED: &str = include_str!("../../../.ci/unoffered");

/// A test needs `what` (a feature, a use of a format), which the device
/// lacks. With CI=true that fails, unless `.ci/unoffered` lists `what` for
/// this backend; elsewhere the test says why it skipped.
pub fn skip_unoffered(h: &Headless, what: &str) {
    let backend = format!("{:?}", h.info.backend).to_lowercase();
    let listed = UNOFFERED.lines().filter(|l| !l.starts_with('#')).any(|l| {
        let mut words = l.split_whitespace();
        words.next() == Some(backend.as_str()) && words.next() == Some(what)
    });
    assert!(
        listed || std::env::var("CI").as_deref() != Ok("true"),
        "CI=true requires {what}, which {} ({backend}) lacks and .ci/unoffered does not list for {backend}",
        h.info.name
    );
    eprintln!("SKIPPED: {} ({backend}) lacks {what}", h.info.name);
}

/// Whether the device can render to `format`; where it cannot, the test
/// skips ([`skip_unoffered`]).
pub fn renders_to(h: &Headless, format: wgpu::TextureFormat) -> bool {
    let usages = h.adapter.get_texture_format_features(format).allowed_usages;
    let renders = usages.contains(wgpu::TextureUsages::RENDER_ATTACHMENT);
    if !renders {
        skip_unoffered(h, &format!("render-to-{format:?}"));
    }
    renders
}

/// Reads a buffer back (it must have COPY_SRC usage).
pub fn read_words(h: &Headless, buffer: &wgpu::Buffer) -> Vec<u32> {
    let staging = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = h.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
    h.queue.submit([enc.finish()]);
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    h.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    // The mapped view borrows `staging`; copy out before both drop.
    #[allow(clippy::let_and_return, reason = "the mapped view borrows `staging`; copy out before both drop")]
    let words = bytemuck::cast_slice(&slice.get_mapped_range().expect("mapped")).to_vec();
    words
}

/// Copies a 2D texture out after what `enc` holds, submits, and reads its
/// texels back as words, rows packed (`texel_bytes` per texel, a multiple of 4).
pub fn read_texture(
    h: &Headless,
    mut enc: wgpu::CommandEncoder,
    texture: &wgpu::Texture,
    texel_bytes: u32,
) -> Vec<u32> {
    let size = texture.size();
    let row = (size.width * texel_bytes).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("texture readback"),
        size: (row * size.height) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    enc.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(row), rows_per_image: None },
        },
        wgpu::Extent3d { depth_or_array_layers: 1, ..size },
    );
    h.queue.submit([enc.finish()]);
    let words = read_words(h, &buffer);
    let (per_row, used) = ((row / 4) as usize, (size.width * texel_bytes / 4) as usize);
    words.chunks(per_row).flat_map(|r| r[..used].to_vec()).collect()
}

/// A `w`×`h` target of `format` to render into and copy out of.
pub fn target(h: &Headless, format: wgpu::TextureFormat, (w, ht): (u32, u32)) -> wgpu::Texture {
    let size = wgpu::Extent3d { width: w, height: ht, depth_or_array_layers: 1 };
    texture(h, format, size, wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC)
}

/// The centre of pixel `i` of a `w`×`h` target (row by row), in clip space.
pub fn pixel_centre(i: u32, (w, h): (u32, u32)) -> [f32; 4] {
    let (x, y) = ((i % w) as f32 + 0.5, (i / w) as f32 + 0.5);
    [x / w as f32 * 2.0 - 1.0, 1.0 - y / h as f32 * 2.0, 0.0, 1.0]
}

/// A render pipeline of a registered shader with entry points `vs` and `fs`,
/// drawing `topology` into one target of `format`.
pub fn render_pipeline_for(
    h: &Headless,
    m: &freqbuf::Manager,
    id: freqbuf::ShaderId,
    format: wgpu::TextureFormat,
    topology: wgpu::PrimitiveTopology,
) -> wgpu::RenderPipeline {
    render_pipeline_with(h, m, id, format, topology, "fs")
}

/// [`render_pipeline_for`] with fragment entry point `fs`.
pub fn render_pipeline_with(
    h: &Headless,
    m: &freqbuf::Manager,
    id: freqbuf::ShaderId,
    format: wgpu::TextureFormat,
    topology: wgpu::PrimitiveTopology,
    fs: &str,
) -> wgpu::RenderPipeline {
    let module = m.create_shader_module(id).expect("registered");
    h.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: None,
        layout: Some(m.pipeline_layout(id).expect("registered")),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some(fs),
            compilation_options: Default::default(),
            targets: &[Some(format.into())],
        }),
        primitive: wgpu::PrimitiveState { topology, ..Default::default() },
        depth_stencil: None,
        multisample: Default::default(),
        multiview_mask: None,
        cache: None,
    })
}

/// A 1×1 RGBA8 texture holding `rgba`, as a view.
pub fn texel(h: &Headless, rgba: [u8; 4]) -> wgpu::TextureView {
    texture_view(h, wgpu::TextureFormat::Rgba8Unorm, 1, None, &rgba)
}

/// A render pipeline of a registered shader with entry points `vs` and `fs`,
/// drawing into one RGBA8 target.
pub fn render_pipeline(h: &Headless, m: &freqbuf::Manager, id: freqbuf::ShaderId) -> wgpu::RenderPipeline {
    render_pipeline_for(h, m, id, wgpu::TextureFormat::Rgba8Unorm, wgpu::PrimitiveTopology::TriangleList)
}

/// A 1×1 texture of `format` with `layers` layers holding `texel` in layer 0
/// (nothing for depth formats), viewed with `dim`.
pub fn texture_view(
    h: &Headless,
    format: wgpu::TextureFormat,
    layers: u32,
    dim: Option<wgpu::TextureViewDimension>,
    texel: &[u8],
) -> wgpu::TextureView {
    let size = wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: layers };
    let mut usage = wgpu::TextureUsages::TEXTURE_BINDING;
    if !format.is_depth_stencil_format() {
        usage |= wgpu::TextureUsages::COPY_DST;
    }
    let t = texture(h, format, size, usage);
    if !texel.is_empty() {
        let layout = wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(texel.len() as u32),
            rows_per_image: None,
        };
        h.queue.write_texture(
            t.as_image_copy(),
            texel,
            layout,
            wgpu::Extent3d { depth_or_array_layers: 1, ..size },
        );
    }
    t.create_view(&wgpu::TextureViewDescriptor { dimension: dim, ..Default::default() })
}

/// A 2D texture with one mip and one sample.
pub fn texture(
    h: &Headless,
    format: wgpu::TextureFormat,
    size: wgpu::Extent3d,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    h.device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// A render pass into one color attachment, cleared to black, without depth.
pub fn color_pass<'e>(enc: &'e mut wgpu::CommandEncoder, view: &wgpu::TextureView) -> wgpu::RenderPass<'e> {
    enc.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: None,
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// A fresh device whose limits `adjust` lowers from WebGPU's defaults (to
/// reach size limits with small scenes), or `None` outside CI without an adapter.
pub fn device_with_limits(adjust: impl FnOnce(&mut wgpu::Limits)) -> Option<Headless> {
    device_with(wgpu::Features::empty(), adjust)
}

/// A fresh device with `features` (which the adapter must offer) and limits
/// `adjust`ed from WebGPU's defaults, or `None` outside CI without an adapter.
pub fn device_with(features: wgpu::Features, adjust: impl FnOnce(&mut wgpu::Limits)) -> Option<Headless> {
    device()?;
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: (wgpu::Backends::VULKAN | wgpu::Backends::GL).with_env(),
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).expect("an adapter");
    let mut limits = wgpu::Limits::defaults();
    adjust(&mut limits);
    let experimental = if features.intersects(wgpu::Features::all_experimental_mask()) {
        // SAFETY: tests ask for experimental features (ray queries) knowing
        // wgpu may not validate all of their uses.
        unsafe { wgpu::ExperimentalFeatures::enabled() }
    } else {
        wgpu::ExperimentalFeatures::disabled()
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: features,
        required_limits: limits,
        experimental_features: experimental,
        ..Default::default()
    }))
    .expect("a device with these features and limits");
    let downlevel = adapter.get_downlevel_capabilities().flags;
    Some(Headless { device, queue, info: adapter.get_info(), downlevel, adapter })
}

/// Builds each draw's compute pipeline (its shader, the given entry point),
/// then runs them as [`run`] does.
pub fn dispatch(h: &Headless, fb: &mut freqbuf::Manager, draws: &[(freqbuf::Draw, &str)]) {
    let pipelines = draws
        .iter()
        .map(|(d, entry)| {
            let module = fb.create_shader_module(d.shader()).unwrap();
            h.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: Some(fb.pipeline_layout(d.shader()).unwrap()),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        })
        .collect::<Vec<_>>();
    run(h, fb, pipelines.iter().zip(draws.iter().map(|(d, _)| *d)));
}

/// Binds each draw with one binder and dispatches one workgroup of its
/// pipeline, in order in one compute pass, and submits: the one way the
/// tests make shaders report what they saw.
pub fn run<'p>(
    h: &Headless,
    fb: &mut freqbuf::Manager,
    draws: impl IntoIterator<Item = (&'p wgpu::ComputePipeline, freqbuf::Draw)>,
) {
    let mut enc = h.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        let mut binder = freqbuf::Binder::new();
        for (pipeline, draw) in draws {
            pass.set_pipeline(pipeline);
            binder.bind(fb, &mut pass, &draw).unwrap();
            pass.dispatch_workgroups(1, 1, 1);
        }
    }
    h.queue.submit([enc.finish()]);
}

/// A storage buffer of `words` 32-bit words that a shader writes what it saw
/// into, for [`floats`] or [`read_words`] to read back.
pub fn storage(h: &Headless, words: u64) -> wgpu::Buffer {
    h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: words * 4,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// `buffer` read back as floats.
pub fn floats(h: &Headless, buffer: &wgpu::Buffer) -> Vec<f32> {
    read_words(h, buffer).into_iter().map(f32::from_bits).collect()
}
