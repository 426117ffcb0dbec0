"""The model refit on measured points, and how far to trust it: per schedule family.

The estimator's error is not one factor: on 256-bit lean cores through Yosys it overestimates
long-iter-256's area by 2x at one round a cycle and by 1.1x at eight, and ath-1r's the other
way round; subkey 0 in a cycle of its own changes it too. So per metric (area, throughput) the
log of measured over model is fitted, for each schedule family (the ``--schedule`` value), as
an intercept plus slopes on the point's varied fields (``--set`` values: numbers as log2,
booleans as 0/1; the core). A family's slopes are pulled towards the slopes pooled over every
family (ridge), so one measured point gives its family an intercept and the pooled slopes.

How far to trust a family's fit is its own cross-validated error: each measured point
predicted from the family's other points (leave one out). A family with fewer than two
points has no such error yet and takes the largest one of the families that have it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

METRICS = ("area", "throughput_mbps")
RIDGE = 1.0  # pull of a family's slopes towards the pooled ones (features span ~0..3)
POOLED_RIDGE = 0.1
UNKNOWN_SIGMA = 0.5  # log error of a family before any has two points (about 65%)

Job = dict[str, Any]
Record = dict[str, Any]
Vec = list[float]


def family(job: Job) -> str:
    """A job's schedule family: the preset or file it was given as."""
    return f"schedule {job['point']['schedule']}"


def ok_record(r: Record | None) -> bool:
    return r is not None and r["status"] == "ok"


class Features:
    """The varied fields of a study as numbers (a field with one value is no feature)."""

    def __init__(self, jobs: list[Job]):
        values: dict[str, set[str]] = {}
        for j in jobs:
            for name, v in fields_of(j).items():
                values.setdefault(name, set()).add(v)
        self.columns: list[tuple[str, str | None]] = []
        for name in sorted(values):
            vs = sorted(values[name])
            if len(vs) < 2:
                continue
            if all(number(v) is not None for v in vs):
                self.columns.append((name, None))
            else:  # categories: one column per value but the first
                self.columns += [(name, v) for v in vs[1:]]

    def of(self, job: Job) -> Vec:
        f = fields_of(job)
        out = []
        for name, cat in self.columns:
            v = f.get(name)
            out.append(float(v == cat) if cat is not None else (number(v) or 0.0))
        return out


def fields_of(job: Job) -> dict[str, str]:
    p = job["point"]
    out = dict(s.split("=", 1) for s in p.get("set", []) if "=" in s)
    out["core"] = p.get("core", "lean")
    return out


def number(v: str | None) -> float | None:
    """``true``/``false`` as 1/0, a positive number as its log2, else None."""
    if v in ("true", "false"):
        return float(v == "true")
    try:
        x = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return math.log2(x) if x > 0 else x


@dataclass
class Fit:
    """Per (family, metric): intercept and slopes of log(measured / model); ``sigma``: the
    family's cross-validated log error. An empty fit is the raw model."""

    features: Features | None = None
    coef: dict[tuple[str, str], tuple[float, Vec]] = field(default_factory=dict)
    sigma: dict[tuple[str, str], float] = field(default_factory=dict)

    def log_factor(self, job: Job, m: str) -> float:
        c = self.coef.get((family(job), m)) or self.coef.get(("*", m))
        if c is None or self.features is None:
            return 0.0
        a, b = c
        return a + dot(b, self.features.of(job))

    def predict(self, job: Job) -> dict[str, float]:
        return {m: job["model"][m] * math.exp(self.log_factor(job, m)) for m in METRICS}

    def error(self, job: Job, m: str) -> float:
        """The log error expected of the prediction of ``job``'s ``m`` (its family's)."""
        s = self.sigma.get((family(job), m))
        if s is not None:
            return s
        known = [v for (_, mm), v in self.sigma.items() if mm == m]
        return max(known) if known else UNKNOWN_SIGMA


def refit(jobs: list[Job], measured: dict[str, Record]) -> Fit:
    feats = Features(jobs)
    fit = Fit(features=feats)
    ok = [(j, measured[j["key"]]) for j in jobs if ok_record(measured.get(j["key"]))]
    for m in METRICS:
        pts = [(family(j), feats.of(j), math.log(r["figures"][m] / j["model"][m]))
               for j, r in ok if j["model"][m] and r["figures"].get(m)]
        if not pts:
            continue
        pooled = pooled_slopes(pts, len(feats.columns))
        by_family: dict[str, list[tuple[Vec, float]]] = {}
        for f, x, y in pts:
            by_family.setdefault(f, []).append((x, y))
        for f, fp in by_family.items():
            fit.coef[(f, m)] = family_fit(fp, pooled)
            if len(fp) >= 2:
                errs = [predict_one(family_fit(fp[:i] + fp[i + 1:], pooled), x) - y
                        for i, (x, y) in enumerate(fp)]
                fit.sigma[(f, m)] = math.sqrt(sum(e * e for e in errs) / len(errs))
        # a family not measured yet: the mean intercept and the pooled slopes
        resid = [y - dot(pooled, x) for _, x, y in pts]
        fit.coef[("*", m)] = (sum(resid) / len(resid), pooled)
    return fit


def predict_one(c: tuple[float, Vec], x: Vec) -> float:
    return c[0] + dot(c[1], x)


def dot(a: Vec, b: Vec) -> float:
    return sum(p * q for p, q in zip(a, b))


def pooled_slopes(pts: list[tuple[str, Vec, float]], k: int) -> Vec:
    """Slopes shared by every family: least squares on values centred in each family."""
    if k == 0:
        return []
    groups: dict[str, list[tuple[Vec, float]]] = {}
    for f, x, y in pts:
        groups.setdefault(f, []).append((x, y))
    rows = []
    for g in groups.values():
        mx = [sum(x[i] for x, _ in g) / len(g) for i in range(k)]
        my = sum(y for _, y in g) / len(g)
        rows += [([x[i] - mx[i] for i in range(k)], y - my) for x, y in g]
    a = [[sum(r[0][i] * r[0][j] for r in rows) + (POOLED_RIDGE if i == j else 0.0)
          for j in range(k)] for i in range(k)]
    b = [sum(r[0][i] * r[1] for r in rows) for i in range(k)]
    return solve(a, b)


def family_fit(fp: list[tuple[Vec, float]], pooled: Vec) -> tuple[float, Vec]:
    """Intercept and slopes of one family: ridge towards ``pooled`` (intercept free)."""
    k = len(pooled)
    z = [(x, y - dot(pooled, x)) for x, y in fp]
    n = len(z)
    # normal equations of [a, c] for z = a + c.x, with RIDGE on c
    size = k + 1
    a = [[0.0] * size for _ in range(size)]
    b = [0.0] * size
    for x, y in z:
        row = [1.0, *x]
        for i in range(size):
            b[i] += row[i] * y
            for j in range(size):
                a[i][j] += row[i] * row[j]
    for i in range(1, size):
        a[i][i] += RIDGE
    sol = solve(a, b) if n else [0.0] * size
    return sol[0], [p + c for p, c in zip(pooled, sol[1:])]


def solve(a: list[Vec], b: Vec) -> Vec:
    """Gaussian elimination with partial pivoting (the systems are a few unknowns)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-12:
            continue
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [u - f * v for u, v in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] if abs(m[i][i]) >= 1e-12 else 0.0 for i in range(n)]
