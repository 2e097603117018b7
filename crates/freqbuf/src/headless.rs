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
    /// The adapter's downlevel flags, for [`crate::Manager::with_downlevel`].
    pub downlevel: wgpu::DownlevelFlags,
    /// The adapter, for what the device does not say (a format's usages).
    pub adapter: wgpu::Adapter,
}

/// Why no device could be had: no adapter on the enabled backends (install
/// `mesa-vulkan-drivers` for a software one), or the adapter refused the device.
type HeadlessError = Box<dyn std::error::Error + Send + Sync>;

impl Headless {
    /// A real (non-noop) adapter on Vulkan, then GL (or on the backends
    /// `WGPU_BACKEND` names, as `WGPU_BACKEND=gl`), with WebGPU's default
    /// limits (offset alignment 256, 4 bind groups): what most users get, and
    /// binding arrays and indirect first instances where the adapter supports them.
    ///
    /// Cost: adapter enumeration and device creation, tens of milliseconds.
    pub fn new() -> Result<Self, HeadlessError> {
        Self::real(false)
    }

    /// Like [`Headless::new`], with every limit the adapter offers (lavapipe: offset alignment 32).
    pub fn with_adapter_limits() -> Result<Self, HeadlessError> {
        Self::real(true)
    }

    /// A device on wgpu's `noop` backend: every call is accepted and nothing runs.
    /// Only for timing CPU-side work where no adapter exists.
    pub fn noop() -> Result<Self, HeadlessError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::NOOP;
        desc.backend_options.noop.enable = true;
        open(&wgpu::Instance::new(desc), false)
    }

    fn real(adapter_limits: bool) -> Result<Self, HeadlessError> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: (wgpu::Backends::VULKAN | wgpu::Backends::GL).with_env(),
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        open(&instance, adapter_limits)
    }
}

fn open(instance: &wgpu::Instance, adapter_limits: bool) -> Result<Headless, HeadlessError> {
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .map_err(|e| {
        let env = std::env::var("WGPU_BACKEND").map(|b| format!(" (WGPU_BACKEND={b})")).unwrap_or_default();
        format!(
            "no GPU adapter found{env} ({e}); for a software Vulkan GPU: apt-get install -y mesa-vulkan-drivers"
        )
    })?;
    let offered = adapter.limits();
    // Binding arrays for the texture tests and tables (indexed per draw, so
    // non-uniformly); first instances in indirect arguments for
    // `Binder::draw_indirect` (WebGPU's optional feature).
    let wanted = wgpu::Features::TEXTURE_BINDING_ARRAY
        | wgpu::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING
        | wgpu::Features::INDIRECT_FIRST_INSTANCE;
    let features = adapter.features() & wanted;
    let mut required_limits = if adapter_limits { offered.clone() } else { wgpu::Limits::defaults() };
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
    .map_err(|e| format!("the adapter refused a device: {e}"))?;
    let downlevel = adapter.get_downlevel_capabilities().flags;
    Ok(Headless { device, queue, info: adapter.get_info(), downlevel, adapter })
}
