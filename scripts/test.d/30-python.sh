#!/usr/bin/env bash
# The Python package skeinhw (crates/py): builds it into the virtual environment target/venv
# with maturin and runs its pytest suite (hashing against the vectors and pyskein 1.0, the
# golden model, and the cocotb checker on the generated Verilog in Icarus, by cycle and by event,
# and on an independent core in Icarus (Verilog) and GHDL (VHDL)).
# Installs what is missing: Debian's python3-venv/python3-dev/gcc (pyskein builds from source), ghdl
# and the simulators (scripts/install-deps.sh); from PyPI maturin, pytest, cocotb 1.9, pyskein.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
VENV="$ROOT/target/venv"
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

if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
# cocotb 1.9 is the line that runs on Debian 12's Icarus 11 and Verilator 5.006.
"$VENV/bin/python" -m pip install -q --disable-pip-version-check \
    "maturin>=1.5,<2" "pytest>=7" "cocotb>=1.9,<2" "pyskein==1.0"

VIRTUAL_ENV="$VENV" "$VENV/bin/maturin" develop -q -m crates/py/Cargo.toml

set +e
"$VENV/bin/python" -m pytest -q -p no:cacheprovider crates/py/tests
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "error: pytest collected no tests" >&2
    exit 1
fi
exit "$status"
