#!/usr/bin/env bash
# The test command of README.md: installs what the tests need (Debian's iverilog, verilator,
# yosys, librsvg2-bin) when missing, then runs the whole workspace's tests, then every suite in
# scripts/test.d/ in name order (each installs what it needs itself: Python packages into a
# virtual environment, cargo tools). Extra arguments go to cargo test.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/install-deps.sh
cargo test --workspace --locked "$@"
for suite in scripts/test.d/*.sh; do
    [ -e "$suite" ] || continue
    echo "== ${suite#scripts/test.d/}" >&2
    bash "$suite"
done
