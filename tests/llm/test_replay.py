"""Cassettes: request keys, recording through the real client, replaying offline, misses."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from planner_cli.errors import InputError
from planner_cli.io.loader import load_any
from planner_cli.llm.backend import LLMUnavailable
from planner_cli.llm.replay import Cassette, Recorder, Replayer, request_key
from planner_cli.llm.select import save_recording, select_backend
from planner_cli.model.plan import plan_model
from tests.fakes.openai_server import Delay, Error, FakeOpenAI, answer, closed_port_url

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-record-SECRET-77"
INVALID = {"goal": "x", "steps": [{"id": "s1", "tool": "get_task_info", "args": {"task_id": 99}}]}
VALID = {"goal": "look", "steps": [{"id": "s1", "tool": "get_task_info", "args": {"task_id": 6}}]}
LLM = {
    "profile": "openai",
    "profiles": {"openai": {"base_url": "x", "model": "m", "mode": "tools"}},
}


@pytest.fixture(scope="module")
def s0():
    return load_any(ROOT / "fixtures" / "states" / "s0.json").state


def ask(backend, state, content="show me task 6"):
    rejected: list[Exception] = []
    completion = backend.complete(
        [{"role": "user", "content": content}],
        plan_model(),
        context={"state": state},
        max_retries=2,
        emit=lambda *a, **k: None,
        on_rejected=rejected.append,
    )
    return completion, rejected


def test_request_key_is_canonical_and_ignores_pydantic_doc_links():
    a = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    b = json.dumps({"messages": [{"content": "hi", "role": "user"}], "model": "m"})
    assert request_key(a) == request_key(b)
    link = "bad\n    For further information visit https://errors.pydantic.dev/2.14/v/value_error"
    newer = "bad\n    For further information visit https://errors.pydantic.dev/2.99/v/value_error"
    assert request_key(json.dumps({"m": link})) == request_key(json.dumps({"m": newer}))
    assert request_key(json.dumps({"m": "bad"})) == request_key(json.dumps({"m": link}))
    assert request_key(json.dumps({"m": "other"})) != request_key(json.dumps({"m": "bad"}))


def record(tmp_path, s0, script, env_url=None):
    with FakeOpenAI(script) as server:
        env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": env_url or server.url}
        llm = {**LLM, "transport_retries": 1}
        selected = select_backend("openai", llm, env, record=str(tmp_path / "c.json"))
        try:
            result = ask(selected.backend, s0)
        except LLMUnavailable as exc:
            result = exc
        save_recording(selected, str(tmp_path / "c.json"), {"instruction": "show me task 6"})
    return result, tmp_path / "c.json"


def test_record_and_replay_with_reasks(tmp_path, s0):
    (completion, rejected), path = record(tmp_path, s0, [answer(INVALID), answer(VALID)])
    assert completion.usage.calls == 2 and len(rejected) == 1
    text = path.read_text(encoding="utf-8")
    assert KEY not in text
    cassette = Cassette.load(path)
    assert cassette.meta["endpoint"]["model"] == "m" and cassette.meta["run"]["instruction"]
    assert [i["status"] for i in cassette.interactions] == [200, 200]
    assert "task 99 does not exist" in cassette.interactions[1]["request"]["last"]
    replay = select_backend(f"replay:{path}", LLM, {})
    again, rejected_again = ask(replay.backend, s0)
    assert again.value.dump() == completion.value.dump()
    assert again.usage == completion.usage and len(rejected_again) == 1
    assert replay.backend.name == "replay"


def test_recorded_retryable_errors_replay_quickly(tmp_path, s0):
    script = [Error(429, "slow down", {"retry-after-ms": "1"}), answer(VALID)]
    (completion, _), path = record(tmp_path, s0, script)
    assert [i["status"] for i in Cassette.load(path).interactions] == [429, 200]
    replayed, _ = ask(select_backend(f"replay:{path}", LLM, {}).backend, s0)
    assert replayed.value.dump() == completion.value.dump()


def test_recorded_failure_replays_as_failure(tmp_path, s0):
    error, path = record(tmp_path, s0, [], env_url=closed_port_url())
    assert isinstance(error, LLMUnavailable)
    kinds = [i.get("error") for i in Cassette.load(path).interactions]
    assert kinds == ["ConnectError", "ConnectError"]  # the first try and one transport retry
    with pytest.raises(LLMUnavailable, match="cannot connect"):
        ask(select_backend(f"replay:{path}", LLM, {}).backend, s0)


def test_recorded_timeout(tmp_path, s0):
    with FakeOpenAI([Delay(1.0, answer(VALID))] * 2) as server:
        env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url}
        llm = {**LLM, "transport_retries": 0, "timeout_s": 0.2}
        selected = select_backend("openai", llm, env, record=str(tmp_path / "t.json"))
        with pytest.raises(LLMUnavailable):
            ask(selected.backend, s0)
        save_recording(selected, str(tmp_path / "t.json"), {})
    assert [i["error"] for i in Cassette.load(tmp_path / "t.json").interactions] == ["timeout"]


def test_miss_is_an_input_error_naming_the_cassette(tmp_path, s0):
    _, path = record(tmp_path, s0, [answer(VALID)])
    backend = select_backend(f"replay:{path}", LLM, {}).backend
    with pytest.raises(InputError) as caught:
        ask(backend, s0, content="something else")
    (line,) = caught.value.lines()
    assert re.fullmatch(
        rf"error: {re.escape(str(path))}: no recorded answer for request [0-9a-f]{{12}}: .*"
        r"record it again with --llm openai --record",
        line,
    )


def test_replayer_serves_answers_of_one_key_in_order():
    import httpx2

    body = b'{"model": "m"}'
    key = request_key(body)
    cassette = Cassette(
        {},
        [
            {"key": key, "status": 200, "body": {"n": 1}},
            {"key": key, "status": 200, "body": {"n": 2}},
        ],
    )
    replayer = Replayer(cassette)
    request = httpx2.Request("POST", "http://replay.invalid/v1/chat/completions", content=body)
    assert [json.loads(replayer.handle_request(request).content)["n"] for _ in range(2)] == [1, 2]
    missed = replayer.handle_request(request)
    assert missed.status_code == 404 and missed.headers["x-should-retry"] == "false"


def test_recorder_keeps_no_headers():
    import httpx2

    def handler(request):
        return httpx2.Response(
            200, headers={"set-cookie": "s=1", "retry-after": "1"}, json={"ok": 1}
        )

    recorder = Recorder(httpx2.MockTransport(handler))
    request = httpx2.Request(
        "POST",
        "http://x/v1/chat/completions",
        headers={"authorization": f"Bearer {KEY}"},
        content=b'{"messages": []}',
    )
    response = recorder.handle_request(request)
    assert "set-cookie" not in response.headers and response.headers["retry-after"] == "1"
    assert KEY not in json.dumps(recorder.interactions)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"kind": "other", "version": 1, "interactions": []}, "kind: expected 'llm-cassette'"),
        ({"kind": "llm-cassette", "version": 2, "interactions": []}, "version: expected 1 (got 2)"),
        (
            {"kind": "llm-cassette", "version": 1, "interactions": [{"no": "key"}]},
            "interactions: expected a list",
        ),
    ],
)
def test_bad_cassettes(tmp_path, content, problem):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(problem)):
        Cassette.load(path)
