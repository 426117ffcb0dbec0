"""The results store: JSON lines, one record per point, written by the driver alone.

``results.jsonl`` in the study directory. Each line is one JSON object with
``schema_version`` (:data:`SCHEMA_VERSION`), ``key`` (the SHA-256 of the Verilog text, flow,
tool versions, arguments and seed: :func:`point_key`), ``point``, ``status`` (``ok``,
``failed``, ``timeout``, ``oom``), ``reason``, ``log_tail``, ``figures`` (measured), ``model``
(the estimator's figures beside them), ``tools`` (exact versions), ``args`` (exact command
lines), ``time_limit_s``, ``wall_s``, ``node`` and ``finished``, with ``label``,
``schedule_name`` and ``verilog_sha256``. A record is appended as one whole
line and fsynced before the next task's result is looked at; a crash can leave at most a last
line without its newline, which :meth:`Store.open` detects, ignores and cuts off before the
next append. Any other damage is refused (one line naming the file and line), the file
untouched.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Iterable

from .errors import ExploreError

SCHEMA_VERSION = 1
FILE_NAME = "results.jsonl"
REQUIRED = ("schema_version", "key", "point", "status")
STATUSES = ("ok", "failed", "timeout", "oom")


def point_key(verilog: str, flow: str, tools: dict[str, str], args: Iterable[str], seed) -> str:
    """The content hash that names a point's record: what ran, with what, and how."""
    h = hashlib.sha256()
    blob = json.dumps(
        {
            "verilog_sha256": hashlib.sha256(verilog.encode()).hexdigest(),
            "flow": flow,
            "tools": tools,
            "args": list(args),
            "seed": seed,
        },
        sort_keys=True,
    )
    h.update(blob.encode())
    return h.hexdigest()


class Store:
    """The records of one study directory, by key (the last record of a key wins)."""

    def __init__(self, path: str, records: dict[str, dict[str, Any]], good_len: int, torn: bool):
        self.path = path
        self.records = records
        self._good_len = good_len
        self.torn = torn

    @classmethod
    def open(cls, directory: str) -> "Store":
        """Reads the store of ``directory`` (none yet: empty). Raises :class:`ExploreError`
        on a damaged line; a torn last line (no newline) is noted, not read."""
        path = os.path.join(directory, FILE_NAME)
        try:
            data = open(path, "rb").read()
        except FileNotFoundError:
            return cls(path, {}, 0, False)
        except OSError as e:
            raise ExploreError(f"{path}: cannot read the store: {e.strerror}") from None
        records: dict[str, dict[str, Any]] = {}
        end = data.rfind(b"\n") + 1
        torn = end < len(data)
        for number, line in enumerate(data[:end].split(b"\n")[:-1], start=1):
            r = parse_line(path, number, line)
            records[r["key"]] = r
        return cls(path, records, end, torn)

    def lock(self) -> None:
        """One driver per store: an exclusive lock held until this process ends."""
        import fcntl

        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        self._lock = open(self.path + ".lock", "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ExploreError(f"{self.path}: in use by another skeinhw explore") from None

    def get(self, key: str) -> dict[str, Any] | None:
        return self.records.get(key)

    def append(self, record: dict[str, Any]) -> None:
        """Appends one record as a whole line and fsyncs it (a torn tail is cut off first)."""
        record = {"schema_version": SCHEMA_VERSION, **record}
        line = json.dumps(record, sort_keys=True, separators=(",", ":")).encode() + b"\n"
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            if self.torn and size > self._good_len:
                os.ftruncate(fd, self._good_len)  # the torn tail read at open, never after
                self.torn = False
            elif size != self._good_len:
                raise ExploreError(f"{self.path}: changed by another process since it was read")
            os.lseek(fd, self._good_len, os.SEEK_SET)
            written = 0
            while written < len(line):
                written += os.write(fd, line[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
        self._good_len += len(line)
        self.records[record["key"]] = record


def parse_line(path: str, number: int, line: bytes) -> dict[str, Any]:
    where = f"{path}:{number}"
    try:
        r = json.loads(line)
    except ValueError as e:
        raise ExploreError(f"{where}: damaged store line (not JSON: {e})") from None
    if not isinstance(r, dict) or any(k not in r for k in REQUIRED):
        raise ExploreError(f"{where}: damaged store line (a record needs {', '.join(REQUIRED)})")
    if r["schema_version"] != SCHEMA_VERSION:
        raise ExploreError(
            f"{where}: store schema_version {r['schema_version']}, this skeinhw reads "
            f"{SCHEMA_VERSION}"
        )
    if r["status"] not in STATUSES:
        raise ExploreError(f"{where}: damaged store line (status {r['status']!r})")
    return r

