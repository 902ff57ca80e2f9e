"""A real HTTP server on 127.0.0.1 that speaks the chat-completions API with scripted answers.

Each request takes the next item of the script: `answer(payload)` is shaped after the request
(a tool call when the request offers tools, the JSON as content when it asks for a JSON
response format, a ```json block otherwise, as instructor's md_json mode expects); `error`,
`raw` and `delay` produce failures. An exhausted script answers 500 with x-should-retry false.
Every request is kept (path, headers, parsed body) for assertions. Stops with its context.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_DELAY_S = 5.0


@dataclass
class Answer:
    payload: Any
    reasoning: str | None = None  # sent as message.reasoning_content
    prefix: str | None = None  # text before the JSON in the content
    usage: tuple[int, int] = (100, 20)
    raw_arguments: str | None = None  # tool-call arguments / JSON text sent verbatim


@dataclass
class Error:
    status: int
    message: str = "error"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Raw:
    body: bytes
    content_type: str = "application/json"
    status: int = 200


@dataclass
class Delay:
    seconds: float
    then: Any = None


def answer(payload: Any, **kw: Any) -> Answer:
    return Answer(payload, **kw)


def completion_body(request: dict[str, Any], item: Answer) -> dict[str, Any]:
    text = (
        item.raw_arguments
        if item.raw_arguments is not None
        else json.dumps(item.payload, ensure_ascii=False)
    )
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if request.get("tools"):
        name = request["tools"][0]["function"]["name"]
        message["tool_calls"] = [
            {"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}
        ]
        if item.prefix:
            message["content"] = item.prefix
    elif request.get("response_format"):
        message["content"] = (item.prefix + "\n" if item.prefix else "") + text
    else:
        message["content"] = (item.prefix + "\n" if item.prefix else "") + f"```json\n{text}\n```"
    if item.reasoning:
        message["reasoning_content"] = item.reasoning
    prompt, completion = item.usage
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


class FakeOpenAI:
    """`with FakeOpenAI(script) as server:` → `server.url` is the base URL (…/v1)."""

    def __init__(self, script: Iterable[Any] = ()) -> None:
        self.script: list[Any] = list(script)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with fake.lock:
                    fake.requests.append(
                        {
                            "path": self.path,
                            "headers": {k.lower(): v for k, v in self.headers.items()},
                            "body": body,
                        }
                    )
                    item = fake.script.pop(0) if fake.script else None
                fake.respond(self, body, item)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        # a short poll interval: shutdown() waits up to one interval, at every test's end
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def add(self, *items: Any) -> None:
        with self.lock:
            self.script.extend(items)

    def respond(self, handler: BaseHTTPRequestHandler, request: dict[str, Any], item: Any) -> None:
        if callable(item) and not isinstance(item, Answer | Error | Raw | Delay):
            item = item(request)
        if isinstance(item, Delay):
            time.sleep(min(item.seconds, MAX_DELAY_S))
            item = item.then
        if item is None:
            item = Error(500, "script exhausted", {"x-should-retry": "false"})
        if isinstance(item, Answer):
            self._send(handler, 200, json.dumps(completion_body(request, item)).encode(), {})
        elif isinstance(item, Error):
            body = json.dumps({"error": {"message": item.message, "type": "fake"}}).encode()
            self._send(handler, item.status, body, item.headers)
        elif isinstance(item, Raw):
            self._send(handler, item.status, item.body, {"content-type": item.content_type})
        else:
            raise TypeError(f"unknown script item {item!r}")

    @staticmethod
    def _send(handler: Any, status: int, body: bytes, headers: dict[str, str]) -> None:
        try:
            handler.send_response(status)
            handler.send_header("content-type", headers.pop("content-type", "application/json"))
            for key, value in headers.items():
                handler.send_header(key, value)
            handler.send_header("content-length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (time-out test)


def closed_port_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens (the port was just released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


Script = Callable[[dict[str, Any]], Any]
