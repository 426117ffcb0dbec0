"""The cocotb checker by event on the independent before-injection Skein-512 core of issue 33
(crates/diff/tests/data/cores/skein512_before.v: state registered before subkey injection and
reset to 0, rotating key and tweak rings, serial byte-swapped digest), driven by its own bench
through plusargs, with its hand-written map: it passes on the four messages of the CLI's tests
and fails on the rotation mutant where the specification says the bug first acts."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import skeinhw

pytest.importorskip("cocotb")
if shutil.which("iverilog") is None:
    pytest.skip("Icarus Verilog is not installed (scripts/install-deps.sh)", allow_module_level=True)

CORES = Path(__file__).resolve().parents[2] / "diff/tests/data/cores"
# The golden schedule closest to the core (one round a clock, Config computed), as the CLI's
# tests pick it.
SCHEDULE = "ath-1r"
# As crates/cli/tests/independent_cores/sim.rs: 200 bytes are four blocks, the last of 8 bytes.
BYTES_200 = bytes((i * 7 + 3) & 0xFF for i in range(200))


def run(tmp_path, *args):
    cmd = [sys.executable, "-m", "skeinhw.cocotb", "--build-dir", str(tmp_path / "build"), *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def kat_512(vectors, bits):
    """Message and digest of the official vector `Len = bits` of ShortMsgKAT_512.txt."""
    text = (vectors / "skein" / "ShortMsgKAT_512.txt").read_text()
    rest = text[text.index(f"Len = {bits}\n") :].splitlines()
    msg = bytes.fromhex(rest[1].removeprefix("Msg = ").strip())
    md = bytes.fromhex(rest[2].removeprefix("MD = ").strip())
    return (msg if bits else b""), md


def before_core(tmp_path, msg, *defines):
    """The core and its bench in a directory, the blocks file of `msg` (one 512-bit block a
    line, byte 63 first; one zero line for the empty message); the runner's arguments."""
    rtl = tmp_path / "rtl"
    rtl.mkdir()
    for name in ("skein512_before.v", "skein512_before_tb.v"):
        shutil.copy(CORES / name, rtl / name)
    nb = max(1, -(-len(msg) // 64))
    last = len(msg) - 64 * (nb - 1)
    lines = [msg[64 * b : 64 * b + 64].ljust(64, b"\0")[::-1].hex() for b in range(nb)]
    blocks = tmp_path / "blocks.hex"
    blocks.write_text("\n".join(lines) + "\n")
    args = [
        "--schedule", SCHEDULE, "--rtl-dir", str(rtl), "--top", "tb", "--no-drive",
        "--map", str(CORES / "skein512_before.map.json"), "--align", "event",
        "--hex", msg.hex(),
        f"+blocks={blocks}", f"+nb={nb}", f"+last={last}", f"+vcd={tmp_path / 'core.vcd'}",
    ]
    for d in defines:
        args += ["--define", d]
    return args


MESSAGES = {"empty": 0, "abc": 24, "200 bytes": None, "two full blocks": 1024}


@pytest.mark.parametrize("what", sorted(MESSAGES))
def test_before_core_passes_by_event(tmp_path, vectors, what):
    bits = MESSAGES[what]
    if bits is None:
        msg, md = BYTES_200, None
    else:
        msg, md = kat_512(vectors, bits)
    golden = skeinhw.skein512(msg).digest()
    if md is not None:
        # The golden digest is the official vector: a pass is a pass against the spec.
        assert golden == md
    code, out, err = run(tmp_path, *before_core(tmp_path, msg))
    assert code == 0, out + err
    # The Config block, each message block and the Output block, each seen at its 19 states
    # before injection, 19 key and 19 tweak ring positions; the serial digest's eight words.
    blocks = 1 + max(1, -(-len(msg) // 64)) + 1
    events = 3 * 19 * blocks
    assert (f"IDENTICAL (event alignment): {events} of {events} expected events matched, "
            "8 digest word(s)") in out, out


def test_before_core_rotation_mutant_fails_by_event(tmp_path):
    # R_{7,0} = 9 instead of 8 acts in round 7 of the Config block, on MIX 0's second output,
    # which pi sends to word 1: first seen before subkey 2, in word 1 alone.
    code, out, err = run(tmp_path, *before_core(tmp_path, BYTES_200, "MUT_ROT"))
    assert code == 1, out + err
    at = "DIVERGENT (event alignment): stream 0, config block 0, before subkey 2: never seen"
    assert at in out, out
    assert "IDENTICAL" not in out, out
    differs = set(re.findall(r"(slot0_\w+) +golden \w+ +rtl \w+ +<-- differs", out))
    assert differs == {"slot0_state_before_1"}, out
