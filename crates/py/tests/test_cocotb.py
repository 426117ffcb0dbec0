"""The cocotb checker on the generated Verilog in Icarus, through the runner users call
(`python -m skeinhw.cocotb`): it passes on correct designs, fails at the golden model's first
use of a mutation naming the register, and never passes with an empty or wrong map."""

import json
import re
import shutil
import subprocess
import sys

import pytest

import skeinhw

pytest.importorskip("cocotb")
if shutil.which("iverilog") is None:
    pytest.skip("Icarus Verilog is not installed (scripts/install-deps.sh)", allow_module_level=True)

LONG = (bytes(range(256)) * 2)[:300]
KEY = bytes.fromhex("00112233445566778899aabbccddeeff0123")


def run(tmp_path, *args):
    cmd = [sys.executable, "-m", "skeinhw.cocotb", "--build-dir", str(tmp_path / "build"), *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize(
    "schedule, messages, key",
    [
        ("ath-1r", [LONG], KEY),
        ("ath-8r-2fp", [b"abc", LONG], KEY),
        ("ath-8r-2fp", [b"", b"\x80"], b""),
        ("long-overlap-256", [LONG], KEY),
        ("long-overlap-256", [b"abc"], b""),
        ("shabal-unfold-4", [b"abc", LONG, b""], b""),
    ],
)
def test_passes_on_generated_verilog(tmp_path, schedule, messages, key):
    args = ["--schedule", schedule]
    for m in messages:
        args += ["--hex", m.hex()]
    if key:
        args += ["--key", key.hex()]
    code, out, err = run(tmp_path, *args)
    assert code == 0, out + err
    golden = sum(1 for _ in skeinhw.simulate(schedule, messages, key=key or None))
    assert re.search(rf"IDENTICAL: {golden} cycles x \d+ fields", out), out


def first_round_done(schedule, messages, rounds):
    for r in skeinhw.simulate(schedule, messages):
        if r["slot0_valid"] and r["slot0_round"] == rounds:
            return r.cycle
    raise AssertionError("never")


def test_mutation_is_caught_where_the_golden_model_first_uses_it(tmp_path):
    rtl = tmp_path / "rtl"
    skeinhw.generate_verilog("ath-1r", rtl)
    design = rtl / "skeinhw.v"
    text = design.read_text()
    # MIX 1's rotation in round d = 3 (mod 8): R = 9 in Skein 1.3's Table 4; make it 10.
    line = "3'd3: y1 = rotl(x1, 6'd9) ^ y0; // ROT d=3 j=1"
    assert text.count(line) == 1
    design.write_text(text.replace(line, line.replace("6'd9", "6'd10")))
    code, out, err = run(tmp_path, "--schedule", "ath-1r", "--rtl-dir", str(rtl), "--hex", "616263")
    assert code == 1, out + err
    # ath-1r does one round a cycle: round 3 is first used on the cycle after which 4 rounds
    # of the first block are done.
    cycle = first_round_done("ath-1r", [b"abc"], 4)
    assert f"DIVERGENT at golden cycle {cycle}:" in out, out
    summary = re.search(r"DIVERGENT at golden cycle \d+: .*", out).group(0)
    assert re.search(r"\(.*slot0_state_\d+.*\)", summary), summary


def test_empty_map_fails(tmp_path):
    m = tmp_path / "empty.json"
    m.write_text(json.dumps({"clock": "clk", "fields": {}}))
    code, out, err = run(tmp_path, "--schedule", "ath-1r", "--map", str(m), "--hex", "616263")
    assert code == 2, out + err
    assert "no fields" in err


def test_wrong_map_fails(tmp_path):
    m = tmp_path / "wrong.json"
    # The state's words reversed (a whole register: a map of some words needs --partial).
    fields = {f"slot0_state_{w}": f"slot0_state_{7 - w}[63:0]" for w in range(8)}
    fields["phase"] = "phase"
    m.write_text(json.dumps({"clock": "clk", "fields": fields}))
    code, out, err = run(tmp_path, "--schedule", "ath-1r", "--map", str(m), "--hex", "616263")
    assert code == 1, out + err
    assert "DIVERGENT" in out and "slot0_state_0" in out


def test_map_naming_a_missing_signal_fails(tmp_path):
    m = tmp_path / "missing.json"
    m.write_text(json.dumps({"fields": {"phase": "no_such_register"}}))
    code, out, err = run(tmp_path, "--schedule", "ath-1r", "--map", str(m), "--hex", "616263")
    assert code == 1, out + err
    assert "IDENTICAL" not in out


def test_correct_map_passes(tmp_path):
    m = tmp_path / "map.json"
    fields = {f"slot0_state_{w}": f"slot0_state_{w}[63:0]" for w in range(8)}
    fields["phase"] = "phase"
    m.write_text(json.dumps({"clock": "clk", "fields": fields}))
    code, out, err = run(tmp_path, "--schedule", "ath-1r", "--map", str(m), "--hex", "616263")
    assert code == 0, out + err
    assert "x 9 fields" in out


def test_partial_map_is_refused(tmp_path):
    # One word of an eight-word register: refused (exit 2), never a pass on what is left.
    m = tmp_path / "partial.json"
    m.write_text(json.dumps({"clock": "clk", "fields": {"slot0_state_0": "slot0_state_0[63:0]"}}))
    code, out, err = run(tmp_path, "--schedule", "ath-1r", "--map", str(m), "--hex", "616263")
    assert code == 2, out + err
    assert "--partial" in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--schedule", "nope", "--hex", "00"], "nope"),
        (["--schedule", "ath-1r", "--hex", "zz"], "not hex"),
        (["--schedule", "ath-1r"], "--hex"),
        (["--schedule", "ath-1r", "--hex", "00", "--tree", "1,2"], "--tree"),
        (["--schedule", "ath-1r", "--hex", "00", "--out-bits", "0"], "output"),
        (["--schedule", "shabal-unfold-4", "--hex", "00", "--pers", "01"], "pers"),
        (["--schedule", "shabal-unfold-4", "--hex", "00", "--key", "01"], "key"),
        (["--schedule", "ath-1r", "--hex", "00", "--simulator", "ghdl"], "VHDL"),
        (["--schedule", "ath-1r", "--hex", "00", "--define", "1x y=2"], "--define"),
    ],
)
def test_usage_errors_exit_2(tmp_path, args, message):
    code, out, err = run(tmp_path, *args)
    assert code == 2, out + err
    assert message in err


