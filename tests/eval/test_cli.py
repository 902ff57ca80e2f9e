"""`planner eval` end to end: table, JUnit, Markdown, JSON, baselines, the shipped suite."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET

import pytest

from tests.eval.conftest import EXPORTS, FIXTURES, write_suite

SUITE = FIXTURES / "eval"


@pytest.fixture
def small_suite(suite_dir):
    """Two greedy layout cases: one passes, one fails a check (tight.json cannot be placed)."""
    return write_suite(
        suite_dir,
        [
            {"id": "week", "input": str(EXPORTS / "week.json"), "expect": {"all_placed": True}},
            {
                "id": "tight",
                "description": "over-committed",
                "input": str(EXPORTS / "tight.json"),
                "expect": {"all_placed": True, "exit_code": 0},
            },
        ],
    )


def test_table_junit_report_and_json(planner, small_suite, tmp_path):
    junit, report, results = tmp_path / "j.xml", tmp_path / "r.md", tmp_path / "r.json"
    result = planner("eval", small_suite, "--junit", junit, "--report", report, "--json", results)
    assert result.code == 3
    lines = result.out.splitlines()
    assert lines[0].split() == [
        "case",
        "outcome",
        "exit",
        "checks",
        "objective",
        "pending",
        "moved",
        "result",
    ]
    assert lines[1].split()[0] == "week" and lines[1].split()[-1] == "ok"
    assert lines[2].split()[0] == "tight" and lines[2].split()[-1] == "FAILED"
    assert "tight: check exit_code 0 failed: got 3" in result.out
    assert "tight: check all_placed failed: pending:" in result.out
    assert lines[-1] == "eval: 2 case(s): 1 passed, 1 failed"

    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["week"].find("failure") is None
    failure = cases["tight"].find("failure")
    assert failure is not None and failure.get("message", "").startswith("exit_code 0: got 3")

    markdown = report.read_text(encoding="utf-8")
    assert "| tight | partial | 3 | 1/3 |" in markdown
    assert "## tight" in markdown and "over-committed" in markdown

    data = json.loads(results.read_text(encoding="utf-8"))
    assert (data["passed"], data["failed"], data["exit_code"]) == (1, 1, 3)
    assert [c["id"] for c in data["cases"]] == ["week", "tight"]
    assert "duration" not in results.read_text(encoding="utf-8")


def test_a_tampered_baseline_metric_is_a_regression(planner, suite_dir, tmp_path):
    suite = write_suite(suite_dir, [{"id": "week", "input": str(EXPORTS / "week.json")}])
    baseline = tmp_path / "baseline.json"
    assert planner("eval", suite, "--baseline", baseline, "--update-baseline").code == 0
    assert planner("eval", suite, "--baseline", baseline).code == 0

    document = json.loads(baseline.read_text(encoding="utf-8"))
    actual = document["cases"]["week"]["metrics"]["objective"]
    document["cases"]["week"]["metrics"]["objective"] = actual / 1.01  # inside the 2 % tolerance
    baseline.write_text(json.dumps(document), encoding="utf-8")
    assert planner("eval", suite, "--baseline", baseline).code == 0

    document["cases"]["week"]["metrics"]["objective"] = actual - 5 if actual > 5 else 0
    document["cases"]["week"]["metrics"]["pending"] = -1
    baseline.write_text(json.dumps(document), encoding="utf-8")
    regressed = planner("eval", suite, "--baseline", baseline)
    assert regressed.code == 3
    assert "week: regression: pending: -1 → 0" in regressed.out
    assert "REGRESSED" in regressed.out and "1 regressed against" in regressed.out

    rewritten = planner("eval", suite, "--baseline", baseline, "--update-baseline")
    assert rewritten.code == 0 and "rewritten (1 cases)" in rewritten.out
    assert (
        json.loads(baseline.read_text(encoding="utf-8"))["cases"]["week"]["metrics"]["pending"] == 0
    )
    assert planner("eval", suite, "--baseline", baseline).code == 0


def test_a_missing_or_invalid_baseline_is_an_input_error(planner, small_suite, tmp_path):
    missing = planner("eval", small_suite, "--baseline", tmp_path / "nope.json")
    assert missing.code == 1 and "nope.json: file not found" in missing.err
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "something"}', encoding="utf-8")
    invalid = planner("eval", small_suite, "--baseline", bad)
    assert invalid.code == 1 and "kind: expected 'planner-eval-baseline'" in invalid.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--llm", "gpt"), "--llm: expected replay or openai"),
        (("--record",), "--record needs --llm openai"),
        (("--update-baseline",), "--update-baseline needs --baseline FILE"),
    ],
)
def test_usage_errors(planner, small_suite, args, message):
    result = planner("eval", small_suite, *args)
    assert result.code == 2 and message in result.err


def test_an_invalid_suite_is_exit_1_with_the_field(planner, suite_dir):
    suite = write_suite(suite_dir, [{"id": "a", "input": "x", "expect": {"all_placd": True}}])
    result = planner("eval", suite)
    assert result.code == 1
    assert "cases[0].expect.all_placd: unknown field" in result.err


def test_the_shipped_suite_passes_against_its_baseline(planner, tmp_path):
    """The CI gate: `planner eval fixtures/eval --baseline fixtures/eval/baseline.json`."""
    result = planner(
        "eval", SUITE, "--baseline", SUITE / "baseline.json", "--json", tmp_path / "r.json"
    )
    assert result.code == 0, result.out
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert len(data["cases"]) >= 8 and data["regressed"] == 0
    instructions = [c for c in data["cases"] if c["outcome"] in ("completed", "partial")]
    assert len(instructions) >= 4


def test_the_shipped_suite_detects_a_broken_plan(planner, tmp_path):
    """Honesty of the gate: the same case with a plan that does the wrong thing fails."""
    suite_dir = tmp_path / "eval"
    shutil.copytree(SUITE, suite_dir)
    plan = suite_dir / "plans" / "swap-vocab-calculus.json"
    document = json.loads(plan.read_text(encoding="utf-8"))
    document["steps"][0]["args"] = {"task_a": 17, "task_b": 11}  # the wrong calculus session
    plan.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    result = planner(
        "eval",
        suite_dir,
        "--baseline",
        suite_dir / "baseline.json",
        "--case",
        "swap-vocab-calculus",
    )
    assert result.code == 3
    assert "check position" in result.out


def test_record_refreshes_a_cassette_that_then_replays_offline(planner, suite_dir, monkeypatch):
    """`--llm openai --record` goes through the engine's recording against a live endpoint (a
    fake chat-completions server on 127.0.0.1); the default replay then runs without it."""
    from tests.fakes.openai_server import FakeOpenAI, answer

    cassette = suite_dir / "cassettes" / "swap.json"
    suite = write_suite(
        suite_dir,
        [
            {
                "id": "swap-live",
                "input": str(SUITE / "states" / "week-planned.json"),
                "instruction": "把周二晚上的单词复习和周三上午的高数换一下。",
                "cassette": "cassettes/swap.json",
                "expect": {
                    "exit_code": 0,
                    "outcome": "completed",
                    "positions": [{"task": 17, "week": 5, "day_of_week": 3, "slot_start": 3}],
                },
            }
        ],
    )
    script = [
        answer(
            {
                "goal": "swap them",
                "steps": [{"id": "s1", "tool": "swap", "args": {"task_a": 17, "task_b": 10}}],
            }
        ),
        answer({"goal": "swap them", "done": True, "summary": "swapped", "steps": []}),
    ]
    with FakeOpenAI(script) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-eval-key")
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("PLANNER_MODEL", "scripted-fake")
        live = planner("eval", suite, "--llm", "openai", "--record")
        assert len(server.requests) == 2
    assert live.code == 0, live.out
    assert cassette.is_file() and "sk-fake-eval-key" not in cassette.read_text(encoding="utf-8")

    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    replayed = planner("eval", suite)
    assert replayed.code == 0, replayed.out
    assert "swap-live" in replayed.out and "completed" in replayed.out
