"""Every Skein option through the runner (`python -m skeinhw.cocotb`) on the generated Verilog
in Icarus, under whichever cocotb (1.9 or 2.x) the environment has: a core built for 128 output
bits, a personalized MAC with every optional argument, a tree core, more messages than
streams, a schedule changed with --set; each passes, and a mutant of each (one rotation
amount changed in the generated Verilog) fails with DIVERGENT and exit 1. Then the generated
test bench as a third-party bench of its own: plusargs reach it, --scope finds the core."""

import re
import shutil
import subprocess
import sys

import pytest

import skeinhw

pytest.importorskip("cocotb")
if shutil.which("iverilog") is None:
    pytest.skip("Icarus Verilog is not installed (scripts/install-deps.sh)", allow_module_level=True)

SCHEDULE = "ath-1r"
LONG = (bytes(range(256)) * 2)[:300]
# MIX 1's rotation in round d = 3 (mod 8): R = 9 in Skein 1.3's Table 4; the mutant has 10.
ROTATION = "3'd3: y1 = rotl(x1, 6'd9) ^ y0; // ROT d=3 j=1"

# Each case: the runner's options, and the same as skeinhw.simulate's keyword arguments.
CASES = {
    "out_bits_128": (["--out-bits", "128"], {"digest_bits": 128}),
    "personalized": (
        ["--key", "0123456789", "--pers", b"20081031 me@example.org".hex(),
         "--public-key", "aa" * 40, "--key-id", "01", "--nonce", "ff" * 16],
        {"key": bytes.fromhex("0123456789"), "pers": b"20081031 me@example.org",
         "public_key": b"\xaa" * 40, "key_id": b"\x01", "nonce": b"\xff" * 16},
    ),
    "tree": (["--tree", "1,1,2"], {"tree": (1, 1, 2)}),
}


