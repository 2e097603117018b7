//! A headless device for tests, benchmarks and the stress example.
//!
//! Not needed by renderers, which bring their own device; this exists so that
//! everything in this crate that needs a GPU asks for it the same way.

/// A device, its queue and what it runs on.
#[derive(Debug)]
pub struct Headless {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The adapter's description (name, backend, driver).
    pub info: wgpu::AdapterInfo,
}

/// Which limits to ask the adapter for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LimitsChoice {
    /// WebGPU's defaults (offset alignment 256, 4 bind groups): what most users get.
    #[default]
    Defaults,
    /// Everything the adapter offers (lavapipe: offset alignment 32).
    Adapter,
}

/// Why no device could be had.
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    /// No adapter on the enabled backends (install `mesa-vulkan-drivers` for a software one).
    #[error("no GPU adapter found ({0}); for a software Vulkan GPU: apt-get install -y mesa-vulkan-drivers")]
    NoAdapter(String),
    /// The adapter refused the device.
    #[error("the adapter refused a device: {0}")]
    NoDevice(String),
}

/// Requests a real (non-noop) adapter on Vulkan, then GL, and a device with
/// binding arrays where the adapter supports them.
///
/// Cost: adapter enumeration and device creation, tens of milliseconds.
pub fn request(limits: LimitsChoice) -> Result<Headless, HeadlessError> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN | wgpu::Backends::GL,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    open(&instance, limits)
}

/// A device on wgpu's `noop` backend: every call is accepted and nothing runs.
/// Only for timing CPU-side work where no adapter exists.
pub fn request_noop() -> Result<Headless, HeadlessError> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::NOOP;
    desc.backend_options.noop.enable = true;
    open(&wgpu::Instance::new(desc), LimitsChoice::Defaults)
}

fn open(instance: &wgpu::Instance, limits: LimitsChoice) -> Result<Headless, HeadlessError> {
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .map_err(|e| HeadlessError::NoAdapter(e.to_string()))?;
    let offered = adapter.limits();
    let features = adapter.features() & wgpu::Features::TEXTURE_BINDING_ARRAY;
    let mut required_limits = match limits {
        LimitsChoice::Defaults => wgpu::Limits::defaults(),
        LimitsChoice::Adapter => offered.clone(),
    };
    if features.contains(wgpu::Features::TEXTURE_BINDING_ARRAY) {
        required_limits.max_binding_array_elements_per_shader_stage =
            offered.max_binding_array_elements_per_shader_stage;
        required_limits.max_binding_array_sampler_elements_per_shader_stage =
            offered.max_binding_array_sampler_elements_per_shader_stage;
    }
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("freqbuf headless"),
        required_features: features,
        required_limits,
        ..Default::default()
    }))
    .map_err(|e| HeadlessError::NoDevice(e.to_string()))?;
    Ok(Headless { device, queue, info: adapter.get_info() })
}
