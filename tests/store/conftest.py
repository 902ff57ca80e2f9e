"""Session store fixtures: every backend behind one parametrized `backend` fixture.

SQLite runs on a temp file with a fake clock; Redis runs against a real `redis-server` started
on a free loopback port for the test session (skipped when the binary is not installed).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from planner_cli.store.base import SessionStore

REDIS_SERVER = "/usr/bin/redis-server"


class FakeClock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Backend:
    name: str
    store: SessionStore
    wait: Callable[[float], None]  # let `seconds` pass for the store's TTL clock
    corrupt: Callable[[str, bytes], None]  # write a raw, unreadable value under a session id


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("redis", reason="the redis package is not installed (extra: redis)")
    if not Path(REDIS_SERVER).exists() and shutil.which("redis-server") is None:
        pytest.skip(f"{REDIS_SERVER} is not installed (apt-get install -y redis-server)")
    binary = REDIS_SERVER if Path(REDIS_SERVER).exists() else str(shutil.which("redis-server"))
    port = _free_port()
    workdir = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        import redis

        client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"redis-server did not start on port {port}")
                time.sleep(0.05)
        client.close()
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(params=["sqlite", "redis"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        from planner_cli.store.sqlite import SQLiteStore

        clock = FakeClock()
        sqlite_store = SQLiteStore(tmp_path / "home" / "sessions.sqlite3", clock=clock)

        def corrupt_sqlite(session_id: str, raw: bytes) -> None:
            conn = sqlite_store._connect()
            conn.execute(
                "INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?)",
                (session_id, raw.decode("utf-8", "replace"), clock(), clock() + 60),
            )

        yield Backend("sqlite", sqlite_store, clock.advance, corrupt_sqlite)
        sqlite_store.close()
        return

    url = request.getfixturevalue("redis_url")
    import redis

    from planner_cli.store.redis_store import KEY_PREFIX, RedisStore

    raw_client = redis.Redis.from_url(url)
    raw_client.flushdb()
    redis_store = RedisStore(url)

    def corrupt_redis(session_id: str, raw: bytes) -> None:
        raw_client.set(KEY_PREFIX + session_id, raw, ex=60)

    def wait(seconds: float) -> None:
        time.sleep(seconds)

    yield Backend("redis", redis_store, wait, corrupt_redis)
    redis_store.close()
    raw_client.flushdb()
    raw_client.close()
