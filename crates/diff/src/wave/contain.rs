//! Containing the waveform readers' panics: a damaged file is reported, never a crash.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// True while a waveform reader runs under [`contain`]: its panics are reported as a
    /// malformed file, so the panic hook stays silent.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the panic hook silenced (`true`) or not, restoring the previous setting.
pub(super) fn quiet<T>(on: bool, f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            QUIET.set(self.0);
        }
    }
    let _restore = Restore(QUIET.replace(on));
    f()
}

/// Runs a waveform reader, turning its panics (wellen and fst-reader `panic!`, `todo!`,
/// `assert!` on input they did not expect) into a one-line message. A panic while the caller's
/// own callback runs (under `quiet(false, ..)`: the hook reports it) is ours and goes on
/// unwinding.
pub(super) fn contain<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.get() {
                READER_PANICKED.set(true);
            } else {
                previous(info);
            }
        }));
    });
    READER_PANICKED.set(false);
    match quiet(true, || panic::catch_unwind(AssertUnwindSafe(f))) {
        Ok(v) => Ok(v),
        Err(payload) if !READER_PANICKED.get() => panic::resume_unwind(payload),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            let mut what = one_line(&what);
            if what.len() > 200 {
                let mut end = 200;
                while !what.is_char_boundary(end) {
                    end -= 1;
                }
                what.truncate(end);
                what.push_str("...");
            }
            Err(format!("malformed (the reader stopped: {what})"))
        }
    }
}

thread_local! {
    /// Set by the panic hook when it stays silent: the panic came from a waveform reader.
    static READER_PANICKED: Cell<bool> = const { Cell::new(false) };
}

pub(super) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
