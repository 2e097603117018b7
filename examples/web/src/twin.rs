//! The native side of `main`; not built for wasm32, where the page is the library.

use std::process::ExitCode;

use freqbuf_web::{CHECK_FRAME, Demo, Readback, SIZE, checksum};

pub(crate) fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let png = match args.as_slice() {
        [] => None,
        [flag, path] if flag == "--png" => Some(std::path::PathBuf::from(path)),
        _ => {
            eprintln!("usage: freqbuf-web [--png FILE]");
            return ExitCode::from(2);
        }
    };
    // Each mode's objects must be addressed as its name says, or the twin
    // would compare one way with itself.
    let modes = [
        ("storage-buffers", wgpu::Limits::default(), "a storage buffer"),
        ("uniform-arrays", wgpu::Limits::downlevel_webgl2_defaults(), "batched uniform arrays"),
    ];
    let mut sums = Vec::new();
    for (mode, limits, want) in modes {
        match draw(limits) {
            Ok((_, _, objects)) if !objects.starts_with(want) => {
                eprintln!("error: native {mode}: objects in {objects}, not {want}");
                return ExitCode::FAILURE;
            }
            Ok((pixels, adapter, objects)) => {
                let sum = checksum(&pixels);
                if let Some(path) = png.as_deref().filter(|_| sums.is_empty()) {
                    if let Err(e) = save_png(path, &pixels) {
                        eprintln!("error: writing {}: {e}", path.display());
                        return ExitCode::FAILURE;
                    }
                }
                println!("native {mode} {sum:016x} ({adapter}; objects in {objects})");
                sums.push(sum);
            }
            Err(e) => {
                eprintln!("error: native {mode}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if sums.windows(2).any(|w| w[0] != w[1]) {
        eprintln!("error: the two native pictures differ");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Draws frames 0 to `CHECK_FRAME` on a device with `limits`; returns the
/// last picture's pixels, the adapter's name and where the objects live.
fn draw(limits: wgpu::Limits) -> Result<(Vec<u8>, String, String), String> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN | wgpu::Backends::GL,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
        .map_err(|e| format!("no adapter ({e}); for a software one: apt-get install mesa-vulkan-drivers"))?;
    let (device, queue) = pollster::block_on(
        adapter.request_device(&wgpu::DeviceDescriptor { required_limits: limits, ..Default::default() }),
    )
    .map_err(|e| e.to_string())?;
    let mut demo =
        Demo::new(&device, adapter.get_downlevel_capabilities().flags).map_err(|e| e.to_string())?;
    for _ in 0..CHECK_FRAME {
        let mut encoder = device.create_command_encoder(&Default::default());
        demo.draw(&queue, &mut encoder).map_err(|e| e.to_string())?;
        queue.submit([encoder.finish()]);
    }
    let mut encoder = device.create_command_encoder(&Default::default());
    let info = demo.draw(&queue, &mut encoder).map_err(|e| e.to_string())?;
    assert_eq!(info.frame, CHECK_FRAME);
    let readback = Readback::copy(&device, &mut encoder, demo.picture());
    queue.submit([encoder.finish()]);
    readback.map();
    device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| e.to_string())?;
    let pixels = readback.pixels().ok_or("the mapping did not complete")??;
    Ok((pixels, adapter.get_info().name, demo.objects_in()))
}

fn save_png(path: &std::path::Path, pixels: &[u8]) -> Result<(), Box<dyn std::error::Error>> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, SIZE, SIZE);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(pixels)?;
    Ok(())
}
