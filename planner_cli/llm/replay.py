"""Cassettes: recorded chat-completion exchanges, keyed by a hash of the request, and the two
HTTP transports that write (`Recorder`) and serve (`Replayer`) them under the real openai client.

Replaying at the HTTP level means instructor, its re-asks and our validation run exactly as
they did live. The key hashes the request body (model, messages, schema, options) with pydantic's
documentation links removed, so a pydantic upgrade alone does not invalidate cassettes. Headers
(and so the API key) are never recorded. Answers for the same key are served in recorded order.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

from planner_cli.errors import InputError, Problem
from planner_cli.io.files import atomic_write, dumps, read_data

KIND = "llm-cassette"
_DOC_LINK = re.compile(r"\n? *For further information visit https://errors\.pydantic\.dev/\S*")


def _normalize(value: Any) -> Any:
    if isinstance(value, str):
        return _DOC_LINK.sub("", value)
    if isinstance(value, dict):
        return {k: _normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalize(v) for v in value]
    return value


def request_key(body: bytes | str) -> str:
    """sha256 of the canonical JSON request body (pydantic doc links removed)."""
    try:
        data = json.loads(body)
    except (ValueError, TypeError):
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
        return hashlib.sha256(_normalize(text).encode("utf-8")).hexdigest()
    canonical = json.dumps(_normalize(data), ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _tail(body: bytes) -> str:
    """The last message of a request, shortened: enough to recognise an exchange by eye."""
    try:
        messages = json.loads(body).get("messages") or []
        content = messages[-1].get("content") if messages else ""
    except (ValueError, AttributeError):
        return ""
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    text = _DOC_LINK.sub("", text or "")
    return text if len(text) <= 300 else text[:300] + "…"


class Cassette:
    """A cassette file: `meta` (backend settings and what the run was), `interactions`."""

    def __init__(self, meta: dict[str, Any], interactions: list[dict[str, Any]]) -> None:
        self.meta = meta
        self.interactions = interactions

    @classmethod
    def load(cls, path: str | Path) -> Cassette:
        data = read_data(path)
        name = str(path)
        if not isinstance(data, dict) or data.get("kind") != KIND:
            raise InputError(name, [Problem("kind", f"expected {KIND!r}")])
        if data.get("version") != 1:
            raise InputError(
                name, [Problem("version", f"expected 1 (got {data.get('version')!r})")]
            )
        interactions = data.get("interactions")
        if not isinstance(interactions, list) or not all(
            isinstance(i, dict) and isinstance(i.get("key"), str) for i in interactions
        ):
            raise InputError(name, [Problem("interactions", "expected a list of {key, …}")])
        meta = data.get("meta") or {}
        if not isinstance(meta, dict):
            raise InputError(name, [Problem("meta", "expected a mapping")])
        return cls(meta, interactions)

    def save(self, path: str | Path) -> None:
        document = {
            "kind": KIND,
            "version": 1,
            "meta": self.meta,
            "interactions": self.interactions,
        }
        atomic_write(path, dumps(document))


def _response(status: int, body: Any, request: Any, headers: dict[str, str]) -> Any:
    import httpx2

    if isinstance(body, dict | list):
        return httpx2.Response(status, headers=headers, json=body, request=request)
    return httpx2.Response(
        status,
        headers={**headers, "content-type": "text/plain"},
        content=str(body).encode("utf-8"),
        request=request,
    )


class _Transport:
    """The parts of httpx2.BaseTransport the client uses."""

    def __enter__(self) -> _Transport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        pass


class Replayer(_Transport):
    """Serves a cassette. A request without a recorded answer gets a 404 marked not-retryable,
    and `misses` remembers its key so the backend can say what went wrong."""

    def __init__(self, cassette: Cassette) -> None:
        self.cassette = cassette
        self.queues: dict[str, deque[dict[str, Any]]] = defaultdict(deque)
        for interaction in cassette.interactions:
            self.queues[interaction["key"]].append(interaction)
        self.misses: list[str] = []

    def handle_request(self, request: Any) -> Any:
        import httpx2

        key = request_key(request.read())
        queue = self.queues.get(key)
        if not queue:
            self.misses.append(key)
            message = f"no recorded answer for request {key[:12]}"
            return _response(
                404, {"error": {"message": message}}, request, {"x-should-retry": "false"}
            )
        interaction = queue.popleft()
        error = interaction.get("error")
        if error == "timeout":
            raise httpx2.ReadTimeout("recorded time-out", request=request)
        if error:
            raise httpx2.ConnectError(f"recorded connection error: {error}", request=request)
        status = int(interaction.get("status", 200))
        # a recorded error is served again; if the client retries it, with a minimal back-off
        headers = {"retry-after-ms": "1"} if status >= 400 else {}
        return _response(status, interaction.get("body"), request, headers)


class Recorder(_Transport):
    """Passes requests to a real transport and appends every exchange to `interactions`."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.interactions: list[dict[str, Any]] = []

    def handle_request(self, request: Any) -> Any:
        import httpx2

        body = request.read()
        entry: dict[str, Any] = {"key": request_key(body), "request": {"last": _tail(body)}}
        try:
            response = self.inner.handle_request(request)
            response.read()
        except httpx2.TimeoutException:
            self.interactions.append({**entry, "error": "timeout"})
            raise
        except httpx2.TransportError as exc:
            self.interactions.append({**entry, "error": type(exc).__name__})
            raise
        try:
            parsed: Any = json.loads(response.content)
        except ValueError:
            parsed = response.content.decode("utf-8", "replace")
        self.interactions.append({**entry, "status": response.status_code, "body": parsed})
        keep = {
            k: v
            for k, v in response.headers.items()
            if k.lower() in ("content-type", "retry-after", "retry-after-ms", "x-should-retry")
        }
        return httpx2.Response(
            response.status_code, headers=keep, content=response.content, request=request
        )

    def close(self) -> None:
        self.inner.close()