def run(tmp_path, *args):
    cmd = [sys.executable, "-m", "skeinhw.cocotb", "--build-dir", str(tmp_path / "build"), *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def golden_cycles(messages, **options):
    return sum(1 for _ in skeinhw.simulate(SCHEDULE, messages, **options))


def hex_args(messages):
    return [a for m in messages for a in ("--hex", m.hex())]


@pytest.mark.parametrize("case", sorted(CASES))
def test_option_passes_on_its_core(tmp_path, case):
    args, options = CASES[case]
    messages = [LONG]
    code, out, err = run(tmp_path, "--schedule", SCHEDULE, *args, *hex_args(messages))
    assert code == 0, out + err
    cycles = golden_cycles(messages, **options)
    assert re.search(rf"IDENTICAL: {cycles} cycles x \d+ fields", out), out


@pytest.mark.parametrize("case", sorted(CASES))
def test_option_fails_on_a_mutant_of_its_core(tmp_path, case):
    args, options = CASES[case]
    rtl = tmp_path / "rtl"
    skeinhw.generate_verilog(SCHEDULE, rtl, digest_bits=options.get("digest_bits"),
                             tree=options.get("tree"))
    design = rtl / "skeinhw.v"
    text = design.read_text()
    assert text.count(ROTATION) == 1
    design.write_text(text.replace(ROTATION, ROTATION.replace("6'd9", "6'd10")))
    code, out, err = run(tmp_path, "--schedule", SCHEDULE, "--rtl-dir", str(rtl), *args,
                         *hex_args([LONG]))
    assert code == 1, out + err
    assert re.search(r"DIVERGENT at golden cycle \d+: .*slot0_state_\d+", out), out


def test_a_core_of_other_options_fails(tmp_path):
    # The golden model told a personalization the port never sees: never a pass.
    rtl = tmp_path / "rtl"
    skeinhw.generate_verilog(SCHEDULE, rtl)
    code, out, err = run(tmp_path, "--schedule", SCHEDULE, "--rtl-dir", str(rtl), "--no-drive",
                         "--pers", "00", *hex_args([b"abc"]))
    assert code == 1, out + err
    assert "IDENTICAL" not in out


def test_more_messages_than_streams_are_queued(tmp_path):
    # ath-8r-2fp has two streams: five messages, two and three back to back.
    messages = [b"abc", LONG, b"", b"\x80" * 70, b"xyz"]
    code, out, err = run(tmp_path, "--schedule", "ath-8r-2fp", "--key", "00112233",
                         *hex_args(messages))
    assert code == 0, out + err
    compared = int(re.search(r"IDENTICAL: (\d+) cycles x \d+ fields", out).group(1))
    # More than the first message of each stream takes alone.
    first = sum(1 for _ in skeinhw.simulate("ath-8r-2fp", messages[:2], key=b"\x00\x11\x22\x33"))
    assert compared > first, out


def test_set_changes_the_schedule(tmp_path):
    changed = skeinhw.Schedule.preset(SCHEDULE).with_set(["first_subkey_cycle=false"])
    assert changed.name == f"{SCHEDULE}+first_subkey_cycle=false"
    code, out, err = run(tmp_path, "--schedule", SCHEDULE, "--set", "first_subkey_cycle=false",
                         *hex_args([b"abc"]))
    assert code == 0, out + err
    cycles = sum(1 for _ in skeinhw.simulate(changed, [b"abc"]))
    assert cycles != golden_cycles([b"abc"])
    assert f"IDENTICAL: {cycles} cycles" in out, out


@pytest.mark.parametrize("setting, message", [("no_such_field=1", "no_such_field"),
                                              ("first_subkey_cycle", "FIELD=VALUE")])
def test_bad_set_is_a_usage_error(tmp_path, setting, message):
    code, out, err = run(tmp_path, "--schedule", SCHEDULE, "--set", setting, "--hex", "00")
    assert code == 2, out + err
    assert message in err


def bench_input(tmp_path, messages, **options):
    """The generated test bench's input file for `messages` (from skeinhw.host_blocks)."""
    blocks = skeinhw.host_blocks(SCHEDULE, messages, **options)
    fields = ["stream", "key", "first", "last", "bitpad", "bytes", "type", "level", "root",
              "offset", "src", "data"]
    streams = min(len(messages), skeinhw.Schedule.preset(SCHEDULE).blocks_in_flight)
    lines = [f"{streams} {len(blocks)}"]
    lines += [" ".join(format(b[f], "x") for f in fields) for b in blocks]
    path = tmp_path / "input.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("mutant", [False, True])
def test_plusargs_reach_a_bench_of_ones_own(tmp_path, mutant):
    # The generated test bench as the toplevel: it reads its blocks from +input=PATH and
    # drives the core itself (--no-drive); the checker reads the core at --scope dut.
    rtl = tmp_path / "rtl"
    skeinhw.generate_verilog(SCHEDULE, rtl, digest_bits=128)
    if mutant:
        design = rtl / "skeinhw.v"
        design.write_text(design.read_text().replace(ROTATION, ROTATION.replace("6'd9", "6'd10")))
    messages = [LONG]
    path = bench_input(tmp_path, messages, pers=b"me", digest_bits=128)
    args = ["--schedule", SCHEDULE, "--rtl-dir", str(rtl), "--top", "skeinhw_tb", "--scope",
            "dut", "--no-drive", "--out-bits", "128", "--pers", b"me".hex(), *hex_args(messages),
            f"+input={path}", f"+vcd={tmp_path / 'tb.vcd'}", "+trail=4"]
    code, out, err = run(tmp_path, *args)
    if mutant:
        assert code == 1, out + err
        assert "DIVERGENT at golden cycle" in out, out
        return
    assert code == 0, out + err
    cycles = golden_cycles(messages, pers=b"me", digest_bits=128)
    assert f"IDENTICAL: {cycles} cycles" in out, out
    # The bench printed its digest line (it read +input=), its digest the library's.
    digest = skeinhw.skein512(LONG, digest_bits=128, pers=b"me").digest()
    line = re.search(r"digest 0 \d+ ([0-9a-f ]+)", out)
    assert line, out
    words = line.group(1).split()
    assert b"".join(int(w, 16).to_bytes(8, "little") for w in words)[:16] == digest