# --- event alignment -------------------------------------------------------------------------

THIRD_PARTY = __import__("pathlib").Path(__file__).resolve().parents[2] / "diff/tests/data/third_party"
# The official vector "Skein-256: 256-bit hash, msgLen = 512 bits, data = 'incrementing'".
INCREMENTING = bytes(0xFF - i for i in range(64))


def kat_256_incrementing(vectors):
    text = (vectors / "skein" / "skein_golden_kat.txt").read_text()
    at = text.index(":Skein-256:   256-bit hash, msgLen =   512 bits, data = 'incrementing'")
    rest = text[at:]
    lines = rest[rest.index("Result:") + 7 :].splitlines()[1:3]
    return bytes(int(b, 16) for line in lines for b in line.split())


def third_party(tmp_path, mutation=None):
    """The independent Skein-256 core of crates/diff's tests (state registered before
    injection, rotating key and tweak rings, serial digest, hard-coded IV) and its test bench
    in a directory, with `mutation` (from, to) applied to the core; the runner's arguments."""
    rtl = tmp_path / "rtl"
    rtl.mkdir()
    core = (THIRD_PARTY / "skein256_core.v").read_text()
    if mutation:
        assert core.count(mutation[0]) == 1
        core = core.replace(*mutation)
    (rtl / "skein256_core.v").write_text(core)
    (rtl / "skein256_tb.v").write_text((THIRD_PARTY / "skein256_tb.v").read_text())
    lines = []
    for b in range(0, len(INCREMENTING), 32):
        block = INCREMENTING[b : b + 32].ljust(32, b"\0")
        words = [block[8 * w : 8 * w + 8][::-1].hex() for w in range(3, -1, -1)]
        lines.append("".join(words))
    (tmp_path / "msg.hex").write_text("\n".join(lines) + "\n")
    return [
        "--schedule", "long-iter-256", "--rtl-dir", str(rtl), "--top", "tb",
        "--map", str(THIRD_PARTY / "map.json"), "--align", "event",
        "--hex", INCREMENTING.hex(),
        "--define", "NB=2", "--define", "LASTBYTES=8'd32",
        "--define", f'HEX="{tmp_path / "msg.hex"}"', "--define", f'VCD="{tmp_path / "core.vcd"}"',
    ]


