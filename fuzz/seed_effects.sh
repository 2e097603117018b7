#!/usr/bin/env bash
# Seeds the effect_file fuzzer's corpus from the repository's effects: each
# seed is an effect file, its WGSL source and the scene's common module,
# joined by NUL bytes as the target reads them.
set -euo pipefail
cd "$(dirname "$0")"
out=corpus/effect_file
mkdir -p "$out"
n=0
for toml in ../examples/effects/*.effect.toml ../examples/scene/*.effect.toml ../crates/freqbuf-effects/tests/effects/*.effect.toml; do
  dir=$(dirname "$toml")
  src=$(sed -n 's/^source *= *"\(.*\)"/\1/p' "$toml" | head -1)
  [[ -f $dir/$src ]] || continue
  { cat "$toml"; printf '\0'; cat "$dir/$src"; printf '\0'; cat ../examples/scene/common.wgsl; } > "$out/seed$n"
  n=$((n + 1))
done
# A WESL effect: the source is fuzz.wesl and the modules m0.wesl, m1.wesl
# (the target names the parts so), in a package at the effect's folder.
{
  printf 'source = "fuzz.wesl"\nflags = ["TINT", "SCALE"]\n[packages]\nshared = "."\n[defs]\nMATERIAL_BIND_GROUP = 2\n'
  printf '[[technique]]\nname = "t"\n  [[technique.pass]]\n  name = "p"\n  vertex = "vertex"\n  fragment = "fragment"\n\0'
  printf 'import shared::m0::material;\n@if(TINT)\nimport shared::m1::apply_tint;\n'
  printf '@vertex fn vertex(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> { return vec4(f32(i), 0.0, 0.0, 1.0); }\n'
  printf '@fragment fn fragment() -> @location(0) vec4<f32> {\n    var c = material.base;\n    @if(TINT)\n    c = apply_tint(c, material.tint);\n    @if(SCALE && !TINT)\n    c = c * material.scale;\n    return c;\n}\n\0'
  printf 'struct Material { base: vec4<f32>, tint: vec4<f32>, scale: f32 }\n@group(constants::MATERIAL_BIND_GROUP) @binding(0) var<uniform> material: Material;\n\0'
  printf 'fn apply_tint(c: vec4<f32>, t: vec4<f32>) -> vec4<f32> { return c * t; }\n'
} > "$out/seed$n"
n=$((n + 1))
echo "$n seeds in fuzz/$out"
