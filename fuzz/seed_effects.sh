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
echo "$n seeds in fuzz/$out"