def test_event_alignment_passes_on_a_third_party_core(tmp_path, vectors):
    # The golden digest is the official vector (so a pass is a pass against the spec).
    digest = next(e for e in skeinhw.events("long-iter-256", [INCREMENTING]) if e.kind == "digest")
    assert b"".join(w.to_bytes(8, "little") for w in digest.words) == kat_256_incrementing(vectors)
    code, out, err = run(tmp_path, *third_party(tmp_path))
    assert code == 0, out + err
    # Two message blocks and the output block, each 19 states before and after injection,
    # 19 key and 19 tweak ring positions and the feed-forward; the digest's four words.
    assert "IDENTICAL (event alignment): 231 of 231 expected events matched, 4 digest word(s)" in out, out


@pytest.mark.parametrize(
    "mutation, at",
    [
        (("x, 25, 33)", "x, 25, 34)"), "message block 0, before subkey 2"),
        (("{59'd0, sc}", "{59'd0, sc ^ 5'd1}"), "message block 0, after subkey 0"),
    ],
)
def test_event_alignment_catches_a_mutant_of_the_third_party_core(tmp_path, mutation, at):
    code, out, err = run(tmp_path, *third_party(tmp_path, mutation))
    assert code == 1, out + err
    assert f"DIVERGENT (event alignment): stream 0, {at}:" in out, out


def test_event_alignment_on_generated_verilog(tmp_path):
    args = ["--schedule", "ath-1r", "--align", "event", "--hex", LONG.hex(), "--key", KEY.hex()]
    code, out, err = run(tmp_path, *args)
    assert code == 0, out + err
    assert re.search(r"IDENTICAL \(event alignment\): (\d+) of \1 expected events matched, "
                     r"1 digest block\(s\)", out), out


def shabal_design(tmp_path, mutation=None):
    """The generated Verilog of shabal-unfold-2 (another latency than the golden model's
    shabal-unfold-4), `mutation` (from, to) applied; its directory."""
    rtl = tmp_path / "rtl"
    skeinhw.generate_verilog("shabal-unfold-2", rtl)
    if mutation:
        design = rtl / "skeinhw.v"
        text = design.read_text()
        assert text.count(mutation[0]) == 1
        design.write_text(text.replace(*mutation))
    return rtl


# A 102-byte message: two message blocks, then the three final rounds.
SHABAL_MSG = bytes(range(102))


def test_shabal_event_alignment_on_another_unfolding(tmp_path):
    args = ["--schedule", "shabal-unfold-4", "--rtl-dir", str(shabal_design(tmp_path)),
            "--align", "event", "--hex", SHABAL_MSG.hex()]
    code, out, err = run(tmp_path, *args)
    assert code == 0, out + err
    # A, B and C after each of 2 message blocks and 3 final rounds.
    assert "IDENTICAL (event alignment): 15 of 15 expected events matched, 1 digest(s)" in out, out


def test_shabal_event_alignment_names_a_wrong_word(tmp_path):
    # B's word 5 after the B/C swap off by one: wrong from message block 0's event on.
    swap = "{x_b_5, x_c_5} = {x_c_5 - x_m_5, x_b_5};"
    rtl = shabal_design(tmp_path, (swap, swap.replace("x_c_5 - x_m_5", "x_c_5 - x_m_5 + 32'd1")))
    args = ["--schedule", "shabal-unfold-4", "--rtl-dir", str(rtl), "--align", "event",
            "--hex", SHABAL_MSG.hex()]
    code, out, err = run(tmp_path, *args)
    assert code == 1, out + err
    assert "DIVERGENT (event alignment): stream 0, message block 0, after the round: never seen in b_*" in out, out
    # (The report is in the simulator's log and printed again at the end.)
    differs = {line.split()[-7] for line in out.splitlines() if "<-- differs" in line}
    assert differs == {"b_5"}, out


def test_event_alignment_wrong_map_fails(tmp_path):
    m = tmp_path / "wrong.json"
    # The third-party map's state words reversed.
    text = (THIRD_PARTY / "map.json").read_text()
    text = text.replace("st[63:0]", "ST_A").replace("st[255:192]", "st[63:0]").replace("ST_A", "st[255:192]")
    m.write_text(text)
    args = third_party(tmp_path)
    args[args.index("--map") + 1] = str(m)
    code, out, err = run(tmp_path, *args)
    assert code != 0, out + err
    assert "IDENTICAL" not in out


