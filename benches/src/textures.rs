//! The scene's textures (`SceneParams::textures`): a few 4×4 textures, one
//! per material by its index, that the bindless shaders read a texel of
//! through a binding array, `textures[material.texture]` (Bevy 0.20's
//! `bindless_textures_2d[material_indices[slot].base_color_texture]`).
//! freqbuf places each material's in its family's table with
//! `set_texture`; `storage_bindless` binds one array of them and writes the
//! index into its material array itself.

use freqbuf::{Headless, Manager, MaterialId};

/// Distinct textures; material `m` reads texture `m % COUNT`.
pub const COUNT: usize = 8;

/// Texels per side.
const SIDE: u32 = 4;

/// The texture material `m` reads.
pub fn of(material: usize) -> usize {
    material % COUNT
}

/// `material`, a bindless `Material` struct, with `texture: u32` as the last
/// lane of its second `vec4`: the element stays 48 bytes (the texture's
/// index is at byte 28).
pub(crate) fn material_struct(material: &str) -> String {
    material
        .replace("params: vec4<f32>", "params: vec3<f32>, texture: u32")
        .replace("_pad0: vec4<f32>", "_pad0: vec3<f32>, texture: u32")
}

/// Byte offset of `texture` in the material element.
pub const OFFSET: usize = 28;

/// Texture `t`'s RGBA8 texels, row by row: a gradient no two textures share.
fn texels(t: usize) -> Vec<u8> {
    let t = t as u32;
    (0..SIDE * SIDE)
        .flat_map(|i| {
            let (x, y) = (i % SIDE, i / SIDE);
            [
                (80 + t * 20 + x * 10) as u8,
                (255 - t * 25 - y * 12) as u8,
                (60 + (t * 47 + i * 9) % 190) as u8,
                255,
            ]
        })
        .collect()
}

/// The textures, made on `gpu` (each method makes its own, with the same texels).
pub fn views(gpu: &Headless) -> Vec<wgpu::TextureView> {
    let size = wgpu::Extent3d { width: SIDE, height: SIDE, depth_or_array_layers: 1 };
    (0..COUNT)
        .map(|t| {
            let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("scene texture"),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8Unorm,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            });
            gpu.queue.write_texture(
                texture.as_image_copy(),
                &texels(t),
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(4 * SIDE),
                    rows_per_image: None,
                },
                size,
            );
            texture.create_view(&Default::default())
        })
        .collect()
}

/// Places each material's texture in freqbuf's table (`set_texture` on the
/// slab member `texture`).
pub(crate) fn set_on(gpu: &Headless, m: &mut Manager, materials: &[MaterialId]) {
    let views = views(gpu);
    for (k, &id) in materials.iter().enumerate() {
        m.material(id).set_texture("texture", &views[of(k)]).unwrap_or_else(|e| panic!("{e}"));
    }
}
