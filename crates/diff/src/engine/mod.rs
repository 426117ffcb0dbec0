//! The event engine both algorithms share, written once: the per-stream queue of expected
//! events ([`queue`]), the matcher that reads the mapped register views on each edge and finds
//! the event a new value is ([`matcher`]), and the waveform driver and report pieces
//! ([`run`]). Skein (`event`) and Shabal (`shabal_event`) are its two
//! instantiations: each brings its events (computed with the library), what a value that is no
//! event means, and its texts.

pub(crate) mod matcher;
pub(crate) mod queue;
pub(crate) mod run;
