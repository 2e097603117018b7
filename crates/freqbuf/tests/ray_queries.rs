//! Acceleration structures are a resource class: reflected, set on an
//! instance with `set_acceleration_structure`, refused without
//! `EXPERIMENTAL_RAY_QUERY` before anything is created, and read by a ray
//! query whose hits are checked against a model.

use crate::common;

use common::gpu;
use freqbuf::error::LimitErrorKind;
use freqbuf::{Binder, Draw, Error, Manager, SlotPlan};

/// Four rays along +z from `(x + origin.x, 0, origin.z)`; each writes the
/// hit distance, or -1 for a miss.
const RAYS: &str = "enable wgpu_ray_query;
struct Frame { origin: vec4<f32> }
@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var tlas: acceleration_structure;
@group(0) @binding(2) var<storage, read_write> seen: array<f32, 4>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) {
    let xs = array<f32, 4>(-0.25, 0.0, 0.25, 3.0);
    let start = vec3<f32>(xs[i] + frame.origin.x, 0.0, frame.origin.z);
    var rq: ray_query;
    rayQueryInitialize(&rq, tlas, RayDesc(0u, 0xFFu, 0.001, 100.0, start, vec3<f32>(0.0, 0.0, 1.0)));
    rayQueryProceed(&rq);
    let hit = rayQueryGetCommittedIntersection(&rq);
    seen[i] = select(-1.0, hit.t, hit.kind != RAY_QUERY_INTERSECTION_NONE);
}
";

/// The model: the triangle (-1,-1), (1,-1), (0,1) at depth `z` spans
/// `|x| < 0.5` where the rays run (y = 0).
fn model(z: f32, origin: [f32; 2]) -> Vec<f32> {
    [-0.25f32, 0.0, 0.25, 3.0]
        .iter()
        .map(|x| if (x + origin[0]).abs() < 0.5 { z - origin[1] } else { -1.0 })
        .collect()
}

/// A triangle's BLAS and a TLAS holding it once, moved to depth `z`, built.
fn scene(h: &freqbuf::Headless, z: f32) -> wgpu::Tlas {
    use wgpu::util::DeviceExt;
    let size = wgpu::BlasTriangleGeometrySizeDescriptor {
        vertex_format: wgpu::VertexFormat::Float32x3,
        vertex_count: 3,
        index_format: None,
        index_count: None,
        flags: wgpu::AccelerationStructureGeometryFlags::OPAQUE,
    };
    let blas = h.device.create_blas(
        &wgpu::CreateBlasDescriptor {
            label: None,
            flags: wgpu::AccelerationStructureFlags::PREFER_FAST_TRACE,
            update_mode: wgpu::AccelerationStructureUpdateMode::Build,
        },
        wgpu::BlasGeometrySizeDescriptors::Triangles { descriptors: vec![size.clone()] },
    );
    let vertices: [f32; 9] = [-1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 0.0, 1.0, 0.0];
    let vertex_buffer = h.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &vertices.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>(),
        usage: wgpu::BufferUsages::BLAS_INPUT,
    });
    let mut tlas = h.device.create_tlas(&wgpu::CreateTlasDescriptor {
        label: None,
        max_instances: 1,
        flags: wgpu::AccelerationStructureFlags::PREFER_FAST_TRACE,
        update_mode: wgpu::AccelerationStructureUpdateMode::Build,
    });
    let transform = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, z];
    tlas[0] = Some(wgpu::TlasInstance::new(&blas, transform, 0, 0xff));
    let mut enc = h.device.create_command_encoder(&Default::default());
    let geometry = wgpu::BlasTriangleGeometry {
        size: &size,
        vertex_buffer: &vertex_buffer,
        first_vertex: 0,
        vertex_stride: 12,
        index_buffer: None,
        first_index: None,
        transform_buffer: None,
        transform_buffer_offset: None,
    };
    let entry = wgpu::BlasBuildEntry {
        blas: &blas,
        geometry: wgpu::BlasGeometries::TriangleGeometries(vec![geometry]),
    };
    enc.build_acceleration_structures([&entry], [&tlas]);
    h.queue.submit([enc.finish()]);
    tlas
}

fn set_origin(m: &mut Manager, origin: [f32; 2]) {
    m.frame().set_by_name("frame.origin", &[origin[0], 0.0, origin[1], 0.0]).unwrap();
}

/// What the rays saw, dispatched as the tests dispatch every shader.
fn trace(h: &freqbuf::Headless, m: &mut Manager, shader: freqbuf::ShaderId, seen: &wgpu::Buffer) -> Vec<f32> {
    m.flush(&h.queue).unwrap();
    gpu::dispatch(h, m, &[(Draw::new(shader), "main")]);
    gpu::floats(h, seen)
}

