#!/usr/bin/env bash
# The test command of README.md: installs what the tests need (Debian's iverilog, verilator,
# yosys) when missing, then runs the whole workspace's tests. Extra arguments go to cargo test.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/install-deps.sh
cargo test --workspace --locked "$@"
