#version 450
// Member names that Rust refuses raw (crate, self, Self, super) or reserves.
layout(local_size_x = 1) in;
layout(set = 2, binding = 6) uniform RustKeywords { float self; float crate; float Self; float super; float yield; float macro; float async; float type; } rust_keywords;
// std140 rounds an array's stride to 16 bytes, where WGSL's would be 4 or 8.
struct Tap { vec2 uv; float weight; };
layout(set = 2, binding = 9, std140) uniform Std140 { float weights[4]; vec2 offsets[3]; Tap taps[2]; float last; } std140_;
layout(set = 2, binding = 7) buffer Out { float o[]; } out_;
void main() { out_.o[0] = rust_keywords.self + rust_keywords.crate + rust_keywords.Self + rust_keywords.super + rust_keywords.yield + rust_keywords.macro + rust_keywords.async + rust_keywords.type + std140_.weights[0] + std140_.offsets[0].x + std140_.taps[0].weight + std140_.last; }
