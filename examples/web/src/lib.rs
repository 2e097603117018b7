//! freqbuf on the web: a small stress scene (1,024 draws, four material types
//! with unrelated layouts, object data in an array slot) that a wasm-bindgen
//! page draws through WebGPU or WebGL2, and that the native twin
//! (`cargo run --release -p freqbuf-web`) draws on a local adapter. Both print
//! the checksum of one frame's picture; `web/test.sh` compares them. One
//! material type is a WESL effect, compiled by the effects layer on the page.
//!
//! On WebGL2 there are no storage buffers, so freqbuf gives the object array
//! slot batched uniform arrays; the native twin asks for WebGL2's limits to
//! draw the same way.

mod passes;
mod readback;
mod scene;
#[cfg(target_arch = "wasm32")]
mod web;

pub use readback::{Readback, checksum};
pub use scene::{CHECK_FRAME, Demo, DemoError, FORMAT, FrameInfo, OBJECTS, SIZE};
#[cfg(target_arch = "wasm32")]
pub use web::{Page, start};
