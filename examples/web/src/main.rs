//! The native twin of the web page: draws the page's scene on a local
//! adapter, once with WebGPU's default limits (objects in a storage buffer)
//! and once with WebGL2's (batched uniform arrays), and prints each checksum
//! of frame `CHECK_FRAME`'s picture. `web/test.sh` compares the page's with
//! these. Both must be equal: the picture does not depend on how objects are addressed.
//!
//! `cargo run --release -p freqbuf-web [-- --png FILE]` (`--png` saves the picture).

#[cfg(not(target_arch = "wasm32"))]
mod twin;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    twin::main()
}

/// On wasm32 the page's entry point is the library's `start`.
#[cfg(target_arch = "wasm32")]
fn main() {}
