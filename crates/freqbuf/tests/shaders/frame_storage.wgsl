@group(0) @binding(0) var<storage, read_write> frame: array<u32>;
@compute @workgroup_size(1) fn main() {
    frame[0] = 1u;
}
