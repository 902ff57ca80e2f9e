"""The default session store: one SQLite file (WAL) under the planner home, mode 0600.

Each save, load and delete is one transaction. Expired rows read as a miss and are purged on
the next save; the clock is injectable so tests control expiry without sleeping.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from planner_cli.errors import StoreError
from planner_cli.store.base import (
    DEFAULT_TTL_S,
    SessionInfo,
    SessionStore,
    Snapshot,
    check_id,
    check_ttl,
)

FILE_MODE = 0o600
_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    saved_at REAL NOT NULL,
    expires_at REAL NOT NULL
)
"""


def _create_private(path: Path) -> None:
    """Create the database file with mode 0600 before SQLite opens it (no window of 0644)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, FILE_MODE)
    os.close(fd)
    os.chmod(path, FILE_MODE)


class SQLiteStore(SessionStore):
    def __init__(
        self,
        path: str | Path,
        ttl_s: float = DEFAULT_TTL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.ttl_s = check_ttl(ttl_s)
        self.clock = clock
        self._conn: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                _create_private(self.path)
                conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(_SCHEMA)
            except (OSError, sqlite3.Error) as exc:
                raise StoreError(f"session store {self.path}: cannot open: {exc}") from None
            self._conn = conn
        return self._conn

    @contextlib.contextmanager
    def _transaction(self, what: str) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise StoreError(f"session store {self.path}: {what} failed: {exc}") from None

    def save(self, session_id: str, snapshot: Snapshot, ttl_s: float | None = None) -> None:
        key = check_id(session_id)
        ttl = check_ttl(self.ttl_s if ttl_s is None else ttl_s)
        now = self.clock()
        data = snapshot.to_json()
        with self._transaction("save") as conn:
            conn.execute("DELETE FROM sessions WHERE expires_at <= ?", (now,))
            conn.execute(
                "INSERT INTO sessions (id, data, saved_at, expires_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET data = excluded.data,"
                " saved_at = excluded.saved_at, expires_at = excluded.expires_at",
                (key, data, now, now + ttl),
            )

    def load(self, session_id: str) -> Snapshot | None:
        key = check_id(session_id)
        with self._transaction("load") as conn:
            row = conn.execute(
                "SELECT data FROM sessions WHERE id = ? AND expires_at > ?", (key, self.clock())
            ).fetchone()
        if row is None:
            return None
        return Snapshot.from_json(row[0], key)

    def delete(self, session_id: str) -> None:
        key = check_id(session_id)
        with self._transaction("delete") as conn:
            conn.execute("DELETE FROM sessions WHERE id = ?", (key,))

    def list(self) -> list[SessionInfo]:
        with self._transaction("list") as conn:
            rows = conn.execute(
                "SELECT id, saved_at, expires_at, length(data) FROM sessions"
                " WHERE expires_at > ? ORDER BY id",
                (self.clock(),),
            ).fetchall()
        return [SessionInfo(r[0], r[1], r[2], r[3]) for r in rows]

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
