//! Yosys JSON netlists through the estimator: parse, count, and time the critical path (the
//! walks must survive combinational loops and very deep chains without a stack overflow).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use skeinhw_estimator::{Constants, Flow, Netlist};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(netlist) = Netlist::parse(text, "fuzz.json", None) {
        let _ = netlist.counts();
        static BUILT_IN: OnceLock<Constants> = OnceLock::new();
        let constants = BUILT_IN.get_or_init(Constants::built_in);
        let analysed = netlist.analyse(Flow::default(), constants);
        let _ = netlist.critical_path_into(&analysed, constants, &|_| true);
        let _ = netlist.critical_path_between(&analysed, constants, &|_| true, &|_| true);
    }
});
