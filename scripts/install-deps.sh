#!/usr/bin/env bash
# Installs the Debian packages the tests use when they are missing: Icarus Verilog, Verilator,
# Yosys (simulation of the generated Verilog, lint, and the estimator's netlist path),
# rsvg-convert (the Pareto plot rendered to PNG), and GTKWave with a virtual X server (the
# `--viewer` tests load the save file headless).
# Safe to run again: it does nothing when everything is there.
set -euo pipefail

need=()
command -v iverilog >/dev/null 2>&1 || need+=(iverilog)
command -v verilator >/dev/null 2>&1 || need+=(verilator)
command -v yosys >/dev/null 2>&1 || need+=(yosys)
# The estimator's plot test renders the Pareto plot to PNG (skipped, and says so, without it).
command -v rsvg-convert >/dev/null 2>&1 || need+=(librsvg2-bin)
command -v gtkwave >/dev/null 2>&1 || need+=(gtkwave)
# xvfb-run (package xvfb) needs xauth.
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb xauth)
# Verilator compiles its models with a C++ compiler and make.
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)

if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi

echo "installing: ${need[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "error: need root (or sudo) to install: ${need[*]}" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
