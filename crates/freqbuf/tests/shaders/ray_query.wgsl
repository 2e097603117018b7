enable wgpu_ray_query;

// A ray query against a scene's acceleration structure (Bevy's solari shape).
struct Frame { origin: vec4<f32> }
@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var tlas: acceleration_structure;
@group(0) @binding(2) var<storage, read_write> seen: array<f32>;

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var rq: ray_query;
    rayQueryInitialize(&rq, tlas, RayDesc(0u, 0xFFu, 0.001, 100.0, frame.origin.xyz, vec3<f32>(0.0, 0.0, 1.0)));
    rayQueryProceed(&rq);
    let hit = rayQueryGetCommittedIntersection(&rq);
    seen[id.x] = select(-1.0, hit.t, hit.kind != RAY_QUERY_INTERSECTION_NONE);
}
