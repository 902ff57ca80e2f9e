"""Backend specifics: the SQLite file's mode and journal, failures as StoreError, open_store URLs."""

from __future__ import annotations

import os
import socket
import sqlite3
import stat
from pathlib import Path

import pytest

from planner_cli.errors import StoreError
from planner_cli.store import Snapshot, open_store
from planner_cli.store.sqlite import SQLiteStore


def test_sqlite_file_is_created_private_and_in_wal_mode(tmp_path, monkeypatch):
    old = os.umask(0)  # even a permissive umask must not widen the file
    try:
        store = SQLiteStore(tmp_path / "home" / "sessions.sqlite3")
        store.save("s", Snapshot())
    finally:
        os.umask(old)
    path = tmp_path / "home" / "sessions.sqlite3"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    wal = Path(str(path) + "-wal")
    assert not wal.exists() or stat.S_IMODE(wal.stat().st_mode) == 0o600
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    store.close()


def test_sqlite_tightens_an_existing_world_readable_file(tmp_path):
    path = tmp_path / "sessions.sqlite3"
    path.touch(mode=0o644)
    os.chmod(path, 0o644)
    store = SQLiteStore(path)
    assert store.load("s") is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    store.close()


def test_sqlite_unusable_path_is_a_store_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = SQLiteStore(blocker / "sessions.sqlite3")
    with pytest.raises(StoreError, match="cannot open"):
        store.load("s")


def test_sqlite_garbage_file_is_a_store_error(tmp_path):
    path = tmp_path / "sessions.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    store = SQLiteStore(path)
    with pytest.raises(StoreError, match="session store"):
        store.save("s", Snapshot())


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unreachable_redis_is_a_store_error():
    pytest.importorskip("redis")
    store = open_store(f"redis://:secret@127.0.0.1:{_closed_port()}/0")
    with pytest.raises(StoreError, match="load failed") as info:
        store.load("s")
    assert "secret" not in str(info.value)
    with pytest.raises(StoreError, match="save failed"):
        store.save("s", Snapshot())


def test_open_store_defaults_to_sqlite_under_planner_home(tmp_path, monkeypatch):
    monkeypatch.setenv("PLANNER_HOME", str(tmp_path / "ph"))
    store = open_store(None)
    assert isinstance(store, SQLiteStore)
    assert store.path == tmp_path / "ph" / "sessions.sqlite3"
    store.save("s", Snapshot())
    assert (tmp_path / "ph" / "sessions.sqlite3").exists()
    store.close()


def test_open_store_urls(tmp_path):
    assert open_store(f"sqlite://{tmp_path}/x.sqlite3").path == tmp_path / "x.sqlite3"
    assert open_store("sqlite:rel.sqlite3").path == Path("rel.sqlite3")
    pytest.importorskip("redis")
    from planner_cli.store.redis_store import RedisStore

    assert isinstance(open_store("redis://127.0.0.1:1/0"), RedisStore)


@pytest.mark.parametrize("url", ["mongodb://x", "sqlite:", "ftp://h"])
def test_open_store_rejects_unknown_urls(url):
    with pytest.raises(StoreError):
        open_store(url)
