//! `Freqbuf`: freqbuf itself, in every form the stress example runs (plain,
//! bundles, threads, one submit, multi-draw indirect, one set per object).

use freqbuf::{
    Binder, Draw, DrawArgs, DrawList, Headless, IndirectDraws, InstanceList, Manager, MaterialId, ObjectId,
    Param, SlotPlan, ViewId,
};

use crate::method::*;
use crate::rows::ObjectRows;
use crate::scene::{FrameChanges, Scene};

/// freqbuf: shared slots, values set once where they change.
pub struct Freqbuf {
    pub(crate) m: Manager,
    pub(crate) views: Vec<ViewId>,
    pub(crate) materials: Vec<MaterialId>,
    pub(crate) objects: Vec<ObjectId>,
    pub(crate) p: Params,
    /// Draw order, prepared once: (pipeline index, draw).
    pub(crate) draws: Vec<(usize, Draw)>,
    pub(crate) name: &'static str,
    /// With `--bundles`: the draws recorded once, and the manager generation
    /// they were recorded at (recorded again when it moves).
    pub(crate) bundle: Option<Option<(u64, wgpu::RenderBundle)>>,
    /// With `--threads N`: N threads encode bundles each frame, and the
    /// generation the bind groups were last prepared at.
    pub(crate) threads: Option<(usize, Option<u64>)>,
    /// The draws with their handles resolved once (`Manager::draw_list`).
    pub(crate) list: Option<DrawList>,
    /// The pipeline of each draw, in draw order.
    pub(crate) pipelines: Vec<usize>,
    /// (first draw, pipeline) at each change of pipeline, in draw order:
    /// where a callback sees only some draws, a search of this small table
    /// stays in cache, where reading `pipelines` at draws far apart misses.
    pub(crate) pipeline_starts: Vec<(usize, usize)>,
    /// With `--one-submit`: the flush is recorded into the frame's encoder
    /// (`Manager::flush_into`), one submit per frame.
    pub(crate) one_submit: bool,
    /// With `--indirect`: the draw list issued as multi-draw-indirect runs
    /// (`Binder::draw_indirect`), its arguments kept across frames.
    pub(crate) indirect: Option<IndirectDraws>,
    /// `freqbuf_members`: moved objects written one `object(id).set(..)`
    /// each, instead of through one `Manager::batch`.
    pub(crate) members: bool,
    /// The objects resolved once (`Manager::instance_list`): the scene
    /// frees none, so batches write them by position.
    pub(crate) object_list: Option<InstanceList>,
    /// Registered the bindless shaders: materials in a slab, drawn with
    /// `Shared::bindless_pipelines`.
    pub(crate) bindless: bool,
    /// `freqbuf_rows`: the object array's rows are the scene's, packed from
    /// it each frame (`Manager::write_rows_with`), with each material's
    /// slab element for the bindless shaders' pointer.
    pub(crate) rows: Option<ObjectRows>,
}

pub(crate) struct Params {
    time: Param,
    frame_index: Option<Param>,
    view_proj: Param,
    base_color: Param,
    world: Param,
}

impl Freqbuf {
    /// Registers every shader, creates every instance and sets the frame-0 values.
    pub fn new(gpu: &Headless, scene: &Scene) -> Self {
        Self::with_manager(gpu, scene, Manager::new(&gpu.device, SlotPlan::default()), true, "freqbuf")
    }

    /// `freqbuf_bindless`: the bindless shaders, their materials in one slab
    /// that each object's `material` member points into (written by
    /// `Manager::draw_list`), drawn as multi-draw-indirect runs that a
    /// material change does not end.
    pub fn bindless(gpu: &Headless, scene: &Scene) -> Self {
        assert!(scene.params.bindless, "freqbuf_bindless needs a scene with bindless shaders");
        let m = Manager::new(&gpu.device, SlotPlan::default());
        let mut fb = Self::with_form(gpu, scene, m, true, "freqbuf_bindless", true).with_indirect();
        fb.name = "freqbuf_bindless";
        // Linking writes each object's material element: flushed before the first frame.
        fb.list = Some(fb.m.draw_list(fb.draws.iter().map(|(_, d)| d)).expect("flushed, live"));
        fb.m.flush(&gpu.queue).expect("flush");
        fb.m.take_stats();
        fb
    }

