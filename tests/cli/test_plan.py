"""`planner plan` end to end: the real openai client and instructor against a fake server on
127.0.0.1, cassettes, plan files, exit codes 0/1/3/4, and the API key in no output at all.

S0 (fixtures/states/s0.json) is run with --no-rough so these tests do not depend on the solver:
[4] 线代2 and [7] 杂项 are pending, [1] is a locked course, [3] [5] [6] are suggested.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import FIXTURES
from tests.fakes.openai_server import Delay, Error, FakeOpenAI, Raw, answer, closed_port_url

S0 = FIXTURES / "states" / "s0.json"
KEY = "sk-live-DO-NOT-LEAK-4f1c2a9e"
PLACE_BOTH = {
    "goal": "place the two pending tasks",
    "steps": [
        {"id": "s1", "tool": "place", "args": {"task_id": 7, "day": 5, "slot_start": 1}},
        {
            "id": "s2",
            "tool": "query_available_slots",
            "args": {"day": 2, "after_section": 6, "limit": 1},
        },
        {
            "id": "s3",
            "tool": "place",
            "args": {
                "task_id": 4,
                "day": {"ref": "s2.slots[0].day"},
                "slot_start": {"ref": "s2.slots[0].slot_start"},
            },
            "depends_on": ["s2"],
        },
    ],
}
DONE = {"goal": "place the two pending tasks", "done": True, "summary": "两个任务都已安排。"}
LOCKED = {"goal": "x", "steps": [{"id": "s1", "tool": "unplace", "args": {"task_id": 1}}]}
CONFLICT = {
    "goal": "x",
    "steps": [
        {"id": "s1", "tool": "move", "args": {"task_id": 6, "new_day": 3, "new_slot_start": 1}}
    ],
}


@pytest.fixture
def env(monkeypatch):
    """A clean LLM environment; `env(url)` points the openai backend at a server."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PLANNER_MODEL", "PLANNER_LLM__PROFILE"):
        monkeypatch.delenv(name, raising=False)

    def point(url: str) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("PLANNER_MODEL", "fake-model")
        monkeypatch.setenv("PLANNER_LLM__TRANSPORT_RETRIES", "1")
        monkeypatch.setenv("PLANNER_LLM__TIMEOUT_S", "1")

    return point


def plan(planner, tmp_path, *args, instruction="安排好待办任务"):
    out = tmp_path / "preview.json"
    events = tmp_path / "events.jsonl"
    result = planner("plan", S0, instruction, "-o", out, "--events", events, "--no-rough", *args)
    preview = json.loads(out.read_text(encoding="utf-8")) if out.exists() else None
    lines = events.read_text(encoding="utf-8").splitlines() if events.exists() else []
    return result, preview, [json.loads(line) for line in lines], out, events


def assert_no_key(result, *paths: Path) -> None:
    assert KEY not in result.out and KEY not in result.err
    for path in paths:
        if path.exists():
            assert KEY not in path.read_text(encoding="utf-8"), path


def test_completed_run_against_the_fake_server(planner, tmp_path, env):
    with FakeOpenAI([answer(PLACE_BOTH, reasoning="先放杂项"), answer(DONE)]) as server:
        env(server.url)
        result, preview, events, out, ev = plan(planner, tmp_path, "-v")
    assert result.code == 0, result.err
    run = preview["run"]
    assert run["outcome"] == "completed" and run["llm_calls"] == 2
    assert run["prompt_tokens"] == 200 and run["completion_tokens"] == 40
    assert [s["status"] for s in run["rounds"][0]["steps"]] == ["success"] * 3
    assert preview["generator"]["llm"] == {"backend": "openai", "model": "fake-model"}
    assert {c["state_id"]: c["by"] for c in preview["changes"]} == {4: "s3", 7: "s1"}
    assert preview["summary"].startswith("两个任务都已安排。")
    stages = [e["stage"] for e in events]
    assert stages[0] == "plan.round" and stages[-1] == "preview.done"
    assert "llm.reasoning" in stages and "step.result" in stages
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert "[llm.reasoning]" in result.err and "先放杂项" in result.err
    assert "preview written to" in result.out
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {KEY}"
    assert_no_key(result, out, ev)


