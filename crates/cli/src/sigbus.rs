//! A clean end when a file that `hash --tree` has mapped into memory shrinks under it.
//!
//! Reading a mapped page past a file's new end raises `SIGBUS`, which would kill the process
//! with no word about which file. While a [`Guard`] lives, the handler writes one line naming
//! the file and exits with status 1, as for any other read error (the files after it are not
//! hashed). Outside a guard, the signal goes to the handler there was before.

use std::ffi::c_int;
use std::ptr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// The line to write on `SIGBUS`, or null outside a [`Guard`].
static MESSAGE: AtomicPtr<Vec<u8>> = AtomicPtr::new(ptr::null_mut());

/// Set by the first thread to fault under a guard: it writes the line and exits; another
/// thread faulting at the same time (the hashing threads read neighbouring windows of the same
/// shrunk file) waits for that exit instead of writing the line again.
static CLAIMED: AtomicBool = AtomicBool::new(false);

/// The `SIGBUS` action before ours, restored for a signal that is not ours.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

/// While it lives, a `SIGBUS` ends the process with one line naming `file` on standard error.
pub struct Guard(());

impl Guard {
    /// Guards the mapped reading of `file` (as it is to be shown). Calls must not overlap.
    pub fn new(file: &str) -> Guard {
        PREVIOUS.get_or_init(install);
        let line = format!(
            "skeinhw: {file}: the file shrank while it was being hashed (it is mapped into \
             memory; --no-mmap reads it instead)\n"
        );
        let old = MESSAGE.swap(Box::into_raw(Box::new(line.into_bytes())), Ordering::SeqCst);
        debug_assert!(old.is_null(), "overlapping sigbus::Guard");
        Guard(())
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let line = MESSAGE.swap(ptr::null_mut(), Ordering::SeqCst);
        if !line.is_null() {
            // SAFETY: made by Box::into_raw in `Guard::new` and no longer reachable by the
            // handler.
            drop(unsafe { Box::from_raw(line) });
        }
    }
}

/// Installs [`on_sigbus`]; returns the action it replaces.
fn install() -> libc::sigaction {
    // SAFETY: plain sigaction(2) calls on zeroed (valid) structures; the handler only calls
    // async-signal-safe functions.
    unsafe {
        let mut ours: libc::sigaction = std::mem::zeroed();
        ours.sa_sigaction = on_sigbus as extern "C" fn(c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut ours.sa_mask);
        let mut previous: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGBUS, &ours, &mut previous);
        previous
    }
}

/// Writes the guard's line and exits 1 (once: a second faulting thread waits for the exit);
/// without a guard, puts back the previous action (the
/// default one while [`install`] has not returned), so that the faulting access, run again
/// on return, gets it.
extern "C" fn on_sigbus(_signal: c_int) {
    let line = MESSAGE.load(Ordering::SeqCst);
    // SAFETY: write(2), _exit(2) and sigaction(2) are async-signal-safe; `line` stays valid
    // while it is published (the guard outlives the hashing that can fault).
    unsafe {
        if !line.is_null() {
            if CLAIMED.swap(true, Ordering::SeqCst) {
                loop {
                    libc::pause();
                }
            }
            let line = &*line;
            libc::write(2, line.as_ptr().cast(), line.len());
            libc::_exit(1);
        }
        match PREVIOUS.get() {
            Some(previous) => libc::sigaction(libc::SIGBUS, previous, ptr::null_mut()),
            None => {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(libc::SIGBUS, &default, ptr::null_mut())
            }
        };
    }
}