    pub(crate) fn with_manager(
        gpu: &Headless,
        scene: &Scene,
        m: Manager,
        objects: bool,
        name: &'static str,
    ) -> Self {
        Self::with_form(gpu, scene, m, objects, name, false)
    }

    pub(crate) fn with_form(
        gpu: &Headless,
        scene: &Scene,
        mut m: Manager,
        objects: bool,
        name: &'static str,
        bindless: bool,
    ) -> Self {
        let shaders = if bindless { register_bindless(&mut m, scene) } else { register_all(&mut m, scene) };
        let param = |m: &Manager, n: &str| m.param(n).unwrap_or_else(|e| panic!("{e}"));
        let p = Params {
            time: param(&m, "time"),
            frame_index: m.param("frame_index").ok(),
            view_proj: param(&m, "view_proj"),
            base_color: param(&m, "base_color"),
            world: param(&m, "world"),
        };
        let (ambient, params, emissive, tint) =
            (m.param("ambient").ok(), m.param("params").ok(), m.param("emissive").ok(), m.param("tint").ok());
        if let Some(a) = ambient {
            m.frame().set(a, &scene.ambient).expect("vec4");
        }
        let views = scene
            .views
            .iter()
            .map(|vp| {
                let v = m.create_view();
                m.view(v).set(p.view_proj, vp).expect("mat4");
                v
            })
            .collect::<Vec<_>>();
        let materials = scene
            .materials
            .iter()
            .map(|mat| {
                let id = m.create_material();
                let mut i = m.material(id);
                i.set(p.base_color, &mat.base_color).expect("vec4");
                if let Some(pp) = params {
                    // A vec3 where the bindless material keeps its texture in the last lane.
                    let lanes = if bindless && scene.params.textures { 3 } else { 4 };
                    i.set_bytes(pp, bytemuck::cast_slice(&mat.params[..lanes])).expect("vec4 or vec3");
                }
                if let Some(e) = emissive {
                    i.set(e, &mat.emissive).expect("vec4");
                }
                id
            })
            .collect::<Vec<_>>();
        let object_ids = if objects {
            scene
                .objects
                .iter()
                .map(|o| {
                    let id = m.create_object();
                    let mut i = m.object(id);
                    i.set(p.world, &o.world).expect("mat4");
                    if let Some(t) = tint {
                        i.set(t, &o.tint).expect("vec4");
                    }
                    id
                })
                .collect::<Vec<_>>()
        } else {
            Vec::new()
        };
        if bindless && scene.params.textures {
            crate::textures::set_on(gpu, &mut m, &materials);
        }
        m.flush(&gpu.queue).expect("flush");
        m.take_stats();
        let draws: Vec<(usize, Draw)> = scene
            .draws
            .iter()
            .map(|&o| {
                let obj = &scene.objects[o];
                let s = scene.materials[obj.material].shader;
                let mut d = Draw::new(shaders[s]).view(views[obj.view]).material(materials[obj.material]);
                if objects {
                    d = d.object(object_ids[o]);
                }
                (s, d)
            })
            .collect();
        let object_list = objects.then(|| m.instance_list(object_ids.iter().copied()).expect("live objects"));
        Self {
            m,

            views,
            materials,
            objects: object_ids,
            p,
            name,
            bundle: None,
            threads: None,
            list: None,
            pipelines: draws.iter().map(|&(s, _)| s).collect(),
            pipeline_starts: draws
                .iter()
                .enumerate()
                .filter(|&(i, (s, _))| i == 0 || draws[i - 1].0 != *s)
                .map(|(i, &(s, _))| (i, s))
                .collect(),
            draws,
            one_submit: false,
            indirect: None,
            members: false,
            object_list,
            bindless,
            rows: None,
        }
    }

    /// Writes each moved object with its own `object(id).set(param, value)`
    /// (a handle, frequency, type and bounds check per call), as
    /// `freqbuf_members`, beside the batch the other freqbuf rows use.
    pub fn with_members(mut self) -> Self {
        self.members = true;
        self.name = "freqbuf_members";
        self
    }

    /// Writes the moved objects' world matrices: one batch (the member
    /// checked once), or one set per object with `with_members`.
    pub(crate) fn set_objects(&mut self, changes: &FrameChanges) {
        if self.members {
            for &(o, ref w) in &changes.objects {
                self.m.object(self.objects[o]).set(self.p.world, w).expect("mat4");
            }
            return;
        }
        let mut worlds = self.m.batch(self.p.world).expect("a mat4 member");
        let list = self.object_list.as_ref().expect("a scene with object data");
        worlds.set_all_in(list, changes.objects.iter().map(|(o, w)| (*o, w))).expect("live objects");
    }

