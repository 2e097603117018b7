//! `freqbuf-web-bindgen IN.wasm OUT_DIR`: what `wasm-bindgen --target web
//! --no-typescript --out-dir OUT_DIR IN.wasm` does, through the CLI's own
//! library. Built in seconds as a workspace member where the CLI took two
//! minutes to install, and at the lock file's version by construction.

use anyhow::{Context, bail};

fn main() -> anyhow::Result<()> {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let [input, out] = args.as_slice() else {
        bail!("usage: freqbuf-web-bindgen IN.wasm OUT_DIR");
    };
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(input)
        .web(true)?
        .typescript(false)
        // The CLI's default, unlike the library's: `init()` with no argument
        // fetches `<name>_bg.wasm` beside the script, as index.html calls it.
        .omit_default_module_path(false)
        .generate(out)
        .with_context(|| format!("binding {}", input.display()))
}
