//! Deep recursion in naga, on a stack sized for the input.
//!
//! naga's front ends and validator recurse over nesting in the source: on the
//! 8 MiB main-thread stack, 6,000 nested parentheses in GLSL or 20,000 chained
//! unary operators in WGSL overflow it and abort the process, which no error
//! handling can catch. freqbuf runs them on a worker thread whose stack grows
//! with the input: [`BASE`] plus [`PER_BYTE`] per byte of source (the deepest
//! nesting a byte can add costs about 1.4 KiB of naga's stack), capped at
//! [`MOST`]. Only the pages used are committed, so the usual shader costs a
//! thread spawn (tens of microseconds) and nothing more.

/// Stack for an empty input.
const BASE: usize = 16 << 20;
/// Stack per byte of source.
const PER_BYTE: usize = 2 << 10;
/// The largest stack asked for: enough for any nesting 512 KiB of source can express.
const MOST: usize = 1 << 30;

/// Runs `f` on a thread with a stack for an input of `len` bytes, and returns
/// its result, or the panic payload if it panicked. Where no thread can be
/// started (the web), runs it here.
///
/// For any parser or validator of untrusted source that recurses over its
/// nesting (naga's front ends, naga_oil's composer): a deep input then
/// costs memory rather than aborting the process.
pub fn on_deep_stack<T: Send>(len: usize, f: impl FnOnce() -> T + Send) -> std::thread::Result<T> {
    let size = BASE.saturating_add(len.saturating_mul(PER_BYTE)).min(MOST);
    // Kept outside the thread, so that `f` can still run here if no thread starts.
    let slot = std::sync::Mutex::new(Some(f));
    let take = || slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("freqbuf naga".into())
            .stack_size(size)
            .spawn_scoped(scope, || take().map(|f| f()));
        match spawned {
            Ok(handle) => handle.join().map(|r| r.expect("ran once")),
            Err(_) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| take().expect("not run")())),
        }
    })
}

/// A byte count that stands for a module's nesting: its expressions and statements.
pub(crate) fn module_size(module: &naga::Module) -> usize {
    let function = |f: &naga::Function| f.expressions.len() + f.body.len();
    let count = module.functions.iter().map(|(_, f)| function(f)).sum::<usize>()
        + module.entry_points.iter().map(|e| function(&e.function)).sum::<usize>()
        + module.global_expressions.len()
        + module.types.len();
    count.saturating_mul(4)
}
