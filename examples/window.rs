//! The stress scene in a window: winit and a wgpu surface, drawn through
//! freqbuf each frame, with its statistics (bytes uploaded, bind calls, CPU
//! ms) in the title.
//!
//! `cargo run --release --all-features --example window -- --frames 120 --screenshot window.png`
//! (without `--frames` it runs until the window is closed). Under a virtual
//! display: `xvfb-run -a cargo run ...` (Debian's `xvfb`).

#[path = "support/gpu.rs"]
#[allow(dead_code, reason = "the window example only writes PNGs and reads back")]
mod gpu;

use std::sync::Arc;
use std::time::Instant;

use clap::Parser;
use freqbuf::Headless;
use freqbuf_bench::scene::{Scene, SceneParams};
use freqbuf_bench::{Freqbuf, Method, SIZE, Shared, Target};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

/// Draw the stress scene in a window through freqbuf.
#[derive(Parser, Debug)]
struct Args {
    /// Objects, one draw each.
    #[arg(long, default_value_t = 2_000)]
    objects: usize,
    /// Stop after this many frames (default: when the window is closed).
    #[arg(long)]
    frames: Option<u32>,
    /// Save the last frame, as the window showed it, as PNG.
    #[arg(long, value_name = "FILE")]
    screenshot: Option<std::path::PathBuf>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let event_loop = EventLoop::new()?;
    let mut app = App { args, state: None, error: None };
    event_loop.run_app(&mut app)?;
    match app.error {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

struct App {
    args: Args,
    state: Option<State>,
    error: Option<String>,
}

/// The window, its surface, the device and what the scene draws with.
struct State {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    gpu: Headless,
    shared: Shared,
    scene: Scene,
    method: Freqbuf,
    frame: u32,
    started: Instant,
    /// The statistics last shown in the title.
    title: String,
}

impl State {
    fn new(event_loop: &ActiveEventLoop, objects: usize, screenshot: bool) -> Result<Self, String> {
        let size = winit::dpi::PhysicalSize::new(SIZE.0, SIZE.1);
        let attributes =
            Window::default_attributes().with_title("freqbuf").with_inner_size(size).with_resizable(false);
        let window = Arc::new(event_loop.create_window(attributes).map_err(|e| e.to_string())?);
        let descriptor = wgpu::InstanceDescriptor {
            backends: wgpu::Backends::VULKAN | wgpu::Backends::GL,
            ..wgpu::InstanceDescriptor::new_with_display_handle(Box::new(event_loop.owned_display_handle()))
        };
        let instance = wgpu::Instance::new(descriptor);
        let surface = instance.create_surface(window.clone()).map_err(|e| e.to_string())?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        }))
        .map_err(|e| {
            format!(
                "no adapter for the window ({e}); for a software one: apt-get install mesa-vulkan-drivers"
            )
        })?;
        let features = adapter.features() & wgpu::Features::INDIRECT_FIRST_INSTANCE;
        let (device, queue) =
            pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                required_features: features,
                ..Default::default()
            }))
            .map_err(|e| e.to_string())?;
        let caps = surface.get_capabilities(&adapter);
        // The scene's pipelines draw RGBA8; a BGRA surface gets its own pipelines.
        let format = [wgpu::TextureFormat::Rgba8Unorm, wgpu::TextureFormat::Bgra8Unorm]
            .into_iter()
            .find(|f| caps.formats.contains(f))
            .ok_or_else(|| format!("the surface offers neither RGBA8 nor BGRA8: {:?}", caps.formats))?;
        let mut usage = wgpu::TextureUsages::RENDER_ATTACHMENT;
        if screenshot {
            if !caps.usages.contains(wgpu::TextureUsages::COPY_SRC) {
                return Err("the surface cannot be copied from, so no screenshot".into());
            }
            usage |= wgpu::TextureUsages::COPY_SRC;
        }
        let config = wgpu::SurfaceConfiguration {
            usage,
            format,
            width: SIZE.0,
            height: SIZE.1,
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes[0],
            view_formats: Vec::new(),
            color_space: Default::default(),
        };
        surface.configure(&device, &config);
        let downlevel = adapter.get_downlevel_capabilities().flags;
        let gpu = Headless { device, queue, info: adapter.get_info(), downlevel, adapter };
        let scene = Scene::new(&SceneParams { objects, ..SceneParams::reference() });
        let shared = Shared::with_format(&gpu, &scene, format);
        let method = Freqbuf::new(&gpu, &scene);
        Ok(Self {
            window,
            surface,
            config,
            gpu,
            shared,
            scene,
            method,
            frame: 0,
            started: Instant::now(),
            title: String::new(),
        })
    }

    /// Draws the next frame into the window, saving it to `screenshot` (as
    /// drawn, before it is presented) when given.
    fn draw(&mut self, screenshot: Option<&std::path::Path>) -> Result<(), String> {
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.gpu.device, &self.config);
                return Ok(());
            }
            _ => return Ok(()),
        };
        self.frame += 1;
        let changes = self.scene.changes(self.frame);
        self.scene.apply(&changes);
        let view = texture.texture.create_view(&Default::default());
        let target = Target { texture: texture.texture.clone(), view };
        let start = Instant::now();
        let cost = self.method.frame(&self.gpu, &self.shared, &self.scene, &changes, &target);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        self.title = format!(
            "freqbuf: frame {}, {} objects, {} bytes uploaded, {} binds, {ms:.2} CPU ms, {} on {}",
            self.frame,
            self.scene.objects.len(),
            cost.bytes,
            cost.bind_calls,
            self.gpu.info.name,
            self.gpu.info.backend
        );
        self.window.set_title(&self.title);
        if let Some(path) = screenshot {
            save(&self.gpu, &texture.texture, self.config.format, path)?;
        }
        self.window.pre_present_notify();
        self.gpu.queue.present(texture);
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        match State::new(event_loop, self.args.objects, self.args.screenshot.is_some()) {
            Ok(state) => {
                eprintln!("adapter: {} ({:?})", state.gpu.info.name, state.gpu.info.backend);
                state.window.request_redraw();
                self.state = Some(state);
            }
            Err(e) => {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(state) = self.state.as_mut() else { return };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::RedrawRequested => {
                let last = self.args.frames.is_some_and(|n| state.frame + 1 >= n);
                match state.draw(self.args.screenshot.as_deref().filter(|_| last)) {
                    Err(e) => {
                        self.error = Some(e);
                        event_loop.exit();
                    }
                    Ok(()) => {
                        if self.args.frames.is_some_and(|n| state.frame >= n) {
                            let seconds = state.started.elapsed().as_secs_f64();
                            eprintln!(
                                "{} frames in {seconds:.1} s; last title: {}",
                                state.frame, state.title
                            );
                            event_loop.exit();
                        } else {
                            state.window.request_redraw();
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// Copies the shown frame out and writes it as RGBA PNG (swizzled from BGRA).
fn save(
    gpu: &Headless,
    texture: &wgpu::Texture,
    format: wgpu::TextureFormat,
    path: &std::path::Path,
) -> Result<(), String> {
    let (w, h) = (texture.width(), texture.height());
    let enc = gpu.device.create_command_encoder(&Default::default());
    let mut pixels = gpu::read_back(&gpu.device, &gpu.queue, enc, texture)?;
    if format == wgpu::TextureFormat::Bgra8Unorm {
        pixels.chunks_mut(4).for_each(|p| p.swap(0, 2));
    }
    let colors = pixels.chunks(4).map(|p| [p[0], p[1], p[2]]).collect::<std::collections::HashSet<_>>();
    gpu::save_png(path, &pixels, (w, h)).map_err(|e| e.to_string())?;
    eprintln!("screenshot: {} ({} colors)", path.display(), colors.len());
    if colors.len() < 2 {
        return Err("the screenshot is one flat color: nothing was drawn".into());
    }
    Ok(())
}
