//! Schedule JSON of both algorithms (`--schedule FILE.json`): any text is a schedule or an
//! error, never a panic, a hang or memory out of proportion to the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skeinhw_sched::shabal::ShabalSpec;
use skeinhw_sched::{AnySchedule, ScheduleSpec};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(schedule) = AnySchedule::from_json_str(text) {
        // What parsed must round-trip through its own JSON.
        let again = AnySchedule::from_json_str(&schedule.to_json_pretty())
            .expect("a schedule's own JSON reads back");
        assert_eq!(again.to_json_pretty(), schedule.to_json_pretty());
    }
    let _ = ScheduleSpec::from_json_str(text).map(ScheduleSpec::build);
    let _ = ShabalSpec::from_json_str(text).map(ShabalSpec::build);
});
