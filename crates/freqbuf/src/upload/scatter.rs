//! The compute scatter pass: moves packed ranges from the staging buffer into
//! a slot buffer with one dispatch, an invocation per word.

use std::collections::HashMap;

/// Bytes in one row of a scatter table: destination word and source word. Row 0
/// holds the row count; a last row holds the end of the data, so a row's length
/// is the next row's source minus its own.
pub(super) const ROW: u64 = 8;

/// The most words one row (one invocation) moves: longer ranges are cut
/// into several rows, a table overhead of 8 bytes per 256.
pub(super) const ROW_WORDS: u64 = 64;

// One invocation per row: it copies its range, at most ROW_WORDS words, so
// no lane searches the table. (An invocation per word had to find its row by
// a binary search over the table: on lavapipe, where the "GPU" is the CPU,
// 10,000 rows of 14 words took about 14 times the work.)
const SCATTER_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read> table: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let r = 1u + gid.x + gid.y * groups.x * 64u;
    if r > table[0].x { return; }
    let row = table[r];
    let end = table[r + 1u].y;
    for (var w = row.y; w < end; w++) {
        dst[row.x + (w - row.y)] = data[w];
    }
}
"#;

/// The scatter pipeline and one bind group per slot (staging, table window, slot buffer).
#[derive(Debug)]
pub(super) struct Scatter {
    layout: wgpu::BindGroupLayout,
    pub(super) pipeline: wgpu::ComputePipeline,
    /// By slot index; dropped when the slot's buffer or the staging buffer is replaced.
    pub(super) groups: HashMap<usize, wgpu::BindGroup>,
}

impl Scatter {
    pub(super) fn new(device: &wgpu::Device) -> Self {
        let storage = |binding, read_only, dynamic| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: dynamic,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("freqbuf scatter"),
            entries: &[storage(0, true, false), storage(1, true, true), storage(2, false, false)],
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("freqbuf scatter"),
            source: wgpu::ShaderSource::Wgsl(SCATTER_WGSL.into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("freqbuf scatter"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("freqbuf scatter"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("scatter"),
            compilation_options: Default::default(),
            cache: None,
        });
        Self { layout, pipeline, groups: HashMap::new() }
    }

    /// The bind group that scatters from `staging` (tables seen through a
    /// `window`-byte dynamic binding) into `dst`.
    pub(super) fn group(
        &self,
        device: &wgpu::Device,
        staging: &wgpu::Buffer,
        window: u64,
        dst: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("freqbuf scatter"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: staging.as_entire_binding() },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: staging,
                        offset: 0,
                        size: wgpu::BufferSize::new(window),
                    }),
                },
                wgpu::BindGroupEntry { binding: 2, resource: dst.as_entire_binding() },
            ],
        })
    }
}
