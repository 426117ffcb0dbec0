"""``skeinhw explore``: design-space studies with real synthesis, on Ray.

A study is a grid of points (schedule, ``--set`` fields, lean or full core, flow, flow
arguments, seed). Each point's Verilog goes through a real flow (Yosys for the Virtex-5
netlist path, Yosys and nextpnr for the ECP5) as a Ray task; the driver alone writes one
record per point to a JSON-lines store keyed by the content hash of what ran, so a rerun runs
nothing twice and an interrupted study resumes. ``--guided`` lets the estimator pick which
points to run. Modules: :mod:`.study` (points), :mod:`.store` (records), :mod:`.flows` (the
tools), :mod:`.engine` (Ray), :mod:`.guided` (the model-guided rounds) and :mod:`.refit` (its
per-family fit and bands), :mod:`.report` (front table and Pareto SVG), :mod:`.cli` (the
command line); ``skeinhw explore table``: :mod:`.ecp5data` (the ECP5 rows from a store),
:mod:`.ecp5table` (the README's table of them), :mod:`.tablecmd` (its command line).
"""

from .errors import ExploreError

__all__ = ["ExploreError"]
