#version 450
// Member names that Rust refuses raw (crate, self, Self, super) or reserves.
layout(local_size_x = 1) in;
layout(set = 2, binding = 6) uniform RustKeywords { float self; float crate; float Self; float super; float yield; float macro; float async; float type; } rust_keywords;
layout(set = 2, binding = 7) buffer Out { float o[]; } out_;
void main() { out_.o[0] = rust_keywords.self + rust_keywords.crate + rust_keywords.Self + rust_keywords.super + rust_keywords.yield + rust_keywords.macro + rust_keywords.async + rust_keywords.type; }
