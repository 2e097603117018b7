#version 450
// A fragment shader whose extension does not say its stage: needs --stage.
layout(set = 2, binding = 0, std140) uniform Mat { vec4 base_color; float roughness; } material;
layout(location = 0) out vec4 color;
void main() { color = material.base_color * material.roughness; }
