//! The compute scatter pass: moves packed ranges from the staging buffer into
//! a slot buffer with one dispatch, an invocation per range.

use std::collections::HashMap;

/// Bytes in one row of a pairs table: destination word and source word. Row 0
/// holds the row count and 0; a last row holds the end of the data, so a
/// row's length is the next row's source minus its own.
pub(super) const ROW: u64 = 8;

/// Bytes before a uniform table's destinations: the count, the words of
/// every range, the source word of the first, and 0.
const UNIFORM_HEADER: u64 = 16;

/// The most words one row (one invocation) moves: longer ranges are cut
/// into several rows, a table overhead of 8 bytes per 256.
pub(super) const ROW_WORDS: u64 = 64;

/// How a scatter table names its ranges.
///
/// Most flushes move ranges of one length (a member of each dirty
/// instance, a caller's row each): their sources follow each other, so
/// the table needs only each destination, half the bytes of a pair. A
/// table of 10,000 rows of 80 bytes is then 4% of the upload, not 9%.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Table {
    /// (destination, source) words per range, ranges of any length.
    Pairs,
    /// Every range `words` long and packed in order: a destination word each.
    Uniform { words: u32 },
}

impl Table {
    /// Uniform where every length (bytes, whole words) is the first's.
    pub(super) fn of(mut lengths: impl Iterator<Item = u64>) -> Self {
        let Some(first) = lengths.next() else { return Table::Pairs };
        match lengths.all(|l| l == first) {
            true => Table::Uniform { words: (first / 4) as u32 },
            false => Table::Pairs,
        }
    }

    /// The table's bytes for `ranges` ranges.
    pub(super) fn bytes(self, ranges: u64) -> u64 {
        match self {
            Table::Pairs => (ranges + 2) * ROW,
            Table::Uniform { .. } => UNIFORM_HEADER + 4 * ranges,
        }
    }

    /// Adds one range's entry (destination and source bytes) to `words`.
    #[inline]
    pub(super) fn push(self, words: &mut Vec<u32>, dst: u64, src: u64) {
        match self {
            Table::Pairs => words.extend([(dst / 4) as u32, (src / 4) as u32]),
            Table::Uniform { .. } => words.push((dst / 4) as u32),
        }
    }

    /// The whole table for `ranges` entries pushed to `words`, whose data
    /// runs from source byte `src` to `end`, written at `at` of `out`.
    pub(super) fn write(
        self,
        out: &mut wgpu::WriteOnly<'_, [u8]>,
        at: u64,
        (ranges, src, end): (u64, u64, u64),
        words: &[u32],
    ) {
        let (header, tail): ([u32; 4], &[u32]) = match self {
            Table::Pairs => ([ranges as u32, 0, 0, 0], &[0, (end / 4) as u32]),
            Table::Uniform { words } => ([ranges as u32, words, (src / 4) as u32, 0], &[]),
        };
        let header = &header[..if self == Table::Pairs { 2 } else { 4 }];
        let mut put = |at: u64, w: &[u32]| {
            let bytes: &[u8] = bytemuck::cast_slice(w);
            out.slice(at as usize..at as usize + bytes.len()).copy_from_slice(bytes);
        };
        let body = at + 4 * header.len() as u64;
        put(at, header);
        put(body, words);
        put(body + 4 * words.len() as u64, tail);
    }
}

// One invocation per range: it copies its range, so no lane searches the
// table. (An invocation per word had to find its row by a binary search
// over the table: on lavapipe, where the "GPU" is the CPU, 10,000 rows of
// 14 words took about 14 times the work.) Word 1 of the table tells the
// forms apart: 0 for pairs, the range's words for a uniform table.
const SCATTER_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read> table: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let r = gid.x + gid.y * groups.x * 64u;
    if r >= table[0] { return; }
    let words = table[1];
    var at: u32;
    var first: u32;
    var end: u32;
    if words == 0u {
        at = table[2u + 2u * r];
        first = table[3u + 2u * r];
        end = table[5u + 2u * r];
    } else {
        at = table[4u + r];
        first = table[2] + r * words;
        end = first + words;
    }
    for (var w = first; w < end; w++) {
        dst[at + (w - first)] = data[w];
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
