#version 450
// The same frame block as frame.wgsl, in Vulkan GLSL (std140).
layout(set = 0, binding = 0, std140) uniform Frame {
    float time;
    float delta;
    vec2 resolution;
    mat4 view_proj;
};
layout(set = 1, binding = 2, std140) uniform Padded {
    vec3 dir;
    float intensity;
    float weights[3];
    mat3 basis;
    vec4 tail;
} padded;
void main() {
    gl_Position = view_proj * vec4(time, delta, resolution) + vec4(padded.dir, padded.intensity + padded.weights[1]) + vec4(padded.basis[0], 1.0) + padded.tail;
}
