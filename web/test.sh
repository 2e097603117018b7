#!/usr/bin/env bash
# Builds the web page (examples/web), serves it on localhost and runs it in
# headless Chromium, once with WebGPU and once with WebGL2 (no storage
# buffers there, so freqbuf uses batched uniform arrays). Each run's checksum
# of the picture must equal the native twin's, drawn on a local adapter with
# the same limits. Exits non-zero on a mismatch, an error on the page, or a
# run that reports nothing.
#
# Needs: the wasm32-unknown-unknown target, Debian's `chromium`, python3, and
# a Vulkan driver for the native twin (mesa-vulkan-drivers). The JS glue comes
# from web/bindgen, wasm-bindgen's library at the page's version.
set -euo pipefail
cd "$(dirname "$0")/.."

# Cargo's target directory, wherever CARGO_TARGET_DIR or a config puts it.
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
out=$target/web
timeout_s=${WEB_TEST_TIMEOUT:-120}
command -v chromium >/dev/null || { echo "error: needs chromium: apt-get install chromium" >&2; exit 1; }

# The page builds in the `web` profile (Cargo.toml): unoptimized and without
# debug info. The page draws 33 small frames, so its speed is not what is
# checked here, and its build took 94 s against 315 s in release on CI's
# 2 cores (and its module is 48 MB against 430 with debug info).
# WEB_FEATURES: more features for the page's build (CI builds the web's
# every feature so, with warnings denied).
cargo build --profile web --target wasm32-unknown-unknown -p freqbuf-web --lib ${WEB_FEATURES:+--features "$WEB_FEATURES"}
rm -rf "$out" && mkdir -p "$out"
# Unoptimized too: 45 s to build and 32 s to bind the page here, against
# 85 s and 9 at opt-level 1 and 95 s and 2 in release.
cargo run -p freqbuf-web-bindgen -- "$target/wasm32-unknown-unknown/web/freqbuf_web.wasm" "$out/pkg"
cp examples/web/index.html "$out/"

# Built with the default members' features, as `cargo test --release
# --all-features` builds wgpu: `-p freqbuf-web` alone would build wgpu a second
# time, and `--workspace` would add the bindings tool's features to shared crates.
cargo build --release --all-features --bin freqbuf-web
native=$("$target/release/freqbuf-web")
echo "$native"
expected() { awk -v m="$1" '$1 == "native" && $2 == m { print $3 }' <<<"$native"; }

work=$(mktemp -d)
pids=()
# Chromium's helpers may still be writing the profile for a moment after the kill.
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5
  rm -rf "$work" 2>/dev/null || true
}
trap cleanup EXIT

# run BACKEND FLAGS...: waits for the page's result JSON in $work/BACKEND.json, or fails.
run() {
  local backend=$1; shift
  local result=$work/$backend.json port_file=$work/$backend.port log=$work/$backend.log
  python3 web/serve.py --root "$out" --result "$result" --port-file "$port_file" >/dev/null 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do [[ -s $port_file ]] && break; sleep 0.1; done
  local url="http://127.0.0.1:$(cat "$port_file")/index.html?backend=$backend&report"
  chromium --headless=new --no-sandbox --no-first-run --user-data-dir="$work/profile-$backend" \
    --enable-logging=stderr --v=0 "$@" "$url" >"$log" 2>&1 &
  local browser=$!
  pids+=("$browser")
  local waited=0
  until [[ -s $result ]]; do
    if ((waited >= timeout_s * 10)); then
      echo "error: $backend: no result from the page after ${timeout_s} s; Chromium's log:" >&2
      grep -v dbus "$log" | tail -20 >&2
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  kill "$browser" 2>/dev/null || true
}

status=0
lines=()
for backend in webgpu webgl2; do
  case $backend in
    # WebGPU through ANGLE's GL path loses the device once a canvas is
    # configured (headless Chromium 156); ANGLE on SwiftShader Vulkan keeps it.
    webgpu) flags=(--enable-unsafe-webgpu --enable-features=Vulkan --use-angle=vulkan --use-vulkan=swiftshader --enable-unsafe-swiftshader)
            mode=storage-buffers objects="objects in a storage buffer" ;;
    webgl2) flags=(--use-angle=swiftshader --enable-unsafe-swiftshader)
            mode=uniform-arrays objects="objects in batched uniform arrays" ;;
  esac
  want=$(expected "$mode")
  if ! run "$backend" "${flags[@]}"; then
    lines+=("$backend: no result (native $mode $want)")
    status=1
    continue
  fi
  # Checksum, description, error and statistics, one a line.
  mapfile -t r < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for k in ("checksum", "description", "error", "stats"):
    print(" ".join(str(r.get(k, "-")).split()))' "$work/$backend.json")
  got=${r[0]} description=${r[1]} error=${r[2]}
  [[ ${r[3]} != - ]] && echo "$backend: ${r[3]}"
  if [[ $got == "$want" && $description != *"$objects"* ]]; then
    lines+=("$backend: $got, but not with $objects ($description)")
    status=1
  elif [[ $got == "$want" ]]; then
    lines+=("$backend: $got matches native $mode $want ($description)")
  else
    if [[ $error != - ]]; then
      echo "error: $backend page: $error; the page's console:" >&2
      grep -a -A12 "CONSOLE" "$work/$backend.log" | grep -v dbus | head -40 >&2 || true
    fi
    lines+=("$backend: $got DIFFERS from native $mode $want")
    status=1
  fi
done
printf '%s\n' "${lines[@]}"
exit $status
