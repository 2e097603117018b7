//! The page's side: `start` picks WebGPU or WebGL2, and a `Page` draws one
//! frame per call into the picture, then copies it onto the canvas. The page's
//! script drives the frames, times them, and shows the statistics.

use std::sync::{Arc, Mutex};

use wasm_bindgen::prelude::*;

use crate::passes::{clear_pass, vs_fs_pipeline};
use crate::readback::Readback;
use crate::scene::{CHECK_FRAME, Demo, SIZE};

/// Copies the picture onto the canvas (both `SIZE`², so texel for pixel).
const BLIT: &str = "
@group(0) @binding(0) var picture: texture_2d<f32>;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return textureLoad(picture, vec2<i32>(p.xy), 0);
}
";

/// The scene on a canvas.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Page {
    /// Kept alive: in Chromium a mapping never completes ("A valid external
    /// Instance reference no longer exists") once the instance is dropped.
    _instance: wgpu::Instance,
    device: wgpu::Device,
    queue: wgpu::Queue,
    surface: wgpu::Surface<'static>,
    blit: wgpu::RenderPipeline,
    blit_group: wgpu::BindGroup,
    demo: Demo,
    readback: Option<Readback>,
    description: String,
    /// What wgpu reported outside freqbuf's error scopes (the page's own
    /// pipelines and passes): a frame fails with them instead of panicking.
    errors: Arc<Mutex<Vec<String>>>,
}

/// Opens `backend` (`"webgpu"` or `"webgl2"`) on `canvas` and builds the
/// scene. Fails when the browser offers no such adapter: falling back to
/// the other would make a test of one pass for the other.
#[wasm_bindgen]
pub async fn start(canvas: web_sys::HtmlCanvasElement, backend: String) -> Result<Page, JsError> {
    console_error_panic_hook::set_once();
    let (backends, want, limits) = match backend.as_str() {
        "webgpu" => (wgpu::Backends::BROWSER_WEBGPU, wgpu::Backend::BrowserWebGpu, wgpu::Limits::default()),
        "webgl2" => (wgpu::Backends::GL, wgpu::Backend::Gl, wgpu::Limits::downlevel_webgl2_defaults()),
        other => return Err(JsError::new(&format!("unknown backend `{other}`: webgpu or webgl2"))),
    };
    canvas.set_width(SIZE);
    canvas.set_height(SIZE);
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let surface = instance.create_surface(wgpu::SurfaceTarget::Canvas(canvas))?;
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        })
        .await
        .map_err(|e| JsError::new(&format!("no {backend} adapter: {e}")))?;
    let info = adapter.get_info();
    if info.backend != want {
        return Err(JsError::new(&format!("asked for {backend}, got {:?}", info.backend)));
    }
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor { required_limits: limits, ..Default::default() })
        .await?;
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    device.on_uncaptured_error(Arc::new(move |e| {
        sink.lock().unwrap_or_else(|p| p.into_inner()).push(e.to_string())
    }));
    let downlevel = adapter.get_downlevel_capabilities().flags;
    let demo = Demo::new(&device, downlevel)?;
    // Browsers may hide the adapter's name and driver.
    let adapter_name = match (info.name.as_str(), info.driver.as_str()) {
        ("", "") => "an adapter the browser does not name".to_owned(),
        (name, "") => name.to_owned(),
        (name, driver) => format!("{name} ({driver})"),
    };
    let description = format!("{backend} on {adapter_name}; objects in {}", demo.objects_in());

    let caps = surface.get_capabilities(&adapter);
    let format = caps.formats.iter().copied().find(|f| !f.is_srgb()).unwrap_or(caps.formats[0]);
    surface.configure(
        &device,
        &wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: SIZE,
            height: SIZE,
            present_mode: wgpu::PresentMode::Fifo,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes[0],
            view_formats: Vec::new(),
            color_space: Default::default(),
        },
    );
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("blit"),
        source: wgpu::ShaderSource::Wgsl(BLIT.into()),
    });
    let blit = vs_fs_pipeline(&device, &module, None, format, wgpu::PrimitiveTopology::TriangleList);
    let picture = demo.picture().create_view(&Default::default());
    let blit_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("blit"),
        layout: &blit.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::TextureView(&picture),
        }],
    });
    Ok(Page {
        _instance: instance,
        device,
        queue,
        surface,
        blit,
        blit_group,
        demo,
        readback: None,
        description,
        errors,
    })
}

#[wasm_bindgen]
impl Page {
    /// The backend, adapter and how objects are addressed.
    pub fn description(&self) -> String {
        self.description.clone()
    }

    /// Draws the next frame and shows it; returns freqbuf's statistics as
    /// `[frame, bytes uploaded, bind calls, draws]`. Frame `CHECK_FRAME`'s
    /// picture is also copied back for [`Page::checksum`].
    pub fn frame(&mut self) -> Result<Vec<f64>, JsError> {
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            other => return Err(JsError::new(&format!("no canvas texture this frame: {other:?}"))),
        };
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let info = self.demo.draw(&self.queue, &mut encoder)?;
        let view = texture.texture.create_view(&Default::default());
        {
            let mut pass = clear_pass(&mut encoder, &view, "blit");
            pass.set_pipeline(&self.blit);
            pass.set_bind_group(0, &self.blit_group, &[]);
            pass.draw(0..3, 0..1);
        }
        let readback = (info.frame == CHECK_FRAME)
            .then(|| Readback::copy(&self.device, &mut encoder, self.demo.picture()));
        self.queue.submit([encoder.finish()]);
        if let Some(r) = readback {
            r.map();
            self.readback = Some(r);
        }
        self.queue.present(texture);
        let errors = std::mem::take(&mut *self.errors.lock().unwrap_or_else(|p| p.into_inner()));
        if !errors.is_empty() {
            return Err(JsError::new(&format!("wgpu: {}", errors.join("; "))));
        }
        Ok(vec![f64::from(info.frame), info.bytes as f64, info.binds as f64, info.draws as f64])
    }

    /// Frame `CHECK_FRAME`'s checksum as 16 hex digits, once read back.
    pub fn checksum(&self) -> Result<Option<String>, JsError> {
        match self.readback.as_ref().and_then(Readback::checksum) {
            None => Ok(None),
            Some(Ok(sum)) => Ok(Some(format!("{sum:016x}"))),
            Some(Err(e)) => Err(JsError::new(&format!("reading the picture back: {e}"))),
        }
    }

    /// The frame whose picture is checksummed.
    #[wasm_bindgen(js_name = checkFrame)]
    pub fn check_frame() -> u32 {
        CHECK_FRAME
    }
}
