#!/bin/sh
# Regenerates the Yosys JSON netlists of the hand-written fixtures in this directory.
# Needs Yosys (Debian's 0.23: `apt-get install yosys`); about 5 s per design.
set -eu
cd "$(dirname "$0")"
for top in add64 mix64 subkey_mix64 tf256_round; do
    yosys -q -p "read_verilog $top.v; synth_xilinx -family xc5v -flatten -top $top; delete =A:blackbox; write_json $top.json"
done
