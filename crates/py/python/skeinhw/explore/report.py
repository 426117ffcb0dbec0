"""What the user reads: the measured Pareto front (least area, most throughput) as a table,
and a Pareto plot in SVG with the measured points and the model's points, labelled."""

from __future__ import annotations

import html
import math
from typing import Any, Sequence

Row = dict[str, Any]


def pareto(rows: Sequence[Row], area: str = "area", speed: str = "throughput_mbps") -> list[Row]:
    """The rows no other row beats on both area (smaller) and throughput (larger), by area."""
    pts = sorted(rows, key=lambda r: (r[area], -r[speed]))
    front, best = [], -math.inf
    for r in pts:
        if r[speed] > best:
            front.append(r)
            best = r[speed]
    return front


def measured_rows(records: Sequence[Row]) -> list[Row]:
    """One row per ok record: its label and measured and model figures."""
    rows = []
    for rec in records:
        if rec["status"] != "ok":
            continue
        f, m = rec["figures"], rec.get("model") or {}
        rows.append({
            "label": rec.get("label", rec["key"][:12]),
            "schedule": rec.get("schedule_name", ""),
            "key": rec["key"],
            "flow": rec["point"]["flow"],
            "area": f["area"],
            "throughput_mbps": f["throughput_mbps"],
            "model_area": m.get("area"),
            "model_throughput_mbps": m.get("throughput_mbps"),
        })
    return rows


def front_table(rows: Sequence[Row]) -> str:
    """A Markdown table of the measured front."""
    out = ["| point | area (slices) | throughput (Mbit/s) | model area | model Mbit/s |",
           "|---|---:|---:|---:|---:|"]
    for r in pareto(rows):
        out.append(f"| {r['label']} | {r['area']:,} | {r['throughput_mbps']:,.1f} | "
                   f"{fmt(r['model_area'])} | {fmt(r['model_throughput_mbps'], 1)} |")
    return "\n".join(out) + "\n"


def fmt(v, digits: int = 0) -> str:
    if v is None:
        return "-"
    return f"{v:,.{digits}f}"


def pareto_svg(rows: Sequence[Row], title: str = "skeinhw explore") -> str:
    """Measured points (filled, front joined) and model points (hollow), each labelled."""
    w, h, pad = 900, 600, 70
    pts = [(r["area"], r["throughput_mbps"]) for r in rows]
    pts += [(r["model_area"], r["model_throughput_mbps"]) for r in rows
            if r["model_area"] is not None]
    if not pts:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}">'
                f'<text x="20" y="40">no measured points</text></svg>\n')
    # Log axes: the designs span two orders of magnitude in both.
    xs, ys = [math.log10(max(p[0], 1)) for p in pts], [math.log10(max(p[1], 1e-3)) for p in pts]
    x0, x1 = math.floor(min(xs) * 10) / 10, math.ceil(max(xs) * 10) / 10 + 0.05
    y0, y1 = math.floor(min(ys) * 10) / 10, math.ceil(max(ys) * 10) / 10 + 0.05

    def sx(x):
        return pad + (math.log10(max(x, 1)) - x0) / (x1 - x0) * (w - 2 * pad)

    def sy(y):
        return h - pad - (math.log10(max(y, 1e-3)) - y0) / (y1 - y0) * (h - 2 * pad)

    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
         f'font-family="sans-serif" font-size="9">',
         f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{html.escape(title)}'
         f'</text>',
         f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="black"/>',
         f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="black"/>',
         f'<text x="{w / 2}" y="{h - 20}" text-anchor="middle">area (slices, log)</text>',
         f'<text x="18" y="{h / 2}" transform="rotate(-90 18 {h / 2})" '
         f'text-anchor="middle">throughput (Mbit/s, log)</text>']
    for i in range(6):
        xv, yv = 10 ** (x0 + (x1 - x0) * i / 5), 10 ** (y0 + (y1 - y0) * i / 5)
        s.append(f'<text x="{sx(xv):.1f}" y="{h - pad + 14}" text-anchor="middle">'
                 f'{xv:,.0f}</text>')
        s.append(f'<text x="{pad - 4}" y="{sy(yv) + 3:.1f}" text-anchor="end">{yv:,.0f}</text>')
    front = pareto(rows)
    s.append('<polyline fill="none" stroke="#1f77b4" points="' + " ".join(
        f"{sx(r['area']):.1f},{sy(r['throughput_mbps']):.1f}" for r in front) + '"/>')
    drawn = set()  # one model point per schedule: its cores and seeds share the estimate
    for r in rows:
        if r["model_area"] is not None:
            mx, my = sx(r["model_area"]), sy(r["model_throughput_mbps"])
            s.append(f'<line x1="{mx:.1f}" y1="{my:.1f}" x2="{sx(r["area"]):.1f}" '
                     f'y2="{sy(r["throughput_mbps"]):.1f}" stroke="#ccc"/>')
            name = r.get("schedule") or r["label"]
            if (name, r["model_area"], r["model_throughput_mbps"]) not in drawn:
                drawn.add((name, r["model_area"], r["model_throughput_mbps"]))
                s.append(f'<circle cx="{mx:.1f}" cy="{my:.1f}" r="4" fill="none" '
                         f'stroke="#d62728"/>')
                s.append(f'<text x="{mx + 6:.1f}" y="{my + 3:.1f}" fill="#d62728">model: '
                         f'{html.escape(name)}</text>')
        x, y = sx(r["area"]), sy(r["throughput_mbps"])
        s.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#1f77b4"/>')
        s.append(f'<text x="{x + 6:.1f}" y="{y - 4:.1f}">{html.escape(r["label"])}</text>')
    s.append(f'<circle cx="{pad + 20}" cy="{pad}" r="4" fill="#1f77b4"/>'
             f'<text x="{pad + 30}" y="{pad + 3}">measured (line: the front)</text>')
    s.append(f'<circle cx="{pad + 20}" cy="{pad + 16}" r="4" fill="none" stroke="#d62728"/>'
             f'<text x="{pad + 30}" y="{pad + 19}">model (grey: to its measured point)</text>')
    s.append("</svg>")
    return "\n".join(s) + "\n"
