//! `EncodeFloor`: the draws with everything built beforehand and no uploads.

use freqbuf::Headless;

use crate::method::*;
use crate::objects::*;
use crate::scene::{FrameChanges, Scene};

enum Cmd {
    Pipeline(usize),
    Bind(u32, u32),
    /// A draw with its first instance (the object, for storage arrays).
    Draw(u32),
}

/// Pre-built bind groups, precomputed offsets, no uploads: encoding alone.
pub struct EncodeFloor {
    groups: [wgpu::BindGroup; 4],
    cmds: Vec<Cmd>,
    _buffers: Vec<wgpu::Buffer>,
}

impl EncodeFloor {
    /// Uploads `final_scene`'s values once, so the image matches the other
    /// methods' last frame, and records the minimal command list.
    pub fn new(gpu: &Headless, shared: &Shared, final_scene: &Scene) -> Self {
        let s = final_scene;
        let upload = |data: &[u8]| {
            let b = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: (data.len() as u64).max(ALIGN),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            gpu.queue.write_buffer(&b, 0, data);
            b
        };
        let mut frame = vec![0u8; ALIGN as usize];
        frame[off::TIME..off::TIME + 4].copy_from_slice(bytemuck::bytes_of(&s.time));
        frame[off::FRAME_INDEX..off::FRAME_INDEX + 4].copy_from_slice(bytemuck::bytes_of(&s.frame_index));
        frame[off::AMBIENT..off::AMBIENT + 16].copy_from_slice(bytemuck::bytes_of(&s.ambient));
        let mut views = vec![0u8; s.views.len() * ALIGN as usize];
        for (i, v) in s.views.iter().enumerate() {
            views[i * ALIGN as usize..i * ALIGN as usize + 64].copy_from_slice(bytes_of_mat(v));
        }
        let mut mats = vec![0u8; s.materials.len() * ALIGN as usize];
        for (i, m) in s.materials.iter().enumerate() {
            let at = i * ALIGN as usize;
            mats[at + off::BASE_COLOR..at + off::BASE_COLOR + 16]
                .copy_from_slice(bytemuck::bytes_of(&m.base_color));
            mats[at + off::PARAMS..at + off::PARAMS + 16].copy_from_slice(bytemuck::bytes_of(&m.params));
            mats[at + off::EMISSIVE..at + off::EMISSIVE + 16]
                .copy_from_slice(bytemuck::bytes_of(&m.emissive));
        }
        let mut objs = Vec::new();
        pack_objects(s, &mut objs);
        let storage = s.params.object_storage;
        let objects = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: (objs.len() as u64).max(ALIGN),
            usage: object_usage(s),
            mapped_at_creation: false,
        });
        gpu.queue.write_buffer(&objects, 0, &objs);
        let buffers = vec![upload(&frame), upload(&views), upload(&mats), objects];
        let sizes = [32, 64, 48];
        let groups = [0, 1, 2].map(|g| shared.group(gpu, &buffers[g], sizes[g]));
        let object_group = object_group(gpu, shared, s, &buffers[3]);
        let [g0, g1, g2] = groups;
        let groups = [g0, g1, g2, object_group];
        let mut cmds = Vec::new();
        if storage {
            cmds.push(Cmd::Bind(3, u32::MAX));
        }
        let mut current = usize::MAX;
        let mut bound = [u32::MAX; 4];
        for &o in &s.draws {
            let obj = &s.objects[o];
            let sh = s.materials[obj.material].shader;
            if sh != current {
                cmds.push(Cmd::Pipeline(sh));
                current = sh;
            }
            let offsets =
                [0, obj.view as u64 * ALIGN, obj.material as u64 * ALIGN, o as u64 * ALIGN].map(|x| x as u32);
            let uniform_groups = if storage { 3 } else { 4 };
            for g in 0..uniform_groups {
                if bound[g] != offsets[g] {
                    cmds.push(Cmd::Bind(g as u32, offsets[g]));
                    bound[g] = offsets[g];
                }
            }
            cmds.push(Cmd::Draw(if storage { o as u32 } else { 0 }));
        }
        Self { groups, cmds, _buffers: buffers }
    }
}

impl Method for EncodeFloor {
    fn name(&self) -> &'static str {
        "encode_floor"
    }

    fn frame(
        &mut self,
        gpu: &Headless,
        shared: &Shared,
        _scene: &Scene,
        _changes: &FrameChanges,
        target: &Target,
    ) -> Cost {
        let mut binds = 0;
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = target.pass(&mut enc);
            for c in &self.cmds {
                match *c {
                    Cmd::Pipeline(p) => pass.set_pipeline(&shared.pipelines[p]),
                    // u32::MAX: a storage array, bound without an offset.
                    Cmd::Bind(g, u32::MAX) => {
                        pass.set_bind_group(g, &self.groups[g as usize], &[]);
                        binds += 1;
                    }
                    Cmd::Bind(g, off) => {
                        pass.set_bind_group(g, &self.groups[g as usize], &[off]);
                        binds += 1;
                    }
                    Cmd::Draw(first) => pass.draw(0..4, first..first + 1),
                }
            }
        }
        gpu.queue.submit([enc.finish()]);
        Cost { bytes: 0, upload_calls: 0, bind_calls: binds, whole_span: false }
    }
}
