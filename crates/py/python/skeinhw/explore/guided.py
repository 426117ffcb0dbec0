"""``--guided``: the estimator picks the points worth a real run.

Every candidate is ranked by the model at once. The first round runs the model's predicted
Pareto front (least area, most throughput) and one probe of each schedule family (the
``--schedule`` value; its best predicted throughput per area): without a measured point of a
family the refit cannot see the family's own error. After each round the model is refit
(:mod:`.refit`: per family, on the varied fields) and each candidate gets the band of its own
family, ``Z`` times the family's cross-validated error. A candidate can still be on the front
when its optimistic corner (area and throughput off by its band in its favour) is dominated
by no measured point; the next round runs the ones of those with the best chance of being on
the front (its error taken as normal in log space), at most a share of the grid a round.
The search stops when no unmeasured candidate can still be on the front. The model's error
(mean absolute relative error on the measured points) is reported before and after each refit.
"""

from __future__ import annotations

import json
import math
import statistics
from statistics import NormalDist
from typing import Any, Callable

from .refit import METRICS, Features, Fit, family, ok_record, refit
from .report import pareto

Z = 2.0  # a family's band: Z times its cross-validated error (about 95% of its points)
MIN_BAND = 0.02
ROUND_SHARE = 0.125  # a round after the first runs at most this share of the grid
MAX_ROUNDS = 50
# the chance of being on the front: the error on a grid of normal quantiles per metric
QUANTILES = [NormalDist().inv_cdf((i + 0.5) / 15) for i in range(15)]

Job = dict[str, Any]
Record = dict[str, Any]


def model_error(jobs: list[Job], measured: dict[str, Record], fit: Fit) -> dict[str, float]:
    """Mean absolute relative error per metric of ``fit``'s predictions on measured points."""
    ok = [(j, measured[j["key"]]) for j in jobs if ok_record(measured.get(j["key"]))]
    out = {}
    for m in METRICS:
        errs = [abs(fit.predict(j)[m] / r["figures"][m] - 1) for j, r in ok if r["figures"][m]]
        out[m] = round(statistics.mean(errs), 4) if errs else None
    return out


def band(fit: Fit, job: Job, m: str) -> float:
    """The relative band of ``job``'s ``m``: Z log errors of its family, at least MIN_BAND."""
    return max(MIN_BAND, math.exp(Z * fit.error(job, m)) - 1)


def measured_front(jobs: list[Job], measured: dict[str, Record]) -> list[tuple[float, float]]:
    rows = [{"area": measured[j["key"]]["figures"]["area"],
             "throughput_mbps": measured[j["key"]]["figures"]["throughput_mbps"]}
            for j in jobs if ok_record(measured.get(j["key"]))]
    return [(r["area"], r["throughput_mbps"]) for r in pareto(rows)]


def dominated(area: float, speed: float, front: list[tuple[float, float]]) -> bool:
    return any(a <= area and s >= speed and (a, s) != (area, speed) for a, s in front)


def open_candidates(jobs: list[Job], measured: dict[str, Record], fit: Fit) -> list[Job]:
    """Unmeasured candidates whose optimistic corner no measured point dominates."""
    front = measured_front(jobs, measured)
    out = []
    for j in jobs:
        if j["key"] in measured:
            continue
        p = fit.predict(j)
        best_area = p["area"] / (1 + band(fit, j, "area"))
        best_speed = p["throughput_mbps"] * (1 + band(fit, j, "throughput_mbps"))
        if not dominated(best_area, best_speed, front):
            out.append(j)
    return out


def chance_on_front(job: Job, fit: Fit, front: list[tuple[float, float]]) -> float:
    """The chance that ``job`` is on the measured front, its log error normal per metric."""
    p = fit.predict(job)
    sa, st = fit.error(job, "area"), fit.error(job, "throughput_mbps")
    hits = 0
    for qa in QUANTILES:
        for qt in QUANTILES:
            area = p["area"] * math.exp(sa * qa)
            speed = p["throughput_mbps"] * math.exp(st * qt)
            hits += not dominated(area, speed, front)
    return hits / len(QUANTILES) ** 2


def predicted_front(jobs: list[Job], fit: Fit) -> list[Job]:
    rows = [{"job": j, **fit.predict(j)} for j in jobs]
    return [r["job"] for r in pareto(rows)]


def probes(jobs: list[Job], measured: dict[str, Record], fit: Fit) -> list[Job]:
    """One point of each family that has none measured (its best throughput per area as
    predicted): the refit then has an intercept for every family."""
    best: dict[str, tuple[float, Job]] = {}
    done = {family(j) for j in jobs if j["key"] in measured}
    for j in jobs:
        f = family(j)
        if f in done:
            continue
        p = fit.predict(j)
        ratio = p["throughput_mbps"] / max(p["area"], 1e-9)
        if f not in best or ratio > best[f][0]:
            best[f] = (ratio, j)
    return [j for _, j in best.values()]