# --- GHDL: VHDL sources of --rtl-dir ---------------------------------------------------------

VHDL = __import__("pathlib").Path(__file__).resolve().parent / "data" / "vhdl"
def ghdl_major():
    out = subprocess.run(["ghdl", "--version"], capture_output=True, text=True).stdout
    return int(out.split()[1].split(".")[0])


COCOTB2 = int(__import__("cocotb").__version__.split(".")[0]) >= 2
needs_ghdl = pytest.mark.skipif(shutil.which("ghdl") is None,
                                reason="GHDL is not installed (scripts/test.d/30-python.sh installs it)")
# cocotb 2 does not stop GHDL 2.0 (Debian 12's) when the test ends: the runner refuses it.
needs_cocotb_for_ghdl = pytest.mark.skipif(
    COCOTB2 and shutil.which("ghdl") is not None and ghdl_major() < 3,
    reason="cocotb 2 cannot stop GHDL 2.0 at the end of a test: GHDL runs under cocotb 1.9")


def vhdl_core(tmp_path, mutation=None):
    """The VHDL translation of the third-party core and its bench, `mutation` applied; the
    runner's arguments."""
    rtl = tmp_path / "vhdl"
    rtl.mkdir()
    core = (VHDL / "skein256_core.vhd").read_text()
    if mutation:
        assert core.count(mutation[0]) == 1
        core = core.replace(*mutation)
    (rtl / "skein256_core.vhd").write_text(core)
    (rtl / "skein256_tb.vhd").write_text((VHDL / "skein256_tb.vhd").read_text())
    return [
        "--simulator", "ghdl", "--schedule", "long-iter-256", "--rtl-dir", str(rtl),
        "--top", "tb", "--map", str(THIRD_PARTY / "map.json"), "--align", "event",
        "--hex", INCREMENTING.hex(),
    ]


@needs_ghdl
@needs_cocotb_for_ghdl
def test_ghdl_event_alignment_passes_on_a_vhdl_core(tmp_path):
    code, out, err = run(tmp_path, *vhdl_core(tmp_path))
    assert code == 0, out + err
    assert "IDENTICAL (event alignment): 231 of 231 expected events matched, 4 digest word(s)" in out, out


@needs_ghdl
@needs_cocotb_for_ghdl
def test_ghdl_event_alignment_catches_a_mutant_of_the_vhdl_core(tmp_path):
    code, out, err = run(tmp_path, *vhdl_core(tmp_path, ("(x, 25, 33)", "(x, 25, 34)")))
    assert code == 1, out + err
    assert "DIVERGENT (event alignment): stream 0, message block 0, before subkey 2:" in out, out


def test_ghdl_without_vhdl_sources_is_a_usage_error(tmp_path):
    (tmp_path / "only.v").write_text("module m; endmodule\n")
    code, out, err = run(tmp_path, "--simulator", "ghdl", "--rtl-dir", str(tmp_path),
                         "--schedule", "ath-1r", "--hex", "00")
    assert code == 2, out + err
    assert "VHDL" in err or "ghdl" in err


@needs_ghdl
@pytest.mark.skipif(not COCOTB2 or shutil.which("ghdl") is None or ghdl_major() >= 3,
                    reason="cocotb 2 with GHDL 2.0 only")
def test_ghdl_2_under_cocotb_2_is_refused(tmp_path):
    code, out, err = run(tmp_path, *vhdl_core(tmp_path))
    assert code == 2, out + err
    assert "cocotb 1.9" in err


def verilator_version():
    out = subprocess.run(["verilator", "--version"], capture_output=True, text=True).stdout
    return tuple(int(x) for x in out.split()[1].split(".")[:2])


@pytest.mark.skipif(not COCOTB2 or shutil.which("verilator") is None
                    or verilator_version() >= (5, 36), reason="cocotb 2 with Verilator < 5.036 only")
def test_old_verilator_under_cocotb_2_is_refused(tmp_path):
    code, out, err = run(tmp_path, "--simulator", "verilator", "--schedule", "ath-1r", "--hex", "00")
    assert code == 2, out + err
    assert "5.036" in err
