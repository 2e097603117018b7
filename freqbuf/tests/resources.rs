//! Textures, samplers and buffers are checked when set: a mismatch is a typed
//! error and the instance keeps its old resource. A texture that is only
//! loaded gets an unfilterable layout, so R32Float works.

mod common;

use common::gpu::{self, texel, texture_view as view};
use common::scene::{Kind, Report, Rig, TestShader};
use freqbuf::ParamErrorKind;
use freqbuf::{Draw, Error, Manager, SlotPlan};

const TEXTURES: TestShader = TestShader {
    tag: 51,
    wgsl: r#"
@group(2) @binding(1) var albedo: texture_2d<f32>;
@group(2) @binding(2) var samp: sampler;
@group(2) @binding(3) var height: texture_2d<f32>;
@group(2) @binding(4) var<storage, read> table: array<vec4<u32>>;
@compute @workgroup_size(1) fn main() {
    begin(51u);
    put4(textureSampleLevel(albedo, samp, vec2<f32>(0.5), 0.0));
    putf(textureLoad(height, vec2<i32>(0), 0).x);
    put(table[0].x);
}
"#,
    reports: &[
        Report { name: "albedo", kind: Kind::Vec4 },
        Report { name: "height", kind: Kind::F32 },
        Report { name: "table", kind: Kind::U32 },
    ],
};

fn incompatible(e: Error) -> String {
    match e {
        Error::Param(p) => match p.kind {
            ParamErrorKind::Incompatible { ref expected, .. } => format!("{expected} | {p}"),
            k => panic!("expected Incompatible, got {k}"),
        },
        e => panic!("expected a param error, got {e}"),
    }
}

#[test]
fn resources_that_do_not_fit_are_refused_and_the_old_ones_stay() {
    let Some(h) = gpu::device() else { return };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 1);
    let id = rig.register(&h.device, &mut m, &TEXTURES);
    let mat = m.create_material();
    m.material(mat).set_texture("albedo", &texel(h, [255, 0, 0, 255])).unwrap();
    let table = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    h.queue.write_buffer(&table, 0, bytemuck::cast_slice(&[42u32, 0, 0, 0]));
    m.material(mat).set_buffer("table", &table).unwrap();
    // An R32Float height map read with textureLoad fits the unfilterable layout.
    m.material(mat)
        .set_texture("height", &view(h, wgpu::TextureFormat::R32Float, 1, None, bytemuck::bytes_of(&0.75f32)))
        .unwrap();

    let bad = [
        view(h, wgpu::TextureFormat::R32Float, 1, None, &[]),
        view(h, wgpu::TextureFormat::Depth32Float, 1, None, &[]),
        view(h, wgpu::TextureFormat::Rgba8Uint, 1, None, &[]),
        view(h, wgpu::TextureFormat::Rgba8Unorm, 2, Some(wgpu::TextureViewDimension::D2Array), &[]),
    ];
    for v in &bad {
        let e = incompatible(m.material(mat).set_texture("albedo", v).unwrap_err());
        assert!(e.starts_with("a D2 texture view of a filterable float format | parameter `albedo`: it does not fit the binding"), "{e}");
    }
    let cmp = h.device.create_sampler(&wgpu::SamplerDescriptor {
        compare: Some(wgpu::CompareFunction::Less),
        ..Default::default()
    });
    let e = incompatible(m.material(mat).set_sampler("samp", &cmp).unwrap_err());
    assert!(e.starts_with("a filtering sampler"), "{e}");
    let uniform_only = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM,
        mapped_at_creation: false,
    });
    let e = incompatible(m.material(mat).set_buffer("table", &uniform_only).unwrap_err());
    assert!(e.starts_with("a read-only storage buffer of at least 16 bytes"), "{e}");
    let small = h.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 4,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    incompatible(m.material(mat).set_buffer("table", &small).unwrap_err());

    m.flush(&h.queue).unwrap();
    let rec = &rig.run(h, &mut m, &[Draw::new(id).material(mat)])[0];
    let f = rec[1..6].iter().map(|&w| f32::from_bits(w)).collect::<Vec<_>>();
    assert_eq!(f, [1.0, 0.0, 0.0, 1.0, 0.75], "the red texture and the R32Float height stayed");
    assert_eq!(rec[6], 42, "the storage buffer stayed");
}
