"""The openai backend against a real HTTP server on 127.0.0.1, through the real openai client and
instructor: modes, re-asks with the validation errors, transport retries, failures, reasoning."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner_cli.io.loader import load_any
from planner_cli.llm.backend import LLMInvalid, LLMUnavailable
from planner_cli.llm.openai_backend import (
    Endpoint,
    OpenAIBackend,
    resolve_endpoint,
    split_reasoning,
)
from planner_cli.model.plan import plan_model
from tests.fakes.openai_server import Delay, Error, FakeOpenAI, Raw, answer, closed_port_url

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-test-SECRET-0123456789"
VALID = {
    "goal": "move [6] to Friday evening",
    "steps": [
        {"id": "s1", "tool": "move", "args": {"task_id": 6, "new_day": 5, "new_slot_start": 9}}
    ],
}
INVALID = {
    "goal": "move a task that does not exist",
    "steps": [
        {"id": "s1", "tool": "move", "args": {"task_id": 99, "new_day": 5, "new_slot_start": 9}}
    ],
}


@pytest.fixture(scope="module")
def s0():
    return load_any(ROOT / "fixtures" / "states" / "s0.json").state


def backend(url: str, mode: str = "tools", **kw) -> OpenAIBackend:
    endpoint = Endpoint(
        profile="test",
        base_url=url,
        model="fake-model",
        mode=mode,
        api_key=KEY,
        transport_retries=kw.pop("retries", 2),
        timeout_s=kw.pop("timeout", 5.0),
        **kw,
    )
    return OpenAIBackend(endpoint)


def ask(b: OpenAIBackend, state, max_retries: int = 2):
    events: list[tuple[str, dict]] = []
    rejected: list[Exception] = []
    completion = b.complete(
        [{"role": "system", "content": "rules"}, {"role": "user", "content": "move it"}],
        plan_model(),
        context={"state": state},
        max_retries=max_retries,
        emit=lambda stage, **f: events.append((stage, f)),
        on_rejected=rejected.append,
    )
    return completion, events, rejected


@pytest.mark.parametrize("mode", ["tools", "json_schema", "md_json"])
def test_valid_plan_in_each_mode(s0, mode):
    with FakeOpenAI([answer(VALID)]) as server:
        completion, events, rejected = ask(backend(server.url, mode), s0)
    assert completion.value.steps[0].call_args() == {
        "task_id": 6,
        "new_day": 5,
        "new_slot_start": 9,
    }
    assert (completion.usage.calls, completion.usage.prompt_tokens) == (1, 100)
    assert not rejected
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {KEY}"
    body = request["body"]
    assert body["model"] == "fake-model" and body["temperature"] == 0
    if mode == "tools":
        assert body["tools"][0]["function"]["name"] == "Plan"
        assert "discriminator" in str(body["tools"][0]["function"]["parameters"])
    elif mode == "json_schema":
        assert body["response_format"]["type"] == "json_schema"
    else:
        assert "```json" in body["messages"][-1]["content"]


def test_invalid_plan_is_reasked_with_the_error(s0):
    with FakeOpenAI([answer(INVALID), answer(VALID)]) as server:
        completion, events, rejected = ask(backend(server.url), s0)
    assert completion.value.goal == VALID["goal"]
    assert completion.usage.calls == 2
    assert len(rejected) == 1 and "task 99 does not exist" in str(rejected[0])
    reask = server.requests[1]["body"]["messages"]
    assert "steps[0].args.task_id: task 99 does not exist" in reask[-1]["content"]
    assert [stage for stage, _ in events].count("llm.call") == 2


def test_reasks_are_bounded(s0):
    with FakeOpenAI([answer(INVALID)] * 3) as server, pytest.raises(LLMInvalid) as info:
        ask(backend(server.url), s0, max_retries=1)
    assert len(server.requests) == 2
    assert info.value.usage.calls == 2
    assert "task 99 does not exist" in info.value.errors[-1]


@pytest.mark.parametrize("status", [429, 500, 503])
def test_transient_http_errors_are_retried_by_the_client(s0, status):
    script = [Error(status, "busy", {"retry-after-ms": "1"}), answer(VALID)]
    with FakeOpenAI(script) as server:
        completion, _, _ = ask(backend(server.url), s0)
    assert len(server.requests) == 2
    assert completion.usage.calls == 1


def test_retry_with_the_clients_own_backoff(s0):
    """No retry-after header: openai backs off by itself (a few hundred ms), once."""
    with FakeOpenAI([Error(500, "oops"), answer(VALID)]) as server:
        completion, _, _ = ask(backend(server.url, retries=1), s0)
    assert len(server.requests) == 2 and completion.value.steps


def test_transport_retries_exhausted(s0):
    script = [Error(503, "overloaded", {"retry-after-ms": "1"})] * 3
    with FakeOpenAI(script) as server, pytest.raises(LLMUnavailable, match="HTTP 503: overloaded"):
        ask(backend(server.url, retries=2), s0)
    assert len(server.requests) == 3


def test_client_errors_are_not_retried_and_never_show_the_key(s0):
    with (
        FakeOpenAI([Error(401, f"Incorrect API key provided: {KEY}")]) as server,
        pytest.raises(LLMUnavailable) as info,
    ):
        ask(backend(server.url), s0)
    assert len(server.requests) == 1
    assert "HTTP 401" in str(info.value) and KEY not in str(info.value)


def test_timeout(s0):
    with (
        FakeOpenAI([Delay(1.0, answer(VALID))]) as server,
        pytest.raises(LLMUnavailable, match="did not answer within 0.2 s"),
    ):
        ask(backend(server.url, retries=0, timeout=0.2), s0)


def test_body_that_is_not_json(s0):
    with (
        FakeOpenAI([Raw(b"<html>502 Bad Gateway</html>")] * 3) as server,
        pytest.raises(LLMUnavailable, match="not JSON"),
    ):
        ask(backend(server.url, retries=0), s0, max_retries=0)


def test_endpoint_down(s0):
    with pytest.raises(LLMUnavailable, match="cannot connect"):
        ask(backend(closed_port_url(), retries=1), s0)


@pytest.mark.parametrize("mode", ["json_schema", "md_json", "tools"])
def test_reasoning_text_before_the_json(s0, mode):
    item = answer(VALID, prefix="先想一想：任务6应该放在周五晚上。", reasoning="deep thought")
    with FakeOpenAI([item]) as server:
        completion, events, _ = ask(backend(server.url, mode), s0)
    assert completion.value.goal == VALID["goal"]
    texts = [f["text"] for stage, f in events if stage == "llm.reasoning"]
    assert texts == ["deep thought", "先想一想：任务6应该放在周五晚上。"]


def test_think_block_is_reasoning_in_json_schema_mode(s0):
    import json

    raw = "<think>the user wants Friday</think>\n" + json.dumps(VALID)
    with FakeOpenAI([answer(None, raw_arguments=raw)]) as server:
        completion, events, _ = ask(backend(server.url, "json_schema"), s0)
    assert completion.value.goal == VALID["goal"]
    assert [f["text"] for s, f in events if s == "llm.reasoning"] == ["the user wants Friday"]


def test_extra_body_is_sent(s0):
    with FakeOpenAI([answer(VALID)]) as server:
        ask(backend(server.url, extra_body={"enable_thinking": False}), s0)
    assert server.requests[0]["body"]["enable_thinking"] is False


def test_split_reasoning():
    assert split_reasoning('{"a": 1}', "json_schema") == ("", '{"a": 1}')
    assert split_reasoning('note\n```json\n{"a": 1}\n```', "json_schema") == ("note", '{"a": 1}')
    assert split_reasoning('<think>x</think>{"a": 1}', "json_schema") == ("x", '{"a": 1}')
    assert split_reasoning("plain", "tools") == ("plain", "plain")
    assert split_reasoning("no json here", "json_schema") == ("", "no json here")
    # prose that itself starts with a bracket or contains braces
    assert split_reasoning('[9] is fixed; use {ref}.\n{"a": {"b": 1}}', "json_schema") == (
        "[9] is fixed; use {ref}.",
        '{"a": {"b": 1}}',
    )


# -- profiles -------------------------------------------------------------------------------

LLM = {
    "profile": "openai",
    "model": None,
    "profiles": {
        "openai": {"base_url": "https://api.example/v1", "model": "gpt-x", "mode": "tools"},
        "local": {
            "base_url": "http://127.0.0.1:8080/v1",
            "model": "m",
            "mode": "md_json",
            "api_key": "none",
        },
    },
}


def test_no_key_means_no_llm():
    assert resolve_endpoint(LLM, {}) is None


def test_environment_overrides_the_profile():
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    endpoint = resolve_endpoint({**LLM, "model": "from-env"}, env)
    assert endpoint is not None
    assert (endpoint.base_url, endpoint.model, endpoint.api_key) == (
        "http://127.0.0.1:9/v1",
        "from-env",
        KEY,
    )
    assert KEY not in repr(endpoint)


def test_local_profile_needs_no_key():
    endpoint = resolve_endpoint(LLM, {}, profile="local")
    assert endpoint is not None and endpoint.mode == "md_json"


def test_unknown_profile_and_mode_are_config_errors():
    from planner_cli.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown profile 'nope'"):
        resolve_endpoint(LLM, {"OPENAI_API_KEY": KEY}, profile="nope")
    bad = {**LLM, "profiles": {"openai": {"base_url": "x", "model": "m", "mode": "xml"}}}
    with pytest.raises(ConfigError, match="mode: expected one of"):
        resolve_endpoint(bad, {"OPENAI_API_KEY": KEY})
