#!/usr/bin/env bash
# The Python package skeinhw (crates/py): builds its abi3 wheel once (maturin build --release)
# and installs it into two virtual environments, target/venv with cocotb 1.9 and
# target/venv-cocotb2 with cocotb 2.1 (no Rust there: the wheel installs as a user's would).
# cocotb 1.9 runs the whole pytest suite (hashing against the vectors and pyskein 1.0, the
# golden model, and the cocotb checker on the generated Verilog in Icarus, by cycle and by
# event, with every Skein option, and on an independent core in Icarus (Verilog) and GHDL
# (VHDL)); cocotb 2.1 runs the cocotb tests again (Icarus and GHDL: cocotb 2 needs Verilator
# 5.036, Debian 12 has 5.006), and both run the examples through cocotb's runner (and 2.1's
# pytest plugin). target/venv also gets the explore extra (Ray, YoWASP's Yosys and nextpnr):
# `skeinhw explore`'s tests, one of them on a real two-node Ray cluster on the loopback.
# Installs what is missing: Debian's python3-venv/python3-dev/gcc (pyskein builds from source), ghdl
# and the simulators (scripts/install-deps.sh); from PyPI maturin, pytest, cocotb, pyskein.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
VENV="$ROOT/target/venv"
VENV2="$ROOT/target/venv-cocotb2"
PY=/usr/bin/python3
command -v "$PY" >/dev/null 2>&1 || PY=python3

need=()
"$PY" -c "import ensurepip, venv" >/dev/null 2>&1 || need+=(python3-venv)
[ -n "$("$PY" -c 'import sysconfig; import os; print(os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")) or "")')" ] || need+=(python3-dev)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
# GHDL 2.0 (mcode): the checker on a VHDL core (cocotb 1.9 runs it; the generated design is Verilog).
command -v ghdl >/dev/null 2>&1 || need+=(ghdl)
if [ ${#need[@]} -gt 0 ]; then
    echo "installing: ${need[*]}" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
bash scripts/install-deps.sh

PIP=(-m pip install -q --disable-pip-version-check)
for v in "$VENV" "$VENV2"; do
    [ -x "$v/bin/python" ] || "$PY" -m venv "$v"
done
# cocotb 1.9 is the line that runs on Debian 12's Verilator 5.006 too.
"$VENV/bin/python" "${PIP[@]}" "maturin>=1.5,<2" "pytest>=7" "cocotb>=1.9,<2" "pyskein==1.0"
"$VENV2/bin/python" "${PIP[@]}" "pytest>=7" "cocotb>=2.1,<2.2"

# One build for both: the abi3 wheel.
WHEELS="$CARGO_TARGET_DIR/wheels"
rm -f "$WHEELS"/skeinhw-*.whl
"$VENV/bin/maturin" build --release -q -m crates/py/Cargo.toml -i "$VENV/bin/python" -o "$WHEELS"
for v in "$VENV" "$VENV2"; do
    "$v/bin/python" "${PIP[@]}" --force-reinstall --no-deps "$WHEELS"/skeinhw-*.whl
done
# `skeinhw explore` (test_explore*.py: a two-node Ray cluster on the loopback, Yosys): the
# explore extra's Ray and YoWASP tools into target/venv.
WHL=$(ls "$WHEELS"/skeinhw-*.whl)
"$VENV/bin/python" "${PIP[@]}" "$WHL[explore]"

status=0
suite() {
    local code=0
    echo "== $*" >&2
    "$@" || code=$?
    if [ "$code" -eq 5 ]; then
        echo "error: pytest collected no tests" >&2
    fi
    [ "$code" -eq 0 ] || status=1
}
T=crates/py/tests
PYTEST=(-m pytest -q -p no:cacheprovider)
suite "$VENV/bin/python" "${PYTEST[@]}" "$T" examples/cocotb/test_with_runner.py
suite "$VENV2/bin/python" "${PYTEST[@]}" "$T/test_cocotb.py" "$T/test_cocotb_options.py" \
    "$T/test_cocotb_before_core.py" examples/cocotb/test_with_runner.py
suite "$VENV2/bin/python" "${PYTEST[@]}" -p cocotb_tools._pytest.plugin \
    --cocotb-simulator icarus --cocotb-build-dir "$CARGO_TARGET_DIR/cocotb-plugin" \
    examples/cocotb/test_pytest_plugin.py
exit "$status"
