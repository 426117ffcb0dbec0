#!/usr/bin/env bash
# Seeds the fuzz corpora (fuzz/corpus/<target>/) from the repository's own files: schedules,
# small golden traces and waveforms made by `skeinhw trace`, the Icarus VCD/FST of the diff's
# tests, signal maps from `skeinhw rtl`, small Yosys netlists (plus a combinational loop and a
# very deep chain made here), the estimator's constants. Nothing large is checked in: run this
# before fuzzing (scripts/test.d/50-fuzz.sh does). Usage: fuzz/seed.sh [SKEINHW-BINARY]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
corpus=$here/corpus
bin=${1:-}
if [[ -z $bin ]]; then
    (cd "$repo" && cargo build -q -p skeinhw)
    bin=${CARGO_TARGET_DIR:-$repo/target}/debug/skeinhw
fi
for t in schedule_json golden_jsonl wave signal_map netlist constants_toml args check_line; do
    mkdir -p "$corpus/$t"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Schedules: every preset of both algorithms as JSON, and the sched crate's test files.
for name in long-iter-256 long-pipe-512 long-split-256 long-overlap-256 ath-8r-2fp-3sp \
    shabal-unfold-1 shabal-unfold-3; do
    "$bin" schedule show --json "$name" > "$corpus/schedule_json/$name.json"
done
cp "$repo"/crates/sched/tests/data/valid/*.json "$repo"/crates/sched/tests/data/invalid/*.json \
    "$corpus/schedule_json/"

# Golden traces (first lines only: the header and a few records are what the parser sees) and
# waveforms, with the names line the wave target reads first.
for name in ath-8r ath-8r-2fp long-iter-256 shabal-unfold-2; do
    "$bin" trace --schedule "$name" --hex 616263 -o "$tmp/$name.jsonl" > /dev/null
    head -n 6 "$tmp/$name.jsonl" > "$corpus/golden_jsonl/$name.jsonl"
    "$bin" trace --schedule "$name" --hex 616263 --format vcd -o "$tmp/$name.vcd" > /dev/null
    names=$(grep -o '\$var wire [0-9]* [^ ]* [^ ]*' "$tmp/$name.vcd" | awk '{print "skeinhw." $5}' |
        head -n 6 | tr '\n' ' ')
    { echo "skeinhw.clk $names"; head -n 400 "$tmp/$name.vcd"; } > "$corpus/wave/$name.vcd"
done
# Headers that were crashes: a huge `slots` (issue 16), a huge `in_ready` (issue 33); and a
# trace with the field at 0 (raw blocks model no feed) next to the seeds above, which carry 1.
cp "$repo"/crates/cli/tests/data/malformed/*.jsonl "$corpus/golden_jsonl/"
sed '1s/,"in_ready":[0-9]*}$/}/' "$corpus/golden_jsonl/ath-8r.jsonl" | sed 's/,"in_ready":\[[a-z,]*\]//' \
    > "$corpus/golden_jsonl/ath-8r-no-in-ready.jsonl"
{ echo "t.clk t.cnt t.wide[127:64] t.wide[3:0]"; cat "$repo/crates/diff/tests/data/icarus/counter.vcd"; } \
    > "$corpus/wave/counter.vcd"
{ echo "t.clk t.cnt t.wide[127:64] t.wide[3:0]"; cat "$repo/crates/diff/tests/data/icarus/counter.fst.bin"; } \
    > "$corpus/wave/counter.fst"
for f in "$repo"/crates/cli/tests/data/malformed/*.vcd "$repo"/crates/cli/tests/data/malformed/*.fst; do
    { echo "clk w"; cat "$f"; } > "$corpus/wave/$(basename "$f")"
done

# Signal maps: the generated Verilog's, and the test data's.
"$bin" rtl --schedule ath-8r -o "$tmp/rtl" > /dev/null
find "$tmp/rtl" -name '*.json' -size -64k -exec cp {} "$corpus/signal_map/" \;
cp "$repo"/crates/cli/tests/data/malformed/*map.json "$corpus/signal_map/"

# Netlists: the estimator's smallest test netlist cut to its first cells (small seeds keep the
# fuzzer fast), a combinational loop, a deep LUT chain.
python3 - "$corpus/netlist" "$repo/estimator/tests/data/add64.json" <<'PY'
import json, sys
out = sys.argv[1]
add = json.load(open(sys.argv[2]))
for m in add["modules"].values():
    m["cells"] = dict(list(m.get("cells", {}).items())[:40])
    for c in m["cells"].values():
        c.pop("attributes", None)
    for n in m.get("netnames", {}).values():
        n.pop("attributes", None)
json.dump(add, open(f"{out}/add64-cut.json", "w"), separators=(",", ":"))
def lut(i, o):
    return {"type": "LUT1", "parameters": {"INIT": "10"}, "connections": {"I0": [i], "O": [o]}}
def module(cells, ports):
    return {"modules": {"t": {"attributes": {"top": "1"}, "ports": ports, "cells": cells,
                              "netnames": {}}}}
ports = {"a": {"direction": "input", "bits": [2]}, "y": {"direction": "output", "bits": [3]}}
loop = {"l0": lut(4, 5), "l1": lut(5, 4), "l2": lut(2, 3)}
json.dump(module(loop, ports), open(f"{out}/loop.json", "w"))
chain = {f"c{i}": lut(i + 2, i + 3) for i in range(300)}
ports["y"]["bits"] = [302]
json.dump(module(chain, ports), open(f"{out}/chain.json", "w"))
PY

cp "$repo/estimator/data/virtex5.toml" "$corpus/constants_toml/"

printf '0x616263' > "$corpus/args/hex"
printf 'DEADbeef00' > "$corpus/args/hex-upper"
printf '1024' > "$corpus/args/size"
printf '2,2,2' > "$corpus/args/tree"
printf '0,255,2' > "$corpus/args/tree-edge"

# --check lines (coreutils and BSD style) of `skeinhw hash`.
printf 'aa  file\n' > "$corpus/check_line/plain"
"$bin" hash --hex 616263 > "$corpus/check_line/hash" 2> /dev/null || true
printf '\\%s  a\\nb\\\\c\n' 0011 > "$corpus/check_line/escaped"
printf 'Skein-512-512 (file) = 00ff\n' > "$corpus/check_line/bsd"
echo "seeded $(find "$corpus" -type f | wc -l) files under $corpus"
