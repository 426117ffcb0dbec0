#!/usr/bin/env bash
# A short run of every fuzz target (issue 16): builds fuzz/ with cargo-fuzz (libFuzzer) on the
# stable toolchain (RUSTC_BOOTSTRAP=1 lets it use the nightly flags), seeds the corpora from the
# repository (fuzz/seed.sh), runs each target for FUZZ_SECONDS (default 5) and fails on any
# crash, leak of time (-timeout) or memory (-rss_limit_mb). The long run is in fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-5}
if ! cargo fuzz --version > /dev/null 2>&1; then
    cargo install cargo-fuzz --locked --version 0.13.2
fi
# Seeding uses the `skeinhw` that cargo test built; RUSTC_BOOTSTRAP only from here on (it
# changes rustc's fingerprint, and would rebuild the workspace).
fuzz/seed.sh
export RUSTC_BOOTSTRAP=1
cd fuzz
# The fuzz crate's own target dir: its RUSTFLAGS (coverage instrumentation) differ.
export CARGO_TARGET_DIR=$PWD/target
mkdir -p target
targets=(schedule_json golden_jsonl wave signal_map netlist constants_toml args check_line)
# No sanitizer: the targets are safe Rust over safe parsers; it halves the build (CI budget).
flags=(-O -s none)
cargo fuzz build "${flags[@]}"
for t in "${targets[@]}"; do
    echo "fuzz $t (${seconds}s)" >&2
    cargo fuzz run "${flags[@]}" "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        2> "target/fuzz-$t.log" || {
        tail -n 40 "target/fuzz-$t.log" >&2
        echo "fuzz target $t failed: the crashing input is under fuzz/artifacts/$t/" >&2
        exit 1
    }
    grep -E '^(Done|stat::number_of_executed_units)' "target/fuzz-$t.log" >&2 || true
done
