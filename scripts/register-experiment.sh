#!/usr/bin/env bash
# How much of a netlist is logic ABC duplicates for depth: synthesizes a preset's generated
# Verilog as it is and with slot 0's round reading a registered copy of one arriving signal
# (a0_ky, the key, by default; a0_st or a0_tw), and prints both LUT counts (LUT1-6, INV and
# SRL cells, as the netlist summaries count them). The registered copy changes the design's
# timing (an experiment, not a design); the LUTs it removes are logic the mapping duplicated
# across the arrival select and the round.
#
#   scripts/register-experiment.sh long-iter-512 [a0_ky|a0_st|a0_tw]
#
# Uses the synthesis command of estimator/src/netlist/yosys.rs. Cited in
# estimator/src/generated/overhead.rs (fit_overhead) and estimator/README.md.
set -euo pipefail

preset=${1:?usage: $0 PRESET [a0_ky|a0_st|a0_tw]}
signal=${2:-a0_ky}
root=$(cd "$(dirname "$0")/.." && pwd)
verilog="$root/crates/rtl/generated/$preset/skeinhw.v"
[[ -f $verilog ]] || { echo "error: no generated Verilog for '$preset' ($verilog)" >&2; exit 1; }
[[ $signal =~ ^a0_(ky|st|tw)$ ]] || { echo "error: signal must be a0_ky, a0_st or a0_tw" >&2; exit 1; }
command -v yosys >/dev/null || { echo "error: yosys not found; install it with ./scripts/install-deps.sh" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The width of the signal from its declaration, then slot 0's stage reads "<signal>_q".
width=$(perl -ne 'if (/reg \[(\d+):0\][^;]*\b'"$signal"'\b/) { print $1 + 1; exit }' "$verilog")
[[ -n $width ]] || { echo "error: $signal is not declared in $verilog" >&2; exit 1; }
perl -0pe '
  s{(    always \@\* begin : stage0\n)(.*?)(\n    end\n)}{
    my ($head, $body, $tail) = ($1, $2, $3);
    $body =~ s/\b'"$signal"'\b/'"$signal"'_q/g;
    "    reg ['"$((width - 1))"':0] '"$signal"'_q;\n    always \@(posedge clk) '"$signal"'_q <= '"$signal"';\n$head$body$tail"
  }se' "$verilog" > "$work/registered.v"
grep -q "${signal}_q" "$work/registered.v" || { echo "error: no stage0 block in $verilog" >&2; exit 1; }

luts() {
  yosys -q -p "read_verilog $1; synth_xilinx -family xc5v -flatten -nowidelut -top skeinhw; tee -o $1.stat stat" >/dev/null
  awk '/^ +(LUT[1-6]|INV|SRL[A-Z0-9]*) / { s += $2 } END { print s }' "$1.stat"
}
cp "$verilog" "$work/as-generated.v"
before=$(luts "$work/as-generated.v")
after=$(luts "$work/registered.v")
echo "$preset: $before LUTs as generated, $after with slot 0's round reading a registered $signal ($((before - after)) fewer)"
