//! The LUT overhead factor of the generated style, fitted on the presets' netlists.

use super::inventory;

/// The `lut_overhead_generated` that fits the netlist summaries of every preset: the
/// geometric mean of netlist LUTs over counted LUTs (least squares on the log error), rounded
/// to 4 significant digits.
///
/// Why every preset and not a subset: the factor stands for what the element counts cannot
/// see, chiefly the logic ABC's depth-oriented mapping duplicates, and that varies from design
/// to design by more than the counts explain. Slot 0's round reading a registered copy of the
/// arriving key (`scripts/register-experiment.sh PRESET`) removes 2,111 of `long-iter-512`'s
/// 10,987 LUTs, 156 of `long-iter-256`'s 5,877 and 90 of `long-iter-1024`'s 23,434; the five
/// 256-bit presets the model counts alike have 5,599 to 5,877. Fitted on six presets, one of
/// each kind, the factor was 1.064, pulled up by `long-iter-512` and `ath-8r-3sp`, whose
/// netlists are 13% and 11% above their counted LUTs, the most of the six. One factor is
/// estimated best from every design; each preset's out-of-sample error is the leave-one-out
/// one, with [`left_out_luts`].
pub fn fit_overhead(c: &crate::Constants) -> Result<f64, crate::EstimatorError> {
    let fits = preset_fits(c)?;
    let mean = fits.iter().map(|f| f.log_ratio).sum::<f64>() / fits.len().max(1) as f64;
    Ok(crate::calibrate::round_sig(mean.exp(), 4))
}

/// Per preset, the LUTs the `generated` style gives it with the overhead fitted on the other
/// presets' netlists only (leave-one-out, not rounded): an estimate for a netlist the fit
/// never saw.
pub fn left_out_luts(c: &crate::Constants) -> Result<Vec<(String, u32)>, crate::EstimatorError> {
    let fits = preset_fits(c)?;
    let total: f64 = fits.iter().map(|f| f.log_ratio).sum();
    let others = (fits.len() as f64 - 1.0).max(1.0);
    Ok(fits
        .into_iter()
        .map(|f| {
            let overhead = ((total - f.log_ratio) / others).exp();
            let luts = (f64::from(f.counted) * overhead).round() as u32;
            (f.preset, luts)
        })
        .collect())
}

/// One preset's counted LUTs and the log of its netlist's LUTs over them.
struct PresetFit {
    preset: String,
    counted: u32,
    log_ratio: f64,
}

/// [`PresetFit`] of every preset (each needs its netlist summary).
fn preset_fits(c: &crate::Constants) -> Result<Vec<PresetFit>, crate::EstimatorError> {
    skeinhw_sched::presets()
        .into_iter()
        .map(|schedule| {
            let summary = crate::netlist::summary::NetlistSummary::load(schedule.name())?;
            let counted = crate::device::map(&inventory(&schedule), c, crate::style::Flow::Ise13)
                .counted_luts;
            Ok(PresetFit {
                preset: schedule.name().to_owned(),
                counted,
                log_ratio: (f64::from(summary.luts) / f64::from(counted.max(1))).ln(),
            })
        })
        .collect()
}
