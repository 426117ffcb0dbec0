"""`skeinhw explore table`: the ECP5 rows (estimator/data/ecp5/results.json) and the root
README's generated table, made from a store. The store here is a fixture made from the
checked-in long-iter-256 rows (no Yosys or nextpnr run: they take minutes)."""

import copy
import hashlib
import json
import os
import shutil

import pytest

pytest.importorskip("skeinhw.explore")

import skeinhw  # noqa: E402
from skeinhw.explore import cli, ecp5data, ecp5table  # noqa: E402
from skeinhw.explore.store import Store  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
RESULTS = os.path.join(ROOT, ecp5data.RESULTS)


def checked_in():
    with open(RESULTS) as f:
        return json.load(f)


def repo_copy(tmp_path):
    """The files the table reads and writes, in a scratch repository."""
    root = tmp_path / "repo"
    for rel in ["README.md", ecp5data.RESULTS, "estimator/data/seed-tables.csv",
                "crates/rtl/generated/long-iter-256/skeinhw.v"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(os.path.join(ROOT, rel), root / rel)
    shutil.copytree(os.path.join(ROOT, "estimator/data/netlists"),
                    root / "estimator/data/netlists")
    return root


def verilog(design, core):
    if core == "full":
        with open(os.path.join(ROOT, "crates/rtl/generated", design, "skeinhw.v")) as f:
            return f.read()
    return skeinhw._native.design_verilog(skeinhw.Schedule.preset(design), lean=True)


def records_of(row):
    """The store records (v5-netlist and ecp5, seed 1) that a checked-in row came from."""
    design, core = row["design"], row["variant"]
    sha = hashlib.sha256(verilog(design, core).encode()).hexdigest()
    x, e = row["xc5v"], row["ecp5"]
    point = {"schedule": design, "set": [], "core": core, "flow_args": []}
    base = {"schedule_name": design, "verilog_sha256": sha, "status": "ok",
            "reason": "", "log_tail": "", "model": {}, "node": "n", "finished": "t"}
    v5 = dict(base, key=f"{design}-{core}-v5", point=dict(point, flow="v5-netlist", seed=None),
              tools={"yosys": "system: Yosys 0.23"}, args=[["yosys", "-p", "..."]],
              wall_s=30.0, figures=dict(x, area=x["slices"], freq_mhz=1000 / x["period_ns"]))
    pnr = dict(base, key=f"{design}-{core}-ecp5", point=dict(point, flow="ecp5", seed=1),
               tools={"yosys": "system: Yosys 0.23", "nextpnr-ecp5": "yowasp: nextpnr-0.11.1"},
               args=[["yosys", "-p", "read_verilog skeinhw.v; synth_ecp5"], ["nextpnr-ecp5"]],
               wall_s=e["seconds"], figures=dict(e, area=e["slices"], throughput_mbps=1.0))
    return [v5, pnr]


def store_of(tmp_path, records):
    st = Store.open(str(tmp_path / "store"))
    for r in records:
        st.append(r)
    return str(tmp_path / "store")


def table(*args):
    return cli.main(["table", *args])


def base_rows():
    data = checked_in()
    return [ecp5data.row_of(data, "long-iter-256", v) for v in ("full", "lean")]


def test_the_table_from_the_checked_in_rows_is_the_readme_s(tmp_path):
    root = repo_copy(tmp_path)
    readme = (root / "README.md").read_text()
    assert table("--root", str(root)) == 0
    assert (root / "README.md").read_text() == readme  # the generated region is the README's
    assert json.loads((root / ecp5data.RESULTS).read_text())["rows"] == checked_in()["rows"]


def test_rows_from_a_store_replace_the_checked_in_ones_with_the_same_figures(tmp_path):
    root = repo_copy(tmp_path)
    records = [r for row in base_rows() for r in records_of(row)]
    store = store_of(tmp_path, records)
    before = (root / "README.md").read_text()
    assert table("--root", str(root), "--store", store) == 0
    data = json.loads((root / ecp5data.RESULTS).read_text())
    assert len(data["rows"]) == len(checked_in()["rows"])
    for old in base_rows():
        new = ecp5data.row_of(data, old["design"], old["variant"])
        assert new["xc5v"] == old["xc5v"]
        assert new["ecp5"] == old["ecp5"]
        assert new["tools"]["nextpnr_args"] == old["tools"]["nextpnr_args"]
        want = verilog(old["design"], old["variant"]).encode()
        assert new["verilog_fnv1a64"] == ecp5data.fnv1a64(want)
        assert "equivalent_verilog" not in new
    # The same figures: the same table.
    assert (root / "README.md").read_text() == before
    # The rows keep the format the estimator and crates/rtl/tests/ecp5_data.rs read.
    assert set(data) == {"about", "rows"}
    assert all(set(r) >= {"design", "variant", "verilog_fnv1a64", "tools", "xc5v", "ecp5"}
               for r in data["rows"])


def test_check_passes_on_the_same_figures_and_names_a_difference(tmp_path, capsys):
    lean = base_rows()[1]
    records = records_of(lean)
    results = str(tmp_path / "results.json")
    shutil.copyfile(RESULTS, results)
    assert table("--store", store_of(tmp_path / "a", records), "--results", results,
                 "--root", ROOT, "--check") == 0
    assert "long-iter-256 lean: xc5v and ecp5 as checked in" in capsys.readouterr().out
    changed = copy.deepcopy(records)
    changed[1]["figures"]["fmax_mhz"] = 40.0
    assert table("--store", store_of(tmp_path / "b", changed), "--results", results,
                 "--root", ROOT, "--check") == 1
    assert "ecp5.fmax_mhz 40.0, checked in 35.74" in capsys.readouterr().out
    with open(results) as f:
        assert f.read() == open(RESULTS).read()  # --check writes nothing
    read_anew = copy.deepcopy(records)
    read_anew[0]["figures"]["period_ns"] += 1  # the same cells, timed by another estimator
    assert table("--store", store_of(tmp_path / "c", read_anew), "--results", results,
                 "--root", ROOT, "--check") == 1
    assert "Yosys's cells are as checked in" in capsys.readouterr().out


def test_a_record_of_other_verilog_or_a_what_if_s_full_core_makes_no_row(tmp_path, capsys):
    lean = base_rows()[1]
    stale = records_of(lean)
    for r in stale:
        r["verilog_sha256"] = "0" * 64
    what_if = records_of(lean)
    for r in what_if:
        r["schedule_name"] = "long-iter-256+first_subkey_cycle=true"
        r["point"] = dict(r["point"], core="full", set=["first_subkey_cycle=true"])
        r["key"] += "-what-if"
    rows, notes = ecp5data.rows_from_records(stale + what_if, ROOT)
    assert rows == []
    assert len(notes) == 2 and all("today's Verilog" in n for n in notes)


def test_a_design_that_does_not_fit_is_a_row(tmp_path):
    lean = base_rows()[1]
    v5, pnr = records_of(lean)
    pnr.update(status="failed", reason="does not fit",
               figures={"fits": False, "lut4": 9, "ccu2c": 1, "ffs": 2, "pfumx": 0,
                        "comb_used": 90000, "comb_available": 83640})
    (row,), _ = ecp5data.rows_from_records([v5, pnr], ROOT)
    assert row["ecp5"]["fits"] is False and row["ecp5"]["comb_used"] == 90000
    assert "does not fit (108% of the logic cells)" in ecp5table.fmax_cell(row)


def test_missing_markers_are_exit_2_and_nothing_is_written(tmp_path, capsys):
    root = repo_copy(tmp_path)
    readme = root / "README.md"
    text = readme.read_text().replace(ecp5table.END, "")
    readme.write_text(text)
    results = (root / ecp5data.RESULTS).read_text()
    store = store_of(tmp_path, records_of(base_rows()[1]))
    assert table("--root", str(root), "--store", store) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "markers" in err
    assert readme.read_text() == text
    assert (root / ecp5data.RESULTS).read_text() == results
    assert sorted(os.listdir(root)) == ["README.md", "crates", "estimator"]  # no temp file


def test_no_store_and_check_without_store_are_exit_2(tmp_path, capsys):
    assert table("--store", str(tmp_path / "none"), "--root", ROOT, "--check") == 2
    assert "no explore store" in capsys.readouterr().err
    assert table("--check", "--root", ROOT) == 2


def test_only_the_marked_region_changes(tmp_path):
    text = "head\n" + ecp5table.BEGIN + "\nold\n" + ecp5table.END + "\ntail\n"
    assert ecp5table.replace_region(text, "new", "R") == (
        "head\n" + ecp5table.BEGIN + "\nnew\n" + ecp5table.END + "\ntail\n")
    p = tmp_path / "R.md"
    p.write_text(text)
    assert ecp5table.write_region(str(p), "new") is True
    assert ecp5table.write_region(str(p), "new") is False
    assert os.listdir(tmp_path) == ["R.md"]


def test_a_kept_ecp5_run_names_the_verilog_it_was_routed_from(tmp_path):
    """A store with only a v5-netlist record of today's Verilog: the row takes its xc5v and
    keeps the checked-in ECP5 run; where that run was routed from other (equivalent) Verilog,
    the row says which (`ecp5_verilog`) instead of claiming today's."""
    root = repo_copy(tmp_path)
    old = ecp5data.row_of(checked_in(), "long-iter-256", "lean")
    today = ecp5data.fnv1a64(verilog("long-iter-256", "lean").encode())
    assert old["verilog_fnv1a64"] != today  # routed before the dead-logic removal
    v5, _ = records_of(old)
    v5["figures"]["period_ns"] = 9.5  # a newer reading of the same netlist
    store = store_of(tmp_path, [v5])
    assert table("--root", str(root), "--store", store) == 0
    new = ecp5data.row_of(json.loads((root / ecp5data.RESULTS).read_text()),
                          "long-iter-256", "lean")
    assert new["verilog_fnv1a64"] == today and new["xc5v"]["period_ns"] == 9.5
    assert new["ecp5"] == old["ecp5"]
    assert new["ecp5_verilog"] == {"fnv1a64": old["verilog_fnv1a64"],
                                   "evidence": old["equivalent_verilog"]["evidence"]}
    # Merged again, the provenance stays.
    assert table("--root", str(root), "--store", store) == 0
    again = ecp5data.row_of(json.loads((root / ecp5data.RESULTS).read_text()),
                            "long-iter-256", "lean")
    assert again["ecp5_verilog"] == new["ecp5_verilog"]


def test_a_symlinked_readme_is_written_through_and_a_fifo_results_file_refused(tmp_path):
    root = repo_copy(tmp_path)
    records = [r for row in base_rows() for r in records_of(row)]
    store = store_of(tmp_path, records)
    real = tmp_path / "elsewhere.md"
    os.replace(root / "README.md", real)
    os.symlink(real, root / "README.md")
    assert table("--root", str(root), "--store", store) == 0
    assert os.path.islink(root / "README.md")  # the link kept, its target written
    fifo = tmp_path / "results.fifo"
    os.mkfifo(fifo)
    readme_before = real.read_text()
    assert table("--root", str(root), "--store", store, "--results", str(fifo)) == 2
    assert os.path.islink(root / "README.md") and real.read_text() == readme_before
    assert not os.path.isfile(fifo)  # still the FIFO
