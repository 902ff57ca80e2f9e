"""The LLM fault matrix: every way an OpenAI-compatible endpoint can fail or misbehave, run through
`planner plan` against the fake server on 127.0.0.1, maps to one documented outcome and exit code
(docs/reliability.md), and the preview is always whole and valid — never half-written.

The export has no pending work, so the outcomes do not depend on the solver: a plan of reads
followed by `done` completes (exit 0); a step the tools (or the fact guard) refuse is partial
(exit 3); an endpoint that never gives a usable plan falls back (exit 4, state unchanged).
Transport retries 1 and re-asks 1 keep the matrix fast; the time-out is 5 s (1 s in the
time-out cases, whose server waits 4 s), so a busy machine cannot turn a good answer into one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.fakes.openai_server import Delay, Error, FakeOpenAI, Raw, answer, closed_port_url
from tests.hardening.conftest import assert_clean, run_cli, write_doc
from tests.helpers_export import export

FAST = {"retry-after-ms": "1"}
SHORT = {"PLANNER_LLM__TIMEOUT_S": "1"}
READ = {"goal": "look", "steps": [{"id": "s1", "tool": "list_tasks", "args": {"status": "all"}}]}
DONE = {"goal": "look", "done": True, "summary": "看过了，无需改动。"}


def step_plan(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"goal": "x", "steps": list(steps)}


def no_pending_export() -> dict[str, Any]:
    """BASE without its pending items: [1] locked course, [2] embeddable course hosting [4],
    [3] an existing task event; nothing to lay out."""
    data = export()
    data["task_items"] = [i for i in data["task_items"] if i.get("status") == "applied"]
    return data


def completion_json(**overrides: Any) -> bytes:
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}
    body.update(overrides)
    return json.dumps(body).encode()


@dataclass
class Case:
    id: str
    script: list[Any]
    outcome: str
    code: int
    requests: int | None = None  # exact number of HTTP requests, when it is part of the rule
    note: str | None = None  # text expected in run.notes
    env: dict[str, str] = field(default_factory=dict)
    url: str | None = None  # instead of the fake server's


def never(item: Any, times: int = 12) -> list[Any]:
    return [item] * times


TRANSPORT = [
    Case("http-400", never(Error(400, "bad request")), "fallback", 4, 1, "HTTP 400"),
    Case("http-401", never(Error(401, "invalid api key")), "fallback", 4, 1, "HTTP 401"),
    Case("http-403", never(Error(403, "forbidden")), "fallback", 4, 1, "HTTP 403"),
    Case("http-404", never(Error(404, "model not found")), "fallback", 4, 1, "HTTP 404"),
    Case("http-429-always", never(Error(429, "slow down", FAST)), "fallback", 4, 2, "HTTP 429"),
    Case("http-429-once", [Error(429, "slow down", FAST), answer(DONE)], "completed", 0, 2),
    Case("http-500-always", never(Error(500, "boom", FAST)), "fallback", 4, 2, "HTTP 500"),
    Case("http-503-once", [Error(503, "busy", FAST), answer(DONE)], "completed", 0, 2),
    Case(
        "http-502-html",
        never(Raw(b"<html>502 Bad Gateway</html>", "text/html", 502)),
        "fallback",
        4,
        2,
        "HTTP 502",
    ),
    Case(
        "timeout-always",
        never(Delay(4.0, answer(DONE))),
        "fallback",
        4,
        2,
        "did not answer within 1 s",
        env=SHORT,
    ),
    Case("timeout-once", [Delay(4.0, answer(DONE)), answer(DONE)], "completed", 0, 2, env=SHORT),
    Case("endpoint-down", [], "fallback", 4, None, "cannot connect", url=closed_port_url()),
]
BODIES = [
    Case(
        "truncated-body",
        never(Raw(b'{"id": "x", "choices": [{"mess')),
        "fallback",
        4,
        2,
        "not JSON",
    ),
    Case("non-json-body", never(Raw(b"Service Unavailable")), "fallback", 4, 2, "not JSON"),
    Case("empty-body", never(Raw(b"")), "fallback", 4, 2, "not JSON"),
    Case(
        "error-object-with-200",
        never(Raw(b'{"error": {"message": "quota exceeded"}}')),
        "fallback",
        4,
        1,
        "unusable answer",
    ),
    Case("no-choices", never(Raw(completion_json())), "fallback", 4, 1, "unusable answer"),
    Case(
        "truncated-arguments",
        never(answer(None, raw_arguments='{"goal": "x", "steps": [{"id": "s1", "tool": "li')),
        "fallback",
        4,
        2,
        "no valid answer",
    ),
    Case(
        "reasoning-before-json-tools",
        [answer(READ, prefix="让我先想想……", reasoning="用户只想看看"), answer(DONE)],
        "completed",
        0,
        2,
    ),
    Case(
        "reasoning-before-json-json-schema",
        [answer(READ, prefix="Let me think. The plan is:"), answer(DONE, prefix="Done:")],
        "completed",
        0,
        2,
        env={"PLANNER_LLM__PROFILE": "vllm"},
    ),
    Case(
        "reasoning-before-json-md-json",
        [answer(READ, prefix="思考：先读再说。"), answer(DONE)],
        "completed",
        0,
        2,
        env={"PLANNER_LLM__PROFILE": "llamacpp"},
    ),
    Case(
        "think-block-json-schema",
        [
            answer(None, raw_arguments="<think>just read</think>\n" + json.dumps(READ)),
            answer(DONE),
        ],
        "completed",
        0,
        2,
        env={"PLANNER_LLM__PROFILE": "vllm"},
    ),
    Case(
        "huge-answer", [answer({**READ, "goal": "长" * 1_000_000}), answer(DONE)], "completed", 0, 2
    ),
    Case(
        "huge-reasoning", [answer(READ, prefix="想" * 2_000_000), answer(DONE)], "completed", 0, 2
    ),
]
MOVE_LOCKED = step_plan(
    {"id": "s1", "tool": "move", "args": {"task_id": 1, "new_day": 6, "new_slot_start": 1}}
)
PLANS = [
    Case(
        "unknown-tool",
        never(answer(step_plan({"id": "s1", "tool": "delete_all", "args": {}}))),
        "fallback",
        4,
        2,
        "no valid answer",
    ),
    Case(
        "unknown-tool-then-valid",
        [
            answer(step_plan({"id": "s1", "tool": "os.system", "args": {}})),
            answer(READ),
            answer(DONE),
        ],
        "completed",
        0,
        3,
    ),
    Case(
        "missing-task-id",
        never(answer(step_plan({"id": "s1", "tool": "get_task_info", "args": {"task_id": 999}}))),
        "fallback",
        4,
        2,
        "no valid answer",
    ),
    Case("move-locked-course", never(answer(MOVE_LOCKED)), "fallback", 4, 2, "no valid answer"),
    Case(
        "move-existing-task",
        never(
            answer(
                step_plan(
                    {
                        "id": "s1",
                        "tool": "move",
                        "args": {"task_id": 3, "new_day": 6, "new_slot_start": 1},
                    }
                )
            )
        ),
        "fallback",
        4,
        2,
        "no valid answer",
    ),
    Case(
        "unplace-course-refused-at-run-time",
        [answer(step_plan({"id": "s1", "tool": "unplace", "args": {"task_id": 2}})), answer(DONE)],
        "partial",
        3,
        2,
    ),
    Case(
        "cyclic-plan",
        never(
            answer(
                step_plan(
                    {
                        "id": "s1",
                        "tool": "list_tasks",
                        "args": {"status": "all"},
                        "depends_on": ["s2"],
                    },
                    {"id": "s2", "tool": "get_overview", "args": {}, "depends_on": ["s1"]},
                )
            )
        ),
        "fallback",
        4,
        2,
        "no valid answer",
    ),
    Case(
        "plan-of-1000-steps",
        never(
            answer(
                step_plan(
                    *({"id": f"s{i}", "tool": "get_overview", "args": {}} for i in range(1000))
                )
            )
        ),
        "fallback",
        4,
        2,
        "at most 40 steps",
    ),
    Case("wrong-schema", never(answer({"answer": 42})), "fallback", 4, 2, "no valid answer"),
    Case(
        "overflowing-numbers",
        never(
            answer(step_plan({"id": "s1", "tool": "rough_layout", "args": {"stability": 2**63}}))
        ),
        "fallback",
        4,
        2,
        "less than or equal to 100000",
    ),
    Case(
        "non-finite-numbers",
        never(
            answer(
                None,
                raw_arguments='{"goal": "x", "steps": [{"id": "s1", "tool": "query_range",'
                ' "args": {"day": NaN, "slot_start": 1e400, "slot_end": -Infinity}}]}',
            )
        ),
        "fallback",
        4,
        2,
        "no valid answer",
    ),
    Case("never-done", never(answer(READ)), "partial", 3, 2, "stopped after"),
    Case("done-at-once", [answer(DONE)], "completed", 0, 1),
]
MATRIX = TRANSPORT + BODIES + PLANS


def run_case(tmp_path, case: Case) -> tuple[Any, dict[str, Any], list[dict[str, Any]]]:
    src = write_doc(tmp_path / "e.json", no_pending_export(), "json")
    out = tmp_path / "p.json"
    events = tmp_path / "events.jsonl"
    with FakeOpenAI(case.script) as server:
        env = {
            "OPENAI_API_KEY": "sk-test-faults-0000",
            "OPENAI_BASE_URL": case.url or server.url,
            "PLANNER_MODEL": "fake-model",
            "PLANNER_LLM__TRANSPORT_RETRIES": "1",
            "PLANNER_LLM__MAX_RETRIES": "1",
            "PLANNER_LLM__TIMEOUT_S": "5",
            **case.env,
        }
        result = run_cli(
            "plan", src, "看看就好", "-o", out, "--events", events, "--max-rounds", "2", env=env
        )
        requests = list(server.requests)
    assert_clean(result, [out])
    preview = json.loads(out.read_text(encoding="utf-8"))
    lines = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    return result, preview, [*requests, *[{"event": e} for e in lines]]


@pytest.mark.parametrize("case", MATRIX, ids=[c.id for c in MATRIX])
def test_fault_matrix(home, tmp_path, case):
    result, preview, seen = run_case(tmp_path, case)
    requests = [r for r in seen if "body" in r]
    events = [r["event"] for r in seen if "event" in r]
    assert (result.code, preview["run"]["outcome"]) == (case.code, case.outcome), (
        result.err,
        preview["run"].get("notes"),
    )
    if case.requests is not None:
        assert len(requests) == case.requests
    if case.note is not None:
        assert any(case.note in n for n in preview["run"].get("notes") or []), preview["run"]
    # nothing half-written: the preview is whole, facts keep their slots, a fallback is the input
    original = {t["state_id"]: t["slots"] for t in preview["original_state"]["tasks"]}
    final = {t["state_id"]: t["slots"] for t in preview["state"]["tasks"]}
    assert original == final and preview["changes"] == []
    assert events[-1]["stage"] == "preview.done"
    if "reasoning" in case.id or "think" in case.id:
        assert "llm.reasoning" in [e["stage"] for e in events]
    if case.outcome == "fallback":
        assert "llm.error" in [e["stage"] for e in events]
        assert "preview written" in result.out


def test_the_matrix_is_documented():
    from tests.hardening.conftest import ROOT

    doc = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    missing = [c.id for c in MATRIX if f"`{c.id}`" not in doc]
    assert not missing, f"cases without a line in docs/reliability.md: {missing}"


def test_fallback_keeps_exactly_the_rough_layout(home, tmp_path):
    """With pending work, a fallback preview holds what `--llm none` gives: the rough layout."""
    src = write_doc(tmp_path / "e.json", export(), "json")
    base = run_cli("plan", src, "-o", tmp_path / "none.json", "--llm", "none")
    assert base.code in (0, 3), base.err
    with FakeOpenAI(never(Error(503, "down", FAST))) as server:
        env = {
            "OPENAI_API_KEY": "sk-test-faults-0000",
            "OPENAI_BASE_URL": server.url,
            "PLANNER_MODEL": "fake-model",
            "PLANNER_LLM__TRANSPORT_RETRIES": "0",
        }
        result = run_cli("plan", src, "排一下", "-o", tmp_path / "fb.json", env=env)
    assert result.code == 4, result.err
    none = json.loads((tmp_path / "none.json").read_text(encoding="utf-8"))
    fallback = json.loads((tmp_path / "fb.json").read_text(encoding="utf-8"))
    assert fallback["run"]["outcome"] == "fallback"
    assert fallback["state"] == none["state"] and fallback["changes"] == none["changes"]
    assert {c["by"] for c in fallback["changes"]} <= {"rough_layout"}


def test_batch_with_an_unusable_llm_falls_back_per_item(home, tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name in ("ann", "bob"):
        write_doc(inputs / f"{name}.json", export(), "json")
    out = tmp_path / "out"
    with FakeOpenAI(never(Error(503, "down", FAST), 20)) as server:
        env = {
            "OPENAI_API_KEY": "sk-test-faults-0000",
            "OPENAI_BASE_URL": server.url,
            "PLANNER_MODEL": "fake-model",
            "PLANNER_LLM__TRANSPORT_RETRIES": "0",
        }
        args = ["batch", inputs, "--out", out, "--workers", "1", "--llm", "openai"]
        result = run_cli(*args, "--instruction", "排一下", env=env)
    assert_clean(result)
    assert result.code == 4, result.err
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["outcomes"] == {"fallback": 2}
    for name in ("ann", "bob"):
        preview = json.loads((out / f"{name}.preview.json").read_text(encoding="utf-8"))
        assert preview["run"]["outcome"] == "fallback"
