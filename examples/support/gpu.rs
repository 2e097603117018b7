//! What the examples share: a device on a real adapter, and reading a render
//! target back.

/// A real adapter on Vulkan, then GL, and a device; the adapter's name.
/// A device of the first adapter, with its pipeline cache where the adapter offers one.
pub(crate) fn device() -> Result<(wgpu::Device, wgpu::Queue, wgpu::AdapterInfo), Box<dyn std::error::Error>> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN | wgpu::Backends::GL,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).map_err(|e| {
        format!("no GPU adapter ({e}); for a software one: apt-get install -y mesa-vulkan-drivers")
    })?;
    let info = adapter.get_info();
    let desc = wgpu::DeviceDescriptor {
        required_features: adapter.features() & wgpu::Features::PIPELINE_CACHE,
        ..Default::default()
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&desc))?;
    Ok((device, queue, info))
}

/// A square render target of `format`, `size` pixels a side, that can be read back.
pub(crate) fn target(device: &wgpu::Device, format: wgpu::TextureFormat, size: u32) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d { width: size, height: size, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// Submits `encoder` with a copy of the 4-byte-per-texel `target` (RGBA8 or
/// BGRA8) and reads it back, rows packed (without the copy's row padding).
pub(crate) fn read_back(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    mut encoder: wgpu::CommandEncoder,
    target: &wgpu::Texture,
) -> Result<Vec<u8>, String> {
    let (w, h) = (target.width(), target.height());
    let row = (w * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("read back"),
        size: u64::from(row * h),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(row), rows_per_image: None },
        },
        wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
    );
    queue.submit([encoder.finish()]);
    buffer.slice(..).map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| e.to_string())?;
    let data = buffer.slice(..).get_mapped_range().map_err(|e| e.to_string())?;
    let (row, used) = (row as usize, w as usize * 4);
    Ok(data.chunks(row).flat_map(|r| r[..used].to_vec()).collect())
}

/// Writes RGBA8 `pixels` of `(width, height)` as a PNG.
pub(crate) fn save_png(
    path: impl AsRef<std::path::Path>,
    pixels: &[u8],
    (width, height): (u32, u32),
) -> Result<(), Box<dyn std::error::Error>> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut enc = png::Encoder::new(file, width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()?.write_image_data(pixels)?;
    Ok(())
}
