"""``--guided``: the estimator picks the points worth a real run.

Every candidate is ranked by the model at once. A round runs the real flow on the unmeasured
candidates that could be on the Pareto front (least area, most throughput) within the model's
error band (a candidate whose optimistic corners, area and throughput off by the band in its
favour, no other point's pessimistic ones dominate), and on one probe of each schedule family
(``--schedule`` value) not measured yet. After each round the model is refit: a scale factor
per metric (the median of measured over model) for each schedule family, else core, else
every point; the band becomes the largest relative error left after the fit. Rounds stop when
no candidate is left in the band. The model's error (mean absolute relative error on the
measured points) is reported before and after each refit.

Why probes: the model can be off by a family's own factor (on 256-bit lean cores through
Yosys it overestimates long-iter-256's area by half and underestimates ath-1r's by a
quarter); without a measured point of a family, the refit cannot see that, and the search
missed 2 of the 5 front points of a 32-point study (24 runs). With probes it found all 5,
but needed all 32 runs there.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Callable

from .report import pareto

METRICS = ("area", "throughput_mbps")
PRIOR_BAND = 0.0  # the first round: the predicted front alone
MIN_BAND = 0.02
MAX_ROUNDS = 20

Job = dict[str, Any]
Record = dict[str, Any]


@dataclass
class Fit:
    """Scale factors per (core, metric); a core never measured uses every core's."""

    scale: dict[tuple[str, str], float] = field(default_factory=dict)
    band: float = PRIOR_BAND

    def predict(self, job: Job) -> dict[str, float]:
        return {m: job["model"][m] * self.factor(job, m) for m in METRICS}

    def factor(self, job: Job, m: str) -> float:
        for group in groups(job):
            if (group, m) in self.scale:
                return self.scale[(group, m)]
        return 1.0


def groups(job: Job) -> tuple[str, ...]:
    """A job's refit groups, most specific first: its schedule family (the preset or file,
    every ``--set`` value and core), its core, every point."""
    p = job["point"]
    return (f"schedule {p['schedule']}", f"core {p['core']}", "*")


def refit(jobs: list[Job], measured: dict[str, Record]) -> Fit:
    fit = Fit()
    ok = [(j, measured[j["key"]]) for j in jobs if ok_record(measured.get(j["key"]))]
    for m in METRICS:
        by_group: dict[str, list[float]] = {}
        for j, r in ok:
            if j["model"][m]:
                for g in groups(j):
                    by_group.setdefault(g, []).append(r["figures"][m] / j["model"][m])
        for g, ratios in by_group.items():
            fit.scale[(g, m)] = statistics.median(ratios)
    errors = [abs(r["figures"][m] / fit.predict(j)[m] - 1) for j, r in ok for m in METRICS
              if fit.predict(j)[m]]
    if errors:
        fit.band = max(MIN_BAND, max(errors))
    return fit


def model_error(jobs: list[Job], measured: dict[str, Record], fit: Fit) -> dict[str, float]:
    """Mean absolute relative error per metric of ``fit``'s predictions on measured points."""
    ok = [(j, measured[j["key"]]) for j in jobs if ok_record(measured.get(j["key"]))]
    out = {}
    for m in METRICS:
        errs = [abs(fit.predict(j)[m] / r["figures"][m] - 1) for j, r in ok if r["figures"][m]]
        out[m] = round(statistics.mean(errs), 4) if errs else None
    return out


def ok_record(r: Record | None) -> bool:
    return r is not None and r["status"] == "ok"


def in_band(jobs: list[Job], measured: dict[str, Record], fit: Fit) -> list[Job]:
    """Unmeasured candidates that could be on the front, given the band."""
    best, worst = {}, {}
    for j in jobs:
        r = measured.get(j["key"])
        if r is not None and r["status"] != "ok":
            continue  # a failed point is no candidate
        if r is not None:
            v = {m: r["figures"][m] for m in METRICS}
            best[j["key"]] = worst[j["key"]] = v
        else:
            p = fit.predict(j)
            best[j["key"]] = {"area": p["area"] * (1 - fit.band),
                              "throughput_mbps": p["throughput_mbps"] * (1 + fit.band)}
            worst[j["key"]] = {"area": p["area"] * (1 + fit.band),
                               "throughput_mbps": p["throughput_mbps"] * (1 - fit.band)}
    out = []
    for j in jobs:
        k = j["key"]
        if k in measured or k not in best:
            continue
        b = best[k]
        beaten = any(o != k and w["area"] <= b["area"] and w["throughput_mbps"] >= b[
            "throughput_mbps"] and (w["area"], w["throughput_mbps"]) != (b["area"], b[
                "throughput_mbps"]) for o, w in worst.items())
        if not beaten:
            out.append(j)
    return out


def probes(jobs: list[Job], measured: dict[str, Record], fit: Fit) -> list[Job]:
    """One point of each schedule family that has none measured (its best throughput per
    area as predicted): the refit then has a factor for every family, so a family the model
    gets wrong as a whole is not left out of the band."""
    best: dict[str, tuple[float, Job]] = {}
    done = {groups(j)[0] for j in jobs if j["key"] in measured}
    for j in jobs:
        family = groups(j)[0]
        if family in done:
            continue
        p = fit.predict(j)
        ratio = p["throughput_mbps"] / max(p["area"], 1e-9)
        if family not in best or ratio > best[family][0]:
            best[family] = (ratio, j)
    return [j for _, j in best.values()]


def search(jobs: list[Job], measured: dict[str, Record],
           run: Callable[[list[Job]], None]) -> dict[str, Any]:
    """Rounds of real runs (``run`` puts each result into ``measured``); returns the summary:
    rounds (runs, error before and after the refit), real runs against the grid, the front."""
    already = sum(1 for j in jobs if j["key"] in measured)
    fit = refit(jobs, measured) if already else Fit()
    rounds = []
    for _ in range(MAX_ROUNDS):
        batch = in_band(jobs, measured, fit)
        batch += [j for j in probes(jobs, measured, fit) if j not in batch]
        if not batch:
            break
        run(batch)
        before = model_error(jobs, measured, fit)
        raw = model_error(jobs, measured, Fit())
        fit = refit(jobs, measured)
        rounds.append({"runs": len(batch), "model_error_raw": raw, "error_before_refit": before,
                       "error_after_refit": model_error(jobs, measured, fit),
                       "band": round(fit.band, 4)})
    ran = sum(1 for j in jobs if j["key"] in measured) - already
    front = pareto([{"key": j["key"], **{m: measured[j["key"]]["figures"][m] for m in METRICS}}
                    for j in jobs if ok_record(measured.get(j["key"]))])
    return {"candidates": len(jobs), "real_runs": ran, "reused": already, "rounds": rounds,
            "front": [r["key"] for r in front],
            "scale": {f"{c}:{m}": round(v, 4) for (c, m), v in fit.scale.items()}}
