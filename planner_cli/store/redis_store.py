"""The Redis session store (`--store redis://…`): one key `planner:session:<id>` per snapshot.

Values are JSON `{saved_at, snapshot}` written with `SET … EX ttl` (whole seconds, rounded up),
so Redis expires them. The `redis` package is imported when a store is opened.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable
from typing import Any

from planner_cli.errors import StoreError
from planner_cli.store.base import (
    DEFAULT_TTL_S,
    SessionInfo,
    SessionStore,
    Snapshot,
    check_id,
    check_ttl,
)

KEY_PREFIX = "planner:session:"


def _redact(url: str) -> str:
    """The URL without a password, for error messages."""
    if "@" not in url:
        return url
    scheme, _, rest = url.partition("://")
    return f"{scheme}://***@{rest.rpartition('@')[2]}"


class RedisStore(SessionStore):
    def __init__(
        self,
        url: str,
        ttl_s: float = DEFAULT_TTL_S,
        clock: Callable[[], float] = time.time,
        timeout_s: float = 5.0,
    ) -> None:
        try:
            import redis
        except ImportError:
            raise StoreError(
                "the Redis session store needs the `redis` package: pip install 'planner_cli[redis]'"
            ) from None
        self.url = url
        self.ttl_s = check_ttl(ttl_s)
        self.clock = clock
        self._errors: tuple[type[Exception], ...] = (redis.RedisError,)
        try:
            self._client: Any = redis.Redis.from_url(
                url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
            )
        except ValueError as exc:
            raise StoreError(f"session store {_redact(url)}: {exc}") from None

    def _fail(self, what: str, exc: Exception) -> StoreError:
        return StoreError(f"session store {_redact(self.url)}: {what} failed: {exc}")

    def save(self, session_id: str, snapshot: Snapshot, ttl_s: float | None = None) -> None:
        key = KEY_PREFIX + check_id(session_id)
        ttl = math.ceil(check_ttl(self.ttl_s if ttl_s is None else ttl_s))
        value = json.dumps(
            {"saved_at": self.clock(), "snapshot": json.loads(snapshot.to_json())},
            ensure_ascii=False,
        )
        try:
            self._client.set(key, value.encode("utf-8"), ex=ttl)
        except self._errors as exc:
            raise self._fail("save", exc) from None

    def _get(self, key: str) -> dict[str, Any] | None:
        try:
            raw = self._client.get(key)
        except self._errors as exc:
            raise self._fail("load", exc) from None
        if raw is None:
            return None
        try:
            value = json.loads(raw)
            if not isinstance(value, dict) or "snapshot" not in value:
                raise ValueError("not a planner session value")
        except ValueError as exc:
            sid = key[len(KEY_PREFIX) :]
            raise StoreError(
                f"session {sid!r}: the stored snapshot is unreadable ({exc}); delete it with"
                f" `planner session delete {sid}`"
            ) from None
        return value

    def load(self, session_id: str) -> Snapshot | None:
        sid = check_id(session_id)
        value = self._get(KEY_PREFIX + sid)
        if value is None:
            return None
        return Snapshot.from_json(json.dumps(value["snapshot"]), sid)

    def delete(self, session_id: str) -> None:
        key = KEY_PREFIX + check_id(session_id)
        try:
            self._client.delete(key)
        except self._errors as exc:
            raise self._fail("delete", exc) from None

    def list(self) -> list[SessionInfo]:
        out: list[SessionInfo] = []
        try:
            keys = sorted(self._client.scan_iter(match=KEY_PREFIX + "*", count=500))
            for raw_key in keys:
                key = raw_key.decode("utf-8")
                raw = self._client.get(key)
                ttl_ms = self._client.pttl(key)
                if raw is None or ttl_ms == -2:
                    continue  # expired between SCAN and GET
                try:
                    saved_at = float(json.loads(raw).get("saved_at", 0.0))
                except (ValueError, AttributeError, TypeError):
                    saved_at = 0.0
                expires = self.clock() + ttl_ms / 1000 if ttl_ms >= 0 else None
                out.append(SessionInfo(key[len(KEY_PREFIX) :], saved_at, expires, len(raw)))
        except self._errors as exc:
            raise self._fail("list", exc) from None
        return out

    def close(self) -> None:
        with contextlib.suppress(*self._errors):
            self._client.close()