def test_reask_then_valid(planner, tmp_path, env):
    with FakeOpenAI([answer(LOCKED), answer(PLACE_BOTH), answer(DONE)]) as server:
        env(server.url)
        result, preview, events, out, ev = plan(planner, tmp_path)
    assert result.code == 0
    (rejected,) = [e for e in events if e["stage"] == "plan.rejected"]
    assert rejected["errors"] == [
        "steps[0].args.task_id: [1]高等数学 is a locked course; it never moves"
    ]
    assert "[1]高等数学 is a locked course" in server.requests[1]["body"]["messages"][-1]["content"]


@pytest.mark.parametrize(
    "script",
    [
        [answer(LOCKED)] * 3,  # never valid
        [Error(500, "boom", {"retry-after-ms": "1"})] * 2,  # server error, retries spent
        [Raw(b"not json at all")] * 6,  # garbage
        [Delay(1.5, answer(DONE))] * 2,  # time-out
    ],
    ids=["invalid", "http-500", "not-json", "timeout"],
)
def test_unusable_llm_falls_back_with_exit_4(planner, tmp_path, env, script):
    with FakeOpenAI(script) as server:
        env(server.url)
        result, preview, events, out, ev = plan(planner, tmp_path)
    assert result.code == 4, result.err
    assert preview["run"]["outcome"] == "fallback"
    assert preview["changes"] == []  # the rough layout only (here: none)
    assert "llm.error" in [e["stage"] for e in events]
    assert_no_key(result, out, ev)


def test_endpoint_down_falls_back(planner, tmp_path, env):
    env(closed_port_url())
    result, preview, events, out, ev = plan(planner, tmp_path)
    assert result.code == 4
    assert preview["run"]["outcome"] == "fallback"
    assert "cannot connect to the LLM endpoint" in preview["run"]["notes"][0]
    assert_no_key(result, out, ev)


def test_server_echoing_the_key_is_masked_everywhere(planner, tmp_path, env):
    echo = dict(DONE, summary=f"your key is {KEY}")
    with FakeOpenAI([Error(401, f"Incorrect API key provided: {KEY}")]) as server:
        env(server.url)
        result, preview, events, out, ev = plan(planner, tmp_path)
    assert result.code == 4
    assert_no_key(result, out, ev)
    with FakeOpenAI([answer(echo, reasoning=f"the key {KEY}")]) as server:
        env(server.url)
        result, preview, events, out, ev = plan(planner, tmp_path, "-v")
    assert "***" in preview["summary"] and "***" in result.err
    assert_no_key(result, out, ev)


def test_partial_run_exits_3(planner, tmp_path, env):
    with FakeOpenAI([answer(CONFLICT), answer(DONE)]) as server:
        env(server.url)
        result, preview, *_ = plan(planner, tmp_path)
    assert result.code == 3
    assert preview["run"]["outcome"] == "partial"
    assert preview["run"]["rounds"][0]["steps"][0]["status"] == "failed"


def test_react_mode(planner, tmp_path, env):
    decisions = [
        {
            "thought": "放杂项",
            "action": "tool",
            "tool": "place",
            "args": {"task_id": 7, "day": 5, "slot_start": 1},
        },
        {
            "thought": "放线代2",
            "action": "tool",
            "tool": "place",
            "args": {"task_id": 4, "day": 2, "slot_start": 7},
        },
        {"thought": "好了", "action": "finish", "summary": "完成"},
    ]
    with FakeOpenAI([answer(d) for d in decisions]) as server:
        env(server.url)
        result, preview, events, *_ = plan(planner, tmp_path, "--mode", "react")
    assert result.code == 0, result.err
    assert [r["round"] for r in preview["run"]["rounds"]] == [1, 2, 3]
    assert server.requests[0]["body"]["tools"][0]["function"]["name"] == "Decision"
    assert [e["stage"] for e in events].count("react.tool_call") == 2


def test_no_llm_configured(planner, tmp_path, env):
    result, preview, *_ = plan(planner, tmp_path)
    assert result.code == 3  # an instruction was given but not carried out
    assert preview["run"]["outcome"] == "no_llm"
    assert preview["generator"]["llm"] == {"backend": "none", "model": None}


