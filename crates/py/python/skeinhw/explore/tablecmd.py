"""``skeinhw explore table``: the ECP5 rows and the README table made from a study's store.

    skeinhw explore --study scripts/ecp5-study.toml --out target/ecp5-study
    skeinhw explore table --store target/ecp5-study        # rows + README table
    skeinhw explore table                                  # README table from the rows alone
    skeinhw explore --schedule long-iter-256 --core lean --flow v5-netlist,ecp5 \\
        --yosys system --out target/check
    skeinhw explore table --check --store target/check     # compare with the checked-in rows

With ``--store``, each (design, core) of the store's ``v5-netlist``/``ecp5`` records of today's
Verilog replaces its row in ``--results`` (rows the store lacks are kept), then the README's
generated region is rewritten from the rows. ``--check`` writes nothing: it compares the
store's rows with the checked-in ones (every figure but the seconds) and exits 1 on a
difference. Exit 2 on bad input (one line), the files untouched.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from . import ecp5data, ecp5table, store as storemod
from .errors import ExploreError

PROG = "skeinhw explore table"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="The ECP5 rows (results.json) and the "
                                "README's generated table, from a skeinhw explore store.")
    p.add_argument("--store", metavar="DIR", help="a study directory (its results.jsonl)")
    p.add_argument("--root", default=".", metavar="DIR",
                   help="the repository (default: here): crates/rtl/generated, estimator/data")
    p.add_argument("--readme", metavar="FILE", help="README with the markers (ROOT/README.md)")
    p.add_argument("--results", metavar="FILE",
                   help=f"the rows (ROOT/{ecp5data.RESULTS})")
    p.add_argument("--check", action="store_true",
                   help="compare the store's rows with --results; write nothing")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    a = parser().parse_args(argv)
    try:
        return run(a)
    except ExploreError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2


def run(a: argparse.Namespace) -> int:
    readme = a.readme or os.path.join(a.root, ecp5table.README)
    results = a.results or os.path.join(a.root, ecp5data.RESULTS)
    if a.check and not a.store:
        raise ExploreError("--check compares a store's rows: give --store DIR")
    for path in (results, readme):
        ecp5data.regular_target(path)  # files, before either is read (a FIFO would block)
    data = ecp5data.load(results)
    rows: list[ecp5data.Row] = []
    if a.store:
        st = storemod.Store.open(a.store)
        if not os.path.exists(st.path):
            raise ExploreError(f"{st.path}: no explore store there")
        rows, notes = ecp5data.rows_from_records(st.records.values(), a.root)
        for n in notes:
            print(f"{PROG}: {n}", file=sys.stderr)
    if a.check:
        return check(data, rows)
    merged = ecp5data.merge(data, rows)
    # The README first: a table that cannot be written leaves the rows as they were too.
    body = ecp5table.table(merged, a.root)
    ecp5table.replace_region(read(readme), body, readme)  # its markers, before any write
    if ecp5data.dumps(merged) != read_or_empty(results):
        ecp5data.write_whole(results, ecp5data.dumps(merged))
    changed = ecp5table.write_region(readme, body)
    print(f"{len(rows)} row(s) from the store into {results}; {readme}: "
          f"{'table rewritten' if changed else 'table unchanged'}")
    return 0


def check(data: dict, rows: list[ecp5data.Row]) -> int:
    failed = not rows
    if not rows:
        print(f"{PROG}: the store has no row to compare", file=sys.stderr)
    for row in rows:
        name = f"{row['design']} {row['variant']}"
        old = ecp5data.row_of(data, row["design"], row["variant"])
        if old is None:
            print(f"{name}: no checked-in row")
            failed = True
            continue
        diffs = ecp5data.differences(old, row)
        for d in diffs:
            print(f"{name}: {d}")
        if ecp5data.estimator_only(diffs):
            print(f"{name}: Yosys's cells are as checked in; the estimator reads the netlist "
                  f"differently now (the rows' xc5v are of an older estimator: make them again "
                  f"from a store)")
        failed |= bool(diffs)
        if not diffs:
            ran = "xc5v and ecp5" if row["ecp5"] is not None else "xc5v"
            print(f"{name}: {ran} as checked in")
    return 1 if failed else 0


def read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        raise ExploreError(f"{path}: cannot read: {e.strerror}") from None


def read_or_empty(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ""