#[test]
fn a_ray_query_sees_the_acceleration_structure_an_instance_set() {
    let Some(shared) = gpu::device() else { return };
    if !shared.adapter.features().contains(wgpu::Features::EXPERIMENTAL_RAY_QUERY) {
        return gpu::skip_unoffered(shared, "EXPERIMENTAL_RAY_QUERY");
    }
    let offered = shared.adapter.limits();
    let Some(h) = gpu::device_with(wgpu::Features::EXPERIMENTAL_RAY_QUERY, |l| {
        *l = l.clone().using_acceleration_structure_values(offered);
    }) else {
        return;
    };
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let shader = m.register_wgsl("rays.wgsl", RAYS).unwrap();
    assert_eq!(m.registry()[shader].required_features(), wgpu::Features::EXPERIMENTAL_RAY_QUERY);
    let seen = gpu::storage(&h, 4);
    m.frame().set_buffer("seen", &seen).unwrap();
    set_origin(&mut m, [0.0, 0.0]);

    // Drawn before it is set: typed, naming it; nothing is dispatched.
    m.flush(&h.queue).unwrap();
    let mut enc = h.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        let e = Binder::new().bind(&mut m, &mut pass, &Draw::new(shader)).unwrap_err();
        assert!(matches!(&e, Error::Unset { name, .. } if name == "tlas"), "{e}");
    }
    drop(enc);
    // Another class at its name is refused, and the instance keeps nothing.
    let e = m.frame().set_acceleration_structure("seen", &scene(&h, 5.0)).unwrap_err();
    assert_eq!(
        common::chain(&e),
        "cannot use parameter `seen`: wrong type: the member is storage, the value is acceleration_structure"
    );

    let near = scene(&h, 5.0);
    m.frame().set_acceleration_structure("tlas", &near).unwrap();
    assert_eq!(trace(&h, &mut m, shader, &seen), model(5.0, [0.0, 0.0]));
    // The uniform beside it changes: the rays start elsewhere, one misses.
    set_origin(&mut m, [0.4, 1.0]);
    assert_eq!(trace(&h, &mut m, shader, &seen), model(5.0, [0.4, 1.0]));
    // Another structure replaces it: the bind group is rebuilt with it.
    let far = scene(&h, 2.0);
    m.frame().set_acceleration_structure("tlas", &far).unwrap();
    set_origin(&mut m, [0.0, 0.0]);
    assert_eq!(trace(&h, &mut m, shader, &seen), model(2.0, [0.0, 0.0]));
    // A recreate drops what the application set; set again, it is read.
    m.recreate(&h.device).unwrap();
    m.frame().set_acceleration_structure("tlas", &near).unwrap();
    m.frame().set_buffer("seen", &seen).unwrap();
    assert_eq!(trace(&h, &mut m, shader, &seen), model(5.0, [0.0, 0.0]));
}

/// Without the feature, registration refuses the shader before creating
/// anything, naming the feature; the manager keeps working.
#[test]
fn without_ray_queries_an_acceleration_structure_is_refused_naming_the_feature() {
    let Some(h) = gpu::device() else { return };
    if h.device.features().contains(wgpu::Features::EXPERIMENTAL_RAY_QUERY) {
        return gpu::skip("the shared device has ray queries");
    }
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let e = m.register_wgsl("rays.wgsl", RAYS).unwrap_err();
    match &e {
        Error::Limit { kind, .. } => assert!(
            matches!(**kind, LimitErrorKind::Capability { needs: Some("EXPERIMENTAL_RAY_QUERY"), .. }),
            "{e}"
        ),
        e => panic!("expected a capability error, got {e:?}"),
    }
    assert!(common::chain(&e).contains("EXPERIMENTAL_RAY_QUERY"), "{}", common::chain(&e));
    let plain = "@group(0) @binding(0) var<storage, read_write> seen: array<f32, 4>;
        @compute @workgroup_size(1) fn main() { seen[0] = 1.0; }";
    m.register_wgsl("plain.wgsl", plain).unwrap();
}

/// A binding array of acceleration structures needs ray queries and wgpu's
/// acceleration-structure arrays, not texture arrays (it listed
/// `TEXTURE_BINDING_ARRAY`, the textures' arm), so a device without them is
/// told what it lacks; freqbuf binds no such array, and registration on a
/// device with them says so.
#[test]
fn an_acceleration_structure_array_needs_no_texture_arrays() {
    let src = "enable wgpu_ray_query;\nenable wgpu_binding_array;
        @group(0) @binding(0) var tlases: binding_array<acceleration_structure, 2>;
        @group(0) @binding(1) var<storage, read_write> seen: array<f32, 4>;
        @compute @workgroup_size(1) fn main() {
            var rq: ray_query;
            rayQueryInitialize(&rq, tlases[1], RayDesc(0u, 0xFFu, 0.001, 100.0, vec3<f32>(0.0), vec3<f32>(0.0, 0.0, 1.0)));
            rayQueryProceed(&rq);
            seen[0] = rayQueryGetCommittedIntersection(&rq).t;
        }";
    let shader =
        freqbuf::reflect::ShaderReflection::new("tlases.wgsl", freqbuf::reflect::ShaderSource::Wgsl(src))
            .unwrap_or_else(|e| panic!("{}", common::chain(&e)));
    assert_eq!(
        shader.required_features(),
        wgpu::Features::EXPERIMENTAL_RAY_QUERY | wgpu::Features::ACCELERATION_STRUCTURE_BINDING_ARRAY
    );
}