    /// Binds the groups in `groups` of every draw from the draw list (made
    /// once: the scene frees no instance), setting each draw's pipeline when it
    /// changes, then calls `draw(pass, i, first)`.
    pub(crate) fn encode_listed(
        &mut self,
        shared: &Shared,
        pass: &mut wgpu::RenderPass<'_>,
        groups: std::ops::Range<u32>,
        mut draw: impl FnMut(&mut wgpu::RenderPass<'_>, usize, u32),
    ) {
        if self.list.is_none() {
            self.list = Some(self.m.draw_list(self.draws.iter().map(|(_, d)| d)).expect("flushed, live"));
        }
        let list = self.list.as_mut().expect("made above");
        let (pipelines, built) =
            (&self.pipelines, if self.bindless { &shared.bindless_pipelines } else { &shared.pipelines });
        let mut current = usize::MAX;
        Binder::new()
            .bind_list_groups(&mut self.m, pass, list, groups, |pass, i, first| {
                if pipelines[i] != current {
                    current = pipelines[i];
                    pass.set_pipeline(&built[current]);
                }
                draw(pass, i, first);
            })
            .expect("bind");
    }

    /// Issues the draw list as multi-draw-indirect runs: one call per run of
    /// draws that share a pipeline and bind groups. The flush is recorded
    /// into the frame's encoder (`flush_into`), so the frame is one submit,
    /// as the hand-written `storage_indirect` records its scatter: the
    /// fastest documented form of a GPU-driven frame.
    pub fn with_indirect(mut self) -> Self {
        self.indirect = Some(IndirectDraws::new(vec![DrawArgs::vertices(4, 0); self.draws.len()]));
        self.one_submit = true;
        self.name = "freqbuf_indirect";
        self
    }

    /// Records each frame's flush into the frame's encoder: one submit.
    pub fn with_one_submit(mut self) -> Self {
        self.one_submit = true;
        self.name = "freqbuf_one_submit";
        self
    }

    /// Replays the draws from a render bundle, recorded again only when the
    /// manager's generation says a bind group it holds was replaced.
    pub fn with_bundles(mut self) -> Self {
        self.bundle = Some(None);
        self.name = "freqbuf_bundles";
        self
    }

    /// Encodes the draws on `n` threads each frame, each into its own bundle
    /// through a binder with shared access to the manager.
    pub fn with_threads(mut self, n: usize) -> Self {
        self.threads = Some((n.max(1), None));
        self.name = "freqbuf_threads";
        self
    }

    /// Records the draws on the threads into bundles; returns them and the bind calls.
    pub(crate) fn record_threaded(
        &mut self,
        gpu: &Headless,
        shared: &Shared,
        n: usize,
    ) -> (Vec<wgpu::RenderBundle>, u64) {
        let (state, draws) = (self.m.state(), &self.draws);
        let chunk = draws.len().div_ceil(n).max(1);
        std::thread::scope(|scope| {
            let workers = draws
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        let mut enc = bundle_encoder(gpu);
                        let mut binder = Binder::new();
                        let mut current = usize::MAX;
                        for (s, d) in part {
                            if *s != current {
                                enc.set_pipeline(&shared.pipelines[*s]);
                                current = *s;
                            }
                            let first = binder.bind_prepared(&state, &mut enc, d).expect("prepared");
                            enc.draw(0..4, first..first + 1);
                        }
                        (enc.finish(&Default::default()), binder.calls())
                    })
                })
                .collect::<Vec<_>>();
            let done = workers.into_iter().map(|w| w.join().expect("no panic")).collect::<Vec<_>>();
            let calls = done.iter().map(|d| d.1).sum();
            (done.into_iter().map(|d| d.0).collect(), calls)
        })
    }

    pub(crate) fn record(&mut self, gpu: &Headless, shared: &Shared) -> wgpu::RenderBundle {
        let mut enc = bundle_encoder(gpu);
        let mut binder = Binder::new();
        let mut current = usize::MAX;
        for (s, d) in &self.draws {
            if *s != current {
                enc.set_pipeline(&shared.pipelines[*s]);
                current = *s;
            }
            let first = binder.bind(&mut self.m, &mut enc, d).expect("bind");
            enc.draw(0..4, first..first + 1);
        }
        enc.finish(&Default::default())
    }

    pub(crate) fn set_shared(&mut self, changes: &FrameChanges) {
        self.set_frame_and_views(changes);
        for &(mat, ref c) in &changes.materials {
            self.m.material(self.materials[mat]).set(self.p.base_color, c).expect("vec4");
        }
    }

    /// The frame's and views' changes: what a baseline that keeps its own
    /// materials leaves to freqbuf.
    pub(crate) fn set_frame_and_views(&mut self, changes: &FrameChanges) {
        self.m.frame().set(self.p.time, &changes.time).expect("f32");
        if let Some(fi) = self.p.frame_index {
            self.m.frame().set(fi, &changes.frame).expect("u32");
        }
        for &(v, ref vp) in &changes.views {
            self.m.view(self.views[v]).set(self.p.view_proj, vp).expect("mat4");
        }
    }
}

