//! Object data a baseline uploads itself: packing, the object group, and
//! encoding with frame, view and material through freqbuf.

use freqbuf::Headless;

use crate::freqbuf::*;
use crate::method::*;
use crate::scene::Scene;

/// The bytes between objects: `ALIGN` for uniform objects, the element for storage.
pub(crate) fn object_stride(scene: &Scene) -> u64 {
    if scene.params.object_storage { OBJECT_STRIDE } else { ALIGN }
}

/// One object as the object slot lays it out.
#[inline]
pub(crate) fn pack_object(o: &crate::scene::ObjectDef, out: &mut [u8]) {
    out[off::WORLD..off::WORLD + 64].copy_from_slice(bytes_of_mat(&o.world));
    out[off::TINT..off::TINT + 16].copy_from_slice(bytemuck::bytes_of(&o.tint));
}

/// Object data packed as the object slot lays it out.
pub(crate) fn pack_objects(scene: &Scene, out: &mut Vec<u8>) {
    let stride = object_stride(scene) as usize;
    out.clear();
    out.resize(scene.objects.len() * stride, 0);
    for (o, chunk) in scene.objects.iter().zip(out.chunks_exact_mut(stride)) {
        pack_object(o, chunk);
    }
}

/// The usage of an object buffer: uniform with dynamic offsets, or a storage array.
pub(crate) fn object_usage(scene: &Scene) -> wgpu::BufferUsages {
    let bind =
        if scene.params.object_storage { wgpu::BufferUsages::STORAGE } else { wgpu::BufferUsages::UNIFORM };
    bind | wgpu::BufferUsages::COPY_DST
}

/// The object group: a storage array bound whole, or a uniform window of one object.
pub(crate) fn object_group(
    gpu: &Headless,
    shared: &Shared,
    scene: &Scene,
    buffer: &wgpu::Buffer,
) -> wgpu::BindGroup {
    if scene.params.object_storage {
        shared.storage_group(gpu, buffer)
    } else {
        shared.group(gpu, buffer, 80)
    }
}

/// Encodes the draws with groups 0 to 2 through freqbuf's binder and the
/// method's own object group: a storage array bound once (the object's index as
/// the instance), or a uniform buffer bound per draw. Returns its binds.
pub(crate) fn encode_own_objects(
    inner: &mut Freqbuf,
    shared: &Shared,
    scene: &Scene,
    pass: &mut wgpu::RenderPass<'_>,
    group: &wgpu::BindGroup,
) -> u64 {
    let storage = scene.params.object_storage;
    let mut binds = 0;
    if storage {
        pass.set_bind_group(3, group, &[]);
        binds += 1;
    }
    inner.encode_listed(shared, pass, 0..3, |pass, i, _| {
        let o = scene.draws[i] as u32;
        if storage {
            pass.draw(0..4, o..o + 1);
        } else {
            pass.set_bind_group(3, group, &[o * ALIGN as u32]);
            binds += 1;
            pass.draw(0..4, 0..1);
        }
    });
    binds
}