def field_probes(jobs: list[Job], chosen: list[Job], fit: Fit) -> list[Job]:
    """One point for each value of a varied field that no chosen point has (its best
    throughput per area as predicted): without it the refit cannot see that field's effect
    (the model's predicted front can all share one value)."""
    feats = Features(jobs)
    seen = [set() for _ in feats.columns]
    for j in chosen:
        for i, v in enumerate(feats.of(j)):
            seen[i].add(v)
    out: list[Job] = []
    for i in range(len(feats.columns)):
        best = None
        for j in jobs:
            v = feats.of(j)[i]
            if v in seen[i] or j in chosen or j in out:
                continue
            p = fit.predict(j)
            ratio = p["throughput_mbps"] / max(p["area"], 1e-9)
            if best is None or ratio > best[0]:
                best = (ratio, j)
        if best is not None:
            out.append(best[1])
            for k, v in enumerate(feats.of(best[1])):
                seen[k].add(v)
    return out


def next_round(jobs: list[Job], measured: dict[str, Record], fit: Fit, first: bool) -> list[Job]:
    """The candidates of the next round (none: the search is over)."""
    if first:
        batch = [j for j in predicted_front(jobs, fit) if j["key"] not in measured]
        batch += [j for j in probes(jobs, measured, fit) if j not in batch]
        return batch + field_probes(jobs, batch, fit)
    front = measured_front(jobs, measured)
    cands = open_candidates(jobs, measured, fit)
    cands.sort(key=lambda j: -chance_on_front(j, fit, front))
    batch = cands[:max(1, math.ceil(ROUND_SHARE * len(jobs)))]
    return batch + [j for j in probes(jobs, measured, fit) if j not in batch]


def design(job: Job) -> str:
    """What a point builds and runs: its schedule less its name and source (which reach the
    Verilog only as comments), core, flow, arguments and seed."""
    if "schedule_json" not in job:
        return job["key"]
    sched = {k: v for k, v in json.loads(job["schedule_json"]).items()
             if k not in ("name", "source")}
    p = job["point"]
    return json.dumps([sched, p["core"], p["flow"], p["flow_args"], p["seed"]], sort_keys=True)


def distinct(jobs: list[Job], measured: dict[str, Record]) -> list[Job]:
    """One point per design: a measured one where there is one, else the first in the grid
    (the one a grid's front keeps among equal points). Presets that differ only in the
    fields a study sets (ath-1r, ath-4r and ath-8r with ``rounds_per_cycle``) are one design:
    measuring it once measures them all."""
    first: dict[str, Job] = {}
    for j in jobs:
        d = design(j)
        if d not in first or (j["key"] in measured and first[d]["key"] not in measured):
            first[d] = j
    return [j for j in jobs if first[design(j)] is j]


def search(jobs: list[Job], measured: dict[str, Record],
           run: Callable[[list[Job]], None]) -> dict[str, Any]:
    """Rounds of real runs (``run`` puts each result into ``measured``); returns the summary:
    rounds (runs, error before and after the refit, bands), real runs against the grid, the
    front. Points of the same design as another (:func:`distinct`) are not run again."""
    grid = len(jobs)
    jobs = distinct(jobs, measured)
    already = sum(1 for j in jobs if j["key"] in measured)
    fit = refit(jobs, measured) if already else Fit()
    rounds = []
    for i in range(MAX_ROUNDS):
        batch = next_round(jobs, measured, fit, first=i == 0 and not already)
        if not batch:
            break
        run(batch)
        before = model_error(jobs, measured, fit)
        raw = model_error(jobs, measured, Fit())
        fit = refit(jobs, measured)
        bands = {family(j): {m: round(band(fit, j, m), 4) for m in METRICS} for j in jobs}
        rounds.append({"runs": len(batch), "model_error_raw": raw, "error_before_refit": before,
                       "error_after_refit": model_error(jobs, measured, fit),
                       "band": max(b for v in bands.values() for b in v.values()),
                       "bands": bands,
                       "open": len(open_candidates(jobs, measured, fit))})
    ran = sum(1 for j in jobs if j["key"] in measured) - already
    front = pareto([{"key": j["key"], **{m: measured[j["key"]]["figures"][m] for m in METRICS}}
                    for j in jobs if ok_record(measured.get(j["key"]))])
    return {"candidates": grid, "designs": len(jobs), "real_runs": ran, "reused": already, "rounds": rounds,
            "front": [r["key"] for r in front],
            "scale": {f"{f}:{m}": round(math.exp(a), 4) for (f, m), (a, _) in fit.coef.items()}}