def test_record_then_replay_is_byte_identical_and_offline(planner, tmp_path, env):
    cassette = tmp_path / "run.cassette.json"
    with FakeOpenAI([answer(PLACE_BOTH), answer(DONE)]) as server:
        env(server.url)
        recorded, preview, *_ = plan(planner, tmp_path, "--record", cassette)
    assert recorded.code == 0
    text = cassette.read_text(encoding="utf-8")
    assert KEY not in text and "authorization" not in text.lower()
    data = json.loads(text)
    assert data["meta"]["run"]["instruction"] == "安排好待办任务"
    assert len(data["interactions"]) == 2
    env(closed_port_url())  # replay never touches the network
    outputs = []
    for name in ("a.json", "b.json"):
        out = tmp_path / name
        result = planner(
            "plan", S0, "安排好待办任务", "-o", out, "--no-rough", "--llm", f"replay:{cassette}"
        )
        assert result.code == 0, result.err
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    replayed = json.loads(outputs[0])
    assert replayed["generator"]["llm"] == {"backend": "replay", "model": "fake-model"}
    assert replayed["run"] == {**preview["run"]}
    assert replayed["state"] == preview["state"]


def test_replay_miss_is_an_input_error(planner, tmp_path, env):
    """A cassette without the answer is stale input: one error line naming it, nothing written
    (not a fallback that would pass for an unusable LLM)."""
    cassette = tmp_path / "run.cassette.json"
    with FakeOpenAI([answer(DONE)]) as server:
        env(server.url)
        _, _, _, out, _ = plan(planner, tmp_path, "--record", cassette)
    before = out.read_bytes()
    result, *_ = plan(planner, tmp_path, "--llm", f"replay:{cassette}", instruction="别的指令")
    assert result.code == 1 and out.read_bytes() == before
    (line,) = result.err.strip().splitlines()
    assert line.startswith(f"error: {cassette}: no recorded answer for request ")
    assert line.endswith("record it again with --llm openai --record")


def test_plan_file(planner, tmp_path, env):
    plan_path = tmp_path / "place.json"
    plan_path.write_text(json.dumps(PLACE_BOTH), encoding="utf-8")
    result, preview, *_ = plan(planner, tmp_path, "--plan-file", plan_path)
    assert result.code == 0, result.err
    assert preview["generator"]["llm"] == {"backend": "plan-file", "model": None}
    assert preview["run"]["llm_calls"] == 0


def test_invalid_plan_file_writes_nothing(planner, tmp_path, env):
    plan_path = tmp_path / "bad.json"
    plan_path.write_text(json.dumps(LOCKED), encoding="utf-8")
    result, preview, *_ = plan(planner, tmp_path, "--plan-file", plan_path)
    assert result.code == 1 and preview is None
    assert result.err.strip() == (
        f"error: {plan_path}: steps[0].args.task_id: [1]高等数学 is a locked course; it never moves"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mode", "chaos"], "--mode: expected plan-solve or react"),
        (["--llm", "none", "--record", "x.json"], "--record works with --llm openai only"),
        (["--llm", "gemini"], "--llm: expected openai"),
        (["--lang", "fr"], "--lang: expected zh or en"),
        (["--max-rounds", "0"], "--max-rounds: must be at least 1"),
        (["--max-llm-calls", "0"], "'--max-llm-calls': Input should be greater than or equal to 1"),
        (["--max-tokens", "-5"], "'--max-tokens': Input should be greater than or equal to 1"),
    ],
)
def test_usage_errors(planner, tmp_path, env, args, message):
    result, preview, *_ = plan(planner, tmp_path, *args)
    assert result.code == 2 and message in result.err
    assert preview is None


def test_missing_cassette_is_an_input_error(planner, tmp_path, env):
    result, preview, *_ = plan(planner, tmp_path, "--llm", f"replay:{tmp_path / 'none.json'}")
    assert result.code == 1 and "cassette file not found" in result.err


PLAN_FIXTURES = [
    ("week_vocab_mornings.json", "week.json", [], 0, ["success"] * 13),
    (
        "seed13_probability_mornings.json",
        "seed13.yaml",
        ["--task-class", "10"],
        0,
        ["success"] * 11,
    ),
    (
        "seed13_conflict_skips.json",
        "seed13.yaml",
        [],
        3,
        ["failed", "skipped", "skipped", "success"],
    ),
]


