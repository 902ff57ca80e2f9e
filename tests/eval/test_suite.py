"""Suites (files, directories, defaults, errors) and baselines (tolerances, regressions, update)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from planner_cli.errors import ConfigError, InputError
from planner_cli.evaluate import (
    CaseResult,
    Check,
    Tolerance,
    baseline_document,
    compare,
    load_suite,
    run_suite,
    tolerances,
)
from tests.eval.conftest import EXPORTS, write_suite

SETTINGS: dict[str, Any] = {
    "eval": {
        "tracked": ["objective", "pending"],
        "tolerance": {"default": {"abs": 0}, "objective": {"abs": 0, "rel": 0.1}},
    }
}


def test_a_directory_suite_reads_every_yaml_file_in_order(suite_dir):
    write_suite(suite_dir, [{"id": "b-week", "input": "../exports/week.json"}], name="b.yaml")
    single = suite_dir / "a.yaml"
    single.write_text(
        "kind: planner-eval-case\nversion: 1\nid: a-tiny\ninput: plans/../x.yaml\n"
        "instruction: 周末空出来\nplan: plans/p.json\n",
        encoding="utf-8",
    )
    (suite_dir / "baseline.json").write_text("{}", encoding="utf-8")  # not a suite file
    cases = load_suite(suite_dir)
    assert [c.id for c in cases] == ["a-tiny", "b-week"]
    assert cases[0].plan == str(suite_dir / "plans" / "p.json")  # relative to its own file
    assert cases[1].input == str(suite_dir / "../exports/week.json")
    assert cases[1].solver == "greedy"  # the suite's defaults


def test_a_case_overrides_the_defaults(suite_dir):
    path = write_suite(suite_dir, [{"id": "c", "input": "x.yaml", "solver": "cpsat"}], lang="en")
    (case,) = load_suite(path)
    assert (case.solver, case.lang) == ("cpsat", "en")


@pytest.mark.parametrize(
    ("cases", "message"),
    [
        ([{"id": "a", "input": "x"}, {"id": "a", "input": "y"}], "duplicate case id 'a'"),
        (
            [{"id": "a", "input": "x", "expect": {"colour": 1}}],
            "cases[0].expect.colour: unknown field",
        ),
        ([{"id": "Bad Id", "input": "x"}], "cases[0].id:"),
        (
            [{"id": "a", "input": "x", "plan": "p", "cassette": "c"}],
            "a plan or a cassette, not both",
        ),
        (
            [{"id": "a", "input": "x", "expect": {"in_sections": [{"tasks": {}}]}}],
            "at least one of",
        ),
        ([], "the suite has no cases"),
    ],
)
def test_invalid_suites_name_the_field(suite_dir, cases, message):
    path = write_suite(suite_dir, cases)
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert message in "; ".join(info.value.lines())


def test_an_empty_directory_is_an_error(suite_dir):
    suite_dir.mkdir()
    with pytest.raises(InputError, match="no suite files"):
        load_suite(suite_dir)


# -- baselines ---------------------------------------------------------------------------------


def result(case_id: str = "c", ok: bool = True, **metrics: float) -> CaseResult:
    checks = [Check("x", ok, "" if ok else "broken")]
    return CaseResult(case_id, "", 0, "completed", checks, dict(metrics))


def base(**cases: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: {"passed": v.pop("passed", True), "metrics": v} for k, v in cases.items()}


@pytest.mark.parametrize(
    ("old", "new", "allowed"),
    [(100, 100, True), (100, 110, True), (100, 111, False), (0, 0, True), (100, 50, True)],
)
def test_tolerance_is_the_larger_of_abs_and_rel(old, new, allowed):
    assert Tolerance(abs=0, rel=0.1).allows(old, new) is allowed


def test_compare_flags_regressions_beyond_tolerance_only():
    results = [result("a", objective=105, pending=0), result("b", objective=100, pending=1)]
    notes = compare(
        results,
        base(a={"objective": 100, "pending": 0}, b={"objective": 100, "pending": 0}),
        SETTINGS,
    )
    assert notes == []
    assert results[0].regressions == [] and results[0].passed
    assert results[1].regressions == ["pending: 0 → 1"] and not results[1].passed


def test_improvements_are_reported_not_failed():
    results = [result("a", objective=80, pending=0)]
    compare(results, base(a={"objective": 100, "pending": 0}), SETTINGS)
    assert results[0].passed and results[0].improvements == ["objective: 100 → 80"]


def test_a_case_that_passed_before_and_fails_now_regresses():
    results = [result("a", ok=False, objective=100, pending=0)]
    compare(results, base(a={"objective": 100, "pending": 0}), SETTINGS)
    assert results[0].regressions == ["passed in the baseline, fails now"]


def test_new_and_vanished_cases_are_notes():
    notes = compare([result("new", objective=1)], base(old={"objective": 1}), SETTINGS)
    assert notes == [
        "new: not in the baseline (new case)",
        "old: in the baseline but not in the suite",
    ]


def test_a_tracked_metric_that_disappears_regresses():
    results = [result("a", pending=0)]
    compare(results, base(a={"objective": 100, "pending": 0}), SETTINGS)
    assert results[0].regressions == ["objective: 100 in the baseline, missing now"]


@pytest.mark.parametrize(
    "section",
    [
        {"tolerance": {"objective": {"abs": -1}}},
        {"tolerance": {"objective": {"absolute": 1}}},
        {"tolerance": {"objective": {"abs": "many"}}},
        {"tracked": "objective"},
    ],
)
def test_bad_tolerance_settings_are_config_errors(section):
    with pytest.raises(ConfigError):
        tolerances({"eval": section})


def test_baseline_document_is_sorted_and_has_no_wall_clock():
    document = baseline_document([result("b", objective=1), result("a", objective=2)])
    assert list(document["cases"]) == ["a", "b"]
    assert "duration" not in json.dumps(document)


def fake_produce(path: str, options: Any, settings: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """A preview of the unchanged state whose objective is the length of the instruction."""
    from planner_cli.io.loader import load_any
    from planner_cli.io.preview import build_preview

    loaded = load_any(path)
    metrics = {"pending": 0, "hard_violations": 0, "objective": len(options.instruction or "")}
    preview = build_preview(
        loaded, loaded.state, settings={}, metrics=metrics, run={"outcome": "completed"}
    )
    return preview, 0


def test_update_then_compare_then_regress(suite_dir, tmp_path):
    tiny = str(EXPORTS / "tiny.yaml")
    cases = [{"id": "a", "input": tiny, "instruction": "xx"}, {"id": "b", "input": tiny}]
    path = write_suite(suite_dir, cases)
    baseline = tmp_path / "baseline.json"
    run = lambda **kw: run_suite(path, SETTINGS, produce=fake_produce, baseline=baseline, **kw)  # noqa: E731
    written = run(update_baseline=True)
    assert written.exit_code == 0
    assert (
        json.loads(baseline.read_text(encoding="utf-8"))["cases"]["a"]["metrics"]["objective"] == 2
    )
    assert run().exit_code == 0

    cases[0]["instruction"] = "xxxxx"  # objective 2 → 5: beyond 10 %
    write_suite(suite_dir, cases)
    regressed = run()
    assert regressed.exit_code == 3 and regressed.results[0].regressions == ["objective: 2 → 5"]

    run(update_baseline=True, only=["a"])  # a partial update keeps the other cases
    document = json.loads(baseline.read_text(encoding="utf-8"))
    assert sorted(document["cases"]) == ["a", "b"]
    assert document["cases"]["a"]["metrics"]["objective"] == 5
    assert run().exit_code == 0


def test_unknown_case_filter_is_an_error(suite_dir):
    path = write_suite(suite_dir, [{"id": "a", "input": "x"}])
    with pytest.raises(InputError, match="no case with id 'zzz'"):
        run_suite(path, SETTINGS, only=["zzz"], produce=fake_produce)
