//! Shabal's best unfolding factor, in the paper's Table I and in the model.

use super::*;

/// Which unfolding factor is best by throughput and by throughput per slice, in the paper's
/// Table I and in the model (each at its own clock).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShabalConclusion {
    /// f of the best throughput in Table I (the paper: 4).
    pub paper_best_throughput: u32,
    /// f of the best throughput per slice in Table I (the paper: 3).
    pub paper_best_per_slice: u32,
    /// f of the best throughput in the model.
    pub model_best_throughput: u32,
    /// f of the best throughput per slice in the model.
    pub model_best_per_slice: u32,
    /// (f, paper Mbps, model Mbps, paper Mbps/slice, model Mbps/slice) per row.
    pub rows: Vec<(u32, f64, f64, f64, f64)>,
    /// Why the model agrees or not.
    pub explanation: String,
}

/// The Shabal paper's conclusion (best throughput at f = 4, best throughput per slice at
/// f = 3) against the model's, with `constants`.
pub fn shabal_conclusion(constants: &Constants) -> ShabalConclusion {
    let mut rows = Vec::new();
    for row in seed_rows() {
        if !row.source.starts_with("shabal") {
            continue;
        }
        let (Ok(s), Some(freq), Some(slices)) = (
            shabal_sched::preset(&row.design),
            row.freq(),
            num(&row.slices),
        ) else {
            continue;
        };
        let e = shabal::estimate(&s, Flow::Ise13, constants, None);
        let tp = s.throughput_mbps(freq);
        rows.push((
            s.unfolding(),
            tp,
            e.throughput_mbps,
            tp / slices,
            e.mbps_per_slice,
        ));
    }
    let best = |key: fn(&(u32, f64, f64, f64, f64)) -> f64| {
        rows.iter()
            .max_by(|a, b| key(a).total_cmp(&key(b)))
            .map_or(0, |r| r.0)
    };
    let paper_best_throughput = best(|r| r.1);
    let model_best_throughput = best(|r| r.2);
    let paper_best_per_slice = best(|r| r.3);
    let model_best_per_slice = best(|r| r.4);
    let mut explanation = Vec::new();
    if model_best_per_slice == paper_best_per_slice {
        explanation.push(format!(
            "best throughput per slice at f = {model_best_per_slice} as in the paper"
        ));
    } else {
        let (paper_slope, model_slope) = shabal_slices_per_iteration(constants);
        explanation.push(format!(
            "best throughput per slice at f = {model_best_per_slice}, the paper's at f = \
             {paper_best_per_slice}: the model adds {model_slope:.0} slices per iteration of P \
             (128 LUTs: the V and U adders, the new A and new B words of a 32-bit word), Table \
             I {paper_slope:.0} on average from f = 1 to 8 (the paper gives no breakdown), so \
             the model's area grows more slowly and its throughput per slice peaks later"
        ));
    }
    if model_best_throughput == paper_best_throughput {
        explanation.push(format!(
            "best throughput at f = {model_best_throughput} as in the paper"
        ));
    } else {
        explanation.push(format!(
            "best throughput at f = {model_best_throughput}, not the paper's f = \
             {paper_best_throughput}: the model's period grows by the same delay per \
             iteration of P (V adder, U adder, a LUT and three nets) plus a routing delay \
             that grows only as (LUT-FF pairs)^{:.2}, so f / period keeps rising; Table I's \
             delay per added iteration ((period(f) - period(1)) / (f - 1)) grows from {:.2} ns \
             at f = 2 to {:.2} ns at f = 8, which the paper \
             puts down to \"operations added and more complex place-route step\" (section \
             V.A) and the model does not itemise. Table I's throughputs from f = 3 to 8 lie \
             within 2.6% of each other, so the peak is a small effect",
            constants.net_size_exponent,
            paper_period_per_iteration(2),
            paper_period_per_iteration(8),
        ));
    }
    ShabalConclusion {
        paper_best_throughput,
        paper_best_per_slice,
        model_best_throughput,
        model_best_per_slice,
        rows,
        explanation: explanation.join("; "),
    }
}

/// Table I's value of `metric` at unfolding factor `f`.
fn shabal_paper(f: u32, metric: fn(&SeedRow) -> Option<f64>) -> f64 {
    seed_rows()
        .iter()
        .find(|r| r.design == format!("shabal-unfold-{f}"))
        .and_then(metric)
        .unwrap_or(0.0)
}

/// Table I's delay per added iteration of P at unfolding factor `f` > 1, ns:
/// (period(f) - period(1)) / (f - 1).
fn paper_period_per_iteration(f: u32) -> f64 {
    (shabal_paper(f, SeedRow::period) - shabal_paper(1, SeedRow::period)) / f64::from(f - 1)
}

/// Slices per added iteration of P from f = 1 to f = 8: (Table I, model).
fn shabal_slices_per_iteration(c: &Constants) -> (f64, f64) {
    let slices = |r: &SeedRow| num(&r.slices);
    let paper = (shabal_paper(8, slices) - shabal_paper(1, slices)) / 7.0;
    let model = |f: u32| {
        shabal_sched::preset(&format!("shabal-unfold-{f}")).map_or(0.0, |s| {
            f64::from(shabal::estimate(&s, Flow::Ise13, c, None).slices)
        })
    };
    (paper, (model(8) - model(1)) / 7.0)
}