@pytest.mark.parametrize(("plan_name", "export", "args", "code", "statuses"), PLAN_FIXTURES)
def test_plan_fixtures(planner, tmp_path, env, plan_name, export, args, code, statuses):
    out = tmp_path / "preview.json"
    plan_path = FIXTURES / "plans" / plan_name
    result = planner(
        "plan",
        FIXTURES / "exports" / export,
        "-o",
        out,
        "--plan-file",
        plan_path,
        "--no-rough",
        *args,
    )
    assert result.code == code, result.err
    preview = json.loads(out.read_text(encoding="utf-8"))
    steps = preview["run"]["rounds"][0]["steps"]
    by_id = {s["id"]: s["status"] for s in steps}
    plan_ids = [s["id"] for s in json.loads(plan_path.read_text(encoding="utf-8"))["steps"]]
    assert [by_id[i] for i in plan_ids] == statuses
    assert planner("validate", plan_path).code == 0


CASSETTES = sorted((FIXTURES / "cassettes").glob("*.json"))


def test_cassette_collection():
    """At least four realistic cassettes, Chinese and English instructions, no secret inside."""
    assert len(CASSETTES) >= 4
    metas = [json.loads(p.read_text(encoding="utf-8"))["meta"] for p in CASSETTES]
    langs = {
        "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in m["run"]["instruction"]) else "en"
        for m in metas
    }
    assert langs == {"zh", "en"}
    for path in CASSETTES:
        text = path.read_text(encoding="utf-8")
        assert "sk-fake-recording-key" not in text and "authorization" not in text.lower()


@pytest.mark.parametrize("cassette", CASSETTES, ids=lambda p: p.stem)
def test_cassettes_replay_byte_identical(planner, tmp_path, env, monkeypatch, cassette):
    """Each cassette replays offline to the recorded run, twice with identical bytes.
    A failure here after a prompt, tool or solver change: re-record with
    `python -m tests.fakes.record_cassettes` and review the diff."""
    from tests.fakes.record_cassettes import ROOT, replay_args, sha

    data = json.loads(cassette.read_text(encoding="utf-8"))
    expect = data["meta"]["expect"]
    monkeypatch.chdir(ROOT)
    outputs = []
    for name in ("first.json", "second.json"):
        out = tmp_path / name
        result = planner("plan", *replay_args(data), "-o", out, "--llm", f"replay:{cassette}")
        assert result.code == expect["exit_code"], result.out + result.err
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    preview = json.loads(outputs[0])
    assert "has no recorded answer" not in json.dumps(preview["run"], ensure_ascii=False), (
        "cassette miss: re-record with python -m tests.fakes.record_cassettes"
    )
    assert preview["run"]["outcome"] == expect["outcome"]
    assert sha(preview["run"]) == expect["run_sha256"]
    assert sha(preview["state"]) == expect["state_sha256"]
    assert preview["generator"]["llm"]["backend"] == "replay"


def test_llm_openai_named_without_an_endpoint_is_a_config_error(planner, tmp_path, monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PLANNER_MODEL"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "p.json"
    result = planner("plan", FIXTURES / "exports" / "week.json", "x", "-o", out, "--llm", "openai")
    assert result.code == 1 and result.err.startswith("error: --llm openai: no endpoint configured")
    assert not out.exists()


def test_plan_timestamp_on_request(planner, tmp_path):
    result, preview, *_ = plan(planner, tmp_path, "--llm", "none", "--timestamp")
    assert preview is not None and preview["timestamp"].endswith("Z"), result.err
    result, preview, *_ = plan(planner, tmp_path, "--llm", "none")
    assert "timestamp" not in preview


def test_plan_now_freezes_the_past(planner, tmp_path):
    """--now: a plan step that touches a task placed before now is refused; the rest runs."""
    move_6 = {"id": "s1", "tool": "move", "args": {"task_id": 6, "new_day": 5, "new_slot_start": 9}}
    plan_path = tmp_path / "move.json"
    plan_path.write_text(json.dumps({"goal": "x", "steps": [move_6]}), encoding="utf-8")
    result, preview, *_ = plan(planner, tmp_path, "--plan-file", plan_path, "--now", "12:5")
    assert result.code == 3, result.err
    (step,) = preview["run"]["rounds"][0]["steps"]
    assert step["status"] == "failed" and step["result"].startswith("操作被拒绝：move")
    assert preview["settings"]["now"] == "12:5" and preview["changes"] == []
    # the same plan without --now moves the task
    result, preview, *_ = plan(planner, tmp_path, "--plan-file", plan_path)
    assert [c["state_id"] for c in preview["changes"]] == [6]
    assert planner("plan", S0, "x", "-o", tmp_path / "z.json", "--now", "soon").code == 2
