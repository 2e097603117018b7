// Reads what frame_storage.wgsl writes at the same point: the binding takes
// both accesses, one per pipeline layout.
@group(0) @binding(0) var<storage, read> frame: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main() {
    out[0] = frame[0];
}
