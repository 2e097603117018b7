//! `FullRewrite`: every object re-uploaded every frame into one buffer.

use freqbuf::Headless;
use freqbuf::{Manager, SlotPlan};

use crate::freqbuf::*;
use crate::method::*;
use crate::objects::*;
use crate::scene::{FrameChanges, Scene};

/// freqbuf for frame, view and material data; all object data re-uploaded every frame.
pub struct FullRewrite {
    inner: Freqbuf,
    objects: wgpu::Buffer,
    objects_cpu: Vec<u8>,
    group: wgpu::BindGroup,
}

impl FullRewrite {
    pub fn new(gpu: &Headless, shared: &Shared, scene: &Scene) -> Self {
        let inner = Freqbuf::with_manager(
            gpu,
            scene,
            Manager::new(&gpu.device, SlotPlan::default()),
            false,
            "full_rewrite",
        );
        let objects = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("objects"),
            size: scene.objects.len() as u64 * object_stride(scene),
            usage: object_usage(scene),
            mapped_at_creation: false,
        });
        let group = object_group(gpu, shared, scene, &objects);
        Self { inner, objects, objects_cpu: Vec::new(), group }
    }
}

impl Method for FullRewrite {
    fn name(&self) -> &'static str {
        "full_rewrite"
    }

    fn frame(
        &mut self,
        gpu: &Headless,
        shared: &Shared,
        scene: &Scene,
        changes: &FrameChanges,
        target: &Target,
    ) -> Cost {
        self.inner.set_shared(changes);
        // The shared values' flush goes into the frame's encoder: one submit.
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        self.inner.m.flush_into(&gpu.queue, &mut enc).expect("flush");
        pack_objects(scene, &mut self.objects_cpu);
        gpu.queue.write_buffer(&self.objects, 0, &self.objects_cpu);
        let binds =
            encode_own_objects(&mut self.inner, shared, scene, &mut target.pass(&mut enc), &self.group);
        gpu.queue.submit([enc.finish()]);
        let s = self.inner.m.take_stats().total();
        Cost {
            bytes: s.bytes_uploaded + self.objects_cpu.len() as u64,
            upload_calls: s.upload_calls + 1,
            bind_calls: s.set_bind_group_calls + binds,
            whole_span: false,
        }
    }
}
