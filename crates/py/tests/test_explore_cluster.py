"""`skeinhw explore` on a real Ray cluster of two nodes on the loopback: a head and a second
node started by `ray start` as separate processes, six 256-bit lean cores through Yosys
(`v5-netlist`), the second node's raylet killed by its PID while points run. Every point
ends in the store once, with the figures of a serial run; a second run starts no tool."""

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("skeinhw.explore")
pytest.importorskip("ray")
if shutil.which("yosys") is None:
    pytest.skip("needs the system Yosys (apt-get install yosys)", allow_module_level=True)

SIX = ["long-iter-256", "long-ks1-256", "long-outshare-256", "long-inshare-256",
       "long-split-256", "long-overlap-256"]
RAY = str(Path(sys.executable).with_name("ray"))
# Nothing beyond the loopback, no usage statistics.
ENV = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0",
       "RAY_DISABLE_IMPORT_WARNING": "1"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def study(out, *extra):
    args = [sys.executable, "-m", "skeinhw.explore", "--no-progress", "--yosys", "system",
            "--core", "lean", "--flow", "v5-netlist", "--out", str(out), *extra]
    for s in SIX:
        args += ["--schedule", s]
    return args


def raylet_pid(node_manager_port):
    """The raylet of the node started with this --node-manager-port (found in /proc)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"raylet") and \
                f"--node_manager_port={node_manager_port}".encode() in cmd:
            return int(pid)
    return None


def ray_pids(temp):
    """Every process of the test's cluster: those naming its temp dir, and their children."""
    parent, named = {}, set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        parent[int(pid)] = int(stat.rsplit(")", 1)[1].split()[1])
        if temp.encode() in cmd and int(pid) != os.getpid():
            named.add(int(pid))
    found, grew = set(named), True
    while grew:
        kids = {p for p, pp in parent.items() if pp in found} - found
        found |= kids
        grew = bool(kids)
    return found


@pytest.fixture
def cluster(monkeypatch):
    port, worker_nm = free_port(), free_port()
    temp = tempfile.mkdtemp(prefix="rayt", dir="/tmp")  # short: Ray's socket paths
    # Ray 2.5x starts a head with token authentication: the test's own token, for every
    # process of the test (head, second node, driver), in the temp dir (~/.ray untouched).
    token = os.path.join(temp, "auth_token")
    with open(token, "w") as f:
        f.write(secrets.token_hex(32))
    ENV.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=token)
    common = ["--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--disable-usage-stats"]
    work_dirs = set(Path(tempfile.gettempdir()).glob("skeinhw-explore-*"))
    try:
        start([RAY, "start", "--head", "--port", str(port), "--temp-dir", temp,
               "--include-dashboard=false", *common])
        start([RAY, "start", "--address", f"127.0.0.1:{port}", "--node-manager-port",
               str(worker_nm), *common])
        yield f"127.0.0.1:{port}", worker_nm
    finally:
        # This cluster's processes alone, by PID (`ray stop --force` would stop every Ray of
        # this user on the machine).
        for pid in ray_pids(temp):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(temp, ignore_errors=True)
        # The work directory of the point that was running on the killed node.
        for d in set(Path(tempfile.gettempdir()).glob("skeinhw-explore-*")) - work_dirs:
            shutil.rmtree(d, ignore_errors=True)


def start(argv):
    r = subprocess.run(argv, env=ENV, capture_output=True, text=True)
    assert r.returncode == 0, f"{' '.join(argv[:3])}: {r.stderr[-1500:]}"


def records(out):
    return [json.loads(x) for x in (out / "results.jsonl").read_bytes().splitlines()]


def test_a_node_killed_mid_study_loses_no_point_and_repeats_none(tmp_path, cluster):
    address, worker_nm = cluster
    serial = tmp_path / "serial"
    subprocess.run(study(serial, "--serial"), env=ENV, check=True, capture_output=True)
    want = {r["key"]: r["figures"] for r in records(serial)}
    assert len(want) == 6 and all(r["status"] == "ok" for r in records(serial))

    out = tmp_path / "cluster"
    proc = subprocess.Popen(study(out, "--address", address), env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Kill the second node's raylet while its point runs (before half the study is done).
    victim = raylet_pid(worker_nm)
    assert victim is not None, "the second node's raylet"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not busy_yosys():
        time.sleep(0.2)
    assert busy_yosys(), "a point running on each node"
    time.sleep(1)
    os.kill(victim, signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=900)
    assert proc.returncode == 0, stderr.decode()[-2000:]
    got = records(out)
    assert len(got) == 6 and len({r["key"] for r in got}) == 6
    assert {r["key"]: r["figures"] for r in got} == want
    assert all(r["status"] == "ok" for r in got)

    # Again: no tool starts, nothing is written.
    before = (out / "results.jsonl").read_bytes()
    again = subprocess.run(study(out, "--address", address), env=ENV, capture_output=True)
    assert again.returncode == 0, again.stderr.decode()[-2000:]
    assert (out / "results.jsonl").read_bytes() == before


def busy_yosys():
    """Two of the study's Yosys processes running (in its work directories): a point on each
    node."""
    n = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "yosys" and \
                    "skeinhw-explore-" in os.readlink(f"/proc/{pid}/cwd"):
                n += 1
        except OSError:
            pass
    return n >= 2
