//! The rig: a manager's test shaders as compute pipelines, run against one
//! record buffer and read back as reports.

use std::collections::HashMap;

use freqbuf::{Manager, ShaderId};

use super::*;
use crate::gpu::read_words;

/// Compute pipelines of registered test shaders, and the output buffer.
pub struct Rig {
    pub out: wgpu::Buffer,
    pub pipelines: HashMap<ShaderId, (wgpu::ComputePipeline, &'static TestShader)>,
}

impl Rig {
    pub fn new(device: &wgpu::Device, max_draws: u32) -> Self {
        let out = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("reports"),
            size: 16 + (max_draws * RECORD_WORDS * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self { out, pipelines: HashMap::new() }
    }

    /// Registers a test shader and builds its pipeline with the manager's layout.
    pub fn register(&mut self, device: &wgpu::Device, m: &mut Manager, s: &'static TestShader) -> ShaderId {
        // One family: the test shaders share one material type, whose slot they merge.
        let src = source(s);
        let reflection = freqbuf::reflect::ShaderReflection::new(
            format!("test{}.wgsl", s.tag),
            freqbuf::reflect::ShaderSource::Wgsl(&src),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let id = m.register(reflection.with_family("rig")).unwrap_or_else(|e| panic!("{e}"));
        self.adopt(device, m, id, s);
        id
    }

    /// Builds the pipeline of a shader the manager already has (after `Manager::recreate`).
    pub fn adopt(&mut self, device: &wgpu::Device, m: &mut Manager, id: ShaderId, s: &'static TestShader) {
        m.frame().set_buffer("out", &self.out).unwrap();
        let module = m.create_shader_module(id).expect("registered");
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(m.pipeline_layout(id).expect("registered")),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        self.pipelines.insert(id, (pipeline, s));
    }

    /// Runs the draws and returns each one's record; a draw the binder refuses
    /// is not dispatched and gets the binder's error instead.
    pub fn try_run(
        &self,
        h: &freqbuf::Headless,
        m: &mut Manager,
        draws: &[freqbuf::Draw],
    ) -> Vec<Result<Vec<u32>, freqbuf::Error>> {
        self.dispatch(h, draws, |pass| {
            let mut binder = freqbuf::Binder::new();
            draws
                .iter()
                .map(|d| {
                    pass.set_pipeline(&self.pipelines[&d.shader()].0);
                    binder.bind(m, pass, d).map(|_| pass.dispatch_workgroups(1, 1, 1))
                })
                .collect()
        })
    }

    /// Like `run`, but flushes with `Manager::flush_into` into the encoder
    /// the draws go into: one submit for the flush and the draws.
    pub fn run_flushed_into(
        &self,
        h: &freqbuf::Headless,
        m: &mut Manager,
        draws: &[freqbuf::Draw],
    ) -> Vec<Vec<u32>> {
        let (enc, outcomes) = self.record_flushed_into(h, m, draws);
        h.queue.submit([enc.finish()]);
        self.read(h, draws, outcomes)
    }

    /// Records `flush_into` and the draws into one encoder, unsubmitted.
    pub fn record_flushed_into(
        &self,
        h: &freqbuf::Headless,
        m: &mut Manager,
        draws: &[freqbuf::Draw],
    ) -> (wgpu::CommandEncoder, Vec<Result<(), freqbuf::Error>>) {
        let mut enc = h.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.out, 0, None);
        m.flush_into(&h.queue, &mut enc).unwrap_or_else(|e| panic!("{e}"));
        let outcomes = {
            let mut pass = enc.begin_compute_pass(&Default::default());
            let mut binder = freqbuf::Binder::new();
            draws
                .iter()
                .map(|d| {
                    pass.set_pipeline(&self.pipelines[&d.shader()].0);
                    binder.bind(m, &mut pass, d).map(|_| pass.dispatch_workgroups(1, 1, 1))
                })
                .collect()
        };
        (enc, outcomes)
    }

    /// The records of submitted draws, every one bound.
    pub fn read(
        &self,
        h: &freqbuf::Headless,
        draws: &[freqbuf::Draw],
        outcomes: Vec<Result<(), freqbuf::Error>>,
    ) -> Vec<Vec<u32>> {
        self.records(h, draws, outcomes).into_iter().map(|r| r.unwrap_or_else(|e| panic!("{e}"))).collect()
    }

    /// Like `try_run`, binding with shared access after `Manager::prepare`,
    /// the draws split into `threads` runs, each encoded on its own thread
    /// into its own command buffer; the buffers are submitted in order.
    pub fn try_run_prepared(
        &self,
        h: &freqbuf::Headless,
        m: &Manager,
        draws: &[freqbuf::Draw],
        threads: usize,
    ) -> Vec<Result<Vec<u32>, freqbuf::Error>> {
        let mut clear = h.device.create_command_encoder(&Default::default());
        clear.clear_buffer(&self.out, 0, None);
        let per = draws.len().div_ceil(threads.max(1)).max(1);
        let state = m.state();
        let (buffers, outcomes): (Vec<_>, Vec<_>) = std::thread::scope(|s| {
            let runs = draws
                .chunks(per)
                .map(|run| {
                    s.spawn(move || {
                        let mut enc = h.device.create_command_encoder(&Default::default());
                        let mut binder = freqbuf::Binder::new();
                        let outcomes = {
                            let mut pass = enc.begin_compute_pass(&Default::default());
                            run.iter()
                                .map(|d| {
                                    pass.set_pipeline(&self.pipelines[&d.shader()].0);
                                    binder
                                        .bind_prepared(&state, &mut pass, d)
                                        .map(|_| pass.dispatch_workgroups(1, 1, 1))
                                })
                                .collect::<Vec<_>>()
                        };
                        (enc.finish(), outcomes)
                    })
                })
                .collect::<Vec<_>>();
            runs.into_iter().map(|t| t.join().expect("an encoding thread")).unzip()
        });
        h.queue.submit(std::iter::once(clear.finish()).chain(buffers));
        self.records(h, draws, outcomes.into_iter().flatten().collect())
    }

    /// Like `try_run`, binding the draw list `list` made of `draws`: every
    /// draw's record, or the list's one error.
    pub fn try_run_list(
        &self,
        h: &freqbuf::Headless,
        m: &mut Manager,
        list: &mut freqbuf::DrawList,
        draws: &[freqbuf::Draw],
    ) -> Result<Vec<Vec<u32>>, freqbuf::Error> {
        let mut failed = None;
        let seen = self.dispatch(h, draws, |pass| {
            let result = freqbuf::Binder::new().bind_list(m, pass, list, |pass, i, _| {
                pass.set_pipeline(&self.pipelines[&draws[i].shader()].0);
                pass.dispatch_workgroups(1, 1, 1);
            });
            match result {
                Ok(()) => draws.iter().map(|_| Ok(())).collect(),
                Err(e) => {
                    failed = Some(e);
                    Vec::new()
                }
            }
        });
        match failed {
            Some(e) => Err(e),
            None => seen.into_iter().collect(),
        }
    }

    /// Clears the record buffer, encodes one compute pass with `encode`
    /// (one outcome per draw, or none when nothing ran), submits, and
    /// returns the records the shaders wrote, in dispatch order.
    fn dispatch(
        &self,
        h: &freqbuf::Headless,
        draws: &[freqbuf::Draw],
        encode: impl FnOnce(&mut wgpu::ComputePass<'_>) -> Vec<Result<(), freqbuf::Error>>,
    ) -> Vec<Result<Vec<u32>, freqbuf::Error>> {
        let mut enc = h.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.out, 0, None);
        let outcomes = {
            let mut pass = enc.begin_compute_pass(&Default::default());
            encode(&mut pass)
        };
        h.queue.submit([enc.finish()]);
        self.records(h, draws, outcomes)
    }

    /// Reads the record buffer back: each dispatched draw's record, in order.
    fn records(
        &self,
        h: &freqbuf::Headless,
        draws: &[freqbuf::Draw],
        outcomes: Vec<Result<(), freqbuf::Error>>,
    ) -> Vec<Result<Vec<u32>, freqbuf::Error>> {
        let words = read_words(h, &self.out);
        let ran = outcomes.iter().filter(|o| o.is_ok()).count();
        assert_eq!(words[0] as usize, ran, "every bound dispatch ran once");
        let mut slot = 0;
        draws
            .iter()
            .zip(outcomes)
            .map(|(d, o)| {
                o.map(|()| {
                    let n = 1 + self.pipelines[&d.shader()]
                        .1
                        .reports
                        .iter()
                        .map(|r| r.kind.words())
                        .sum::<usize>();
                    let start = 1 + slot * RECORD_WORDS as usize;
                    slot += 1;
                    words[start..start + n].to_vec()
                })
            })
            .collect()
    }

    pub fn run(&self, h: &freqbuf::Headless, m: &mut Manager, draws: &[freqbuf::Draw]) -> Vec<Vec<u32>> {
        self.try_run(h, m, draws).into_iter().map(|r| r.unwrap_or_else(|e| panic!("{e}"))).collect()
    }

    /// A rig on `device` with the pipelines of every shader this one has
    /// (after `Manager::recreate`).
    pub fn moved(&self, device: &wgpu::Device, m: &mut Manager, max_draws: u32) -> Self {
        let mut rig = Rig::new(device, max_draws);
        for (&id, &(_, s)) in &self.pipelines {
            rig.adopt(device, m, id, s);
        }
        rig
    }
}
