//! What the command line sets up before any command runs.

/// Makes writing to a closed pipe end the process quietly, as it does for other Unix
/// tools: `dp-repro list methods | head -1` stops when `head` has read its line. Rust
/// ignores SIGPIPE, so without this the next `println!` would panic with "failed printing
/// to stdout: Broken pipe" (exit 101); with the default action restored the process ends
/// by the signal, printing nothing. Does nothing on other platforms.
pub fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called at the start of `main`, before any thread exists; restoring a
    // signal's default action has no other effect on the process's state.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
