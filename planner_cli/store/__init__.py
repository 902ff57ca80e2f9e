"""Session snapshots between runs: `open_store(url)` picks the backend, `Snapshot` is the model.

URLs: None or `sqlite` → `<planner home>/sessions.sqlite3`; `sqlite:///abs/path` or
`sqlite:relative/path` → that file; `redis://…`, `rediss://…`, `unix://…` → Redis.
"""

from __future__ import annotations

from pathlib import Path

from planner_cli.errors import StoreError
from planner_cli.store.base import (
    DEFAULT_TTL_S,
    Conversation,
    SessionInfo,
    SessionStore,
    Snapshot,
    StageCompaction,
    Turn,
)
from planner_cli.store.compaction import compact, compact_snapshot, context_turns

__all__ = [
    "DEFAULT_TTL_S",
    "Conversation",
    "SessionInfo",
    "SessionStore",
    "Snapshot",
    "StageCompaction",
    "StoreError",
    "Turn",
    "compact",
    "compact_snapshot",
    "context_turns",
    "default_store_path",
    "open_store",
]


def default_store_path() -> Path:
    from planner_cli.settings import planner_home

    return planner_home() / "sessions.sqlite3"


def open_store(url: str | None = None, ttl_s: float = DEFAULT_TTL_S) -> SessionStore:
    """The session store named by `url` (see the module docstring); nothing connects yet."""
    if url is None or url.strip() in ("", "sqlite"):
        from planner_cli.store.sqlite import SQLiteStore

        return SQLiteStore(default_store_path(), ttl_s)
    url = url.strip()
    if url.startswith("sqlite:"):
        from planner_cli.store.sqlite import SQLiteStore

        path = url[len("sqlite:") :]
        if path.startswith("//"):
            path = path[2:]
        if not path:
            raise StoreError(f"session store {url!r}: give a file, e.g. sqlite:///tmp/s.sqlite3")
        return SQLiteStore(path, ttl_s)
    if url.startswith(("redis://", "rediss://", "unix://")):
        from planner_cli.store.redis_store import RedisStore

        return RedisStore(url, ttl_s)
    raise StoreError(
        f"unknown session store {url.split('://')[0]!r}: use sqlite (default),"
        " sqlite:///FILE or redis://HOST:PORT/DB"
    )