impl Method for Freqbuf {
    fn name(&self) -> &'static str {
        self.name
    }

    fn frame(
        &mut self,
        gpu: &Headless,
        shared: &Shared,
        scene: &Scene,
        changes: &FrameChanges,
        target: &Target,
    ) -> Cost {
        self.set_shared(changes);
        match self.rows {
            Some(_) => self.write_rows(scene, changes),
            None => self.set_objects(changes),
        }
        if !self.one_submit {
            self.m.flush(&gpu.queue).expect("flush");
        }
        if let Some((n, prepared)) = self.threads {
            // Bind groups stay built until the generation moves.
            let generation = self.m.generation();
            if prepared != Some(generation) {
                self.m.prepare(self.draws.iter().map(|(_, d)| d)).expect("prepare");
                self.threads = Some((n, Some(generation)));
            }
            let (bundles, binds) = self.record_threaded(gpu, shared, n);
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            target.pass(&mut enc).execute_bundles(&bundles);
            gpu.queue.submit([enc.finish()]);
            let s = self.m.take_stats().total();
            return cost(&s, binds);
        }
        if let Some(cached) = &self.bundle {
            let generation = self.m.generation();
            if cached.as_ref().is_none_or(|(g, _)| *g != generation) {
                let bundle = self.record(gpu, shared);
                self.bundle = Some(Some((generation, bundle)));
            }
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            {
                let mut pass = target.pass(&mut enc);
                let (_, bundle) = self.bundle.as_ref().and_then(Option::as_ref).expect("recorded above");
                pass.execute_bundles([bundle]);
            }
            gpu.queue.submit([enc.finish()]);
            let s = self.m.take_stats().total();
            return cost(&s, s.set_bind_group_calls);
        }
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        if self.one_submit {
            self.m.flush_into(&gpu.queue, &mut enc).expect("flush");
        }
        if let Some(mut indirect) = self.indirect.take() {
            let mut pass = target.pass(&mut enc);
            if self.list.is_none() {
                self.list = Some(self.m.draw_list(self.draws.iter().map(|(_, d)| d)).expect("flushed, live"));
            }
            let list = self.list.as_mut().expect("made above");
            let starts = &self.pipeline_starts;
            let built = if self.bindless { &shared.bindless_pipelines } else { &shared.pipelines };
            Binder::new()
                .draw_indirect(&mut self.m, &gpu.queue, &mut pass, list, &mut indirect, |pass, i| {
                    // Called where the shader changes: draws far apart.
                    let at = starts.partition_point(|&(first, _)| first <= i) - 1;
                    pass.set_pipeline(&built[starts[at].1])
                })
                .expect("draw");
            self.indirect = Some(indirect);
        } else {
            let mut pass = target.pass(&mut enc);
            self.encode_listed(shared, &mut pass, 0..4, |pass, _, first| pass.draw(0..4, first..first + 1));
        }
        gpu.queue.submit([enc.finish()]);
        let s = self.m.take_stats().total();
        cost(&s, s.set_bind_group_calls)
    }
}

/// A frame's cost from the manager's statistics, with `binds` bind calls.
fn cost(s: &freqbuf::Stats, binds: u64) -> Cost {
    Cost {
        bytes: s.bytes_uploaded,
        upload_calls: s.upload_calls,
        bind_calls: binds,
        whole_span: s.whole_spans > 0,
    }
}
