"""Eval checks on hand-built previews of fixtures/exports/tiny.yaml: each rule passes and fails.

tiny.yaml (window = week 5, days 1-7): task 1 高等数学 W5D1 §1-2 and W5D4 §1-2, task 2 思政 (a
water course) W5D2 §3-4, task 3 第一章 (概率论 order 1, existing) W5D3 §7-8, tasks 4 第二章 and 5
第三章 (orders 2 and 3) pending; class 10 excludes block 6 (§11-12) and Sundays.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from planner_cli.evaluate import Case, run_checks, state_problems
from planner_cli.io.loader import Loaded, load_any
from planner_cli.io.preview import build_preview
from planner_cli.model.state import ScheduleState, Slot
from planner_cli.tools.common import relocate
from tests.eval.conftest import EXPORTS

GOOD = {4: (4, 3, 4), 5: (5, 1, 2)}  # 第二章 Thu §3-4, 第三章 Fri §1-2


def loaded() -> Loaded:
    return load_any(EXPORTS / "tiny.yaml")


def placed(state: ScheduleState, moves: dict[int, tuple[int, int, int]]) -> ScheduleState:
    """Put tasks at (day, start, end) directly (no conflict checks: tests build bad states too)."""
    new = state.clone()
    for task_id, (day, start, end) in moves.items():
        task = new.task(task_id)
        assert task is not None
        task.slots = [Slot(day=day, slot_start=start, slot_end=end)]
        task.status = "suggested"
    return new


def preview(
    moves: dict[int, tuple[int, int, int]] = GOOD,
    *,
    base: Loaded | None = None,
    final: ScheduleState | None = None,
    outcome: str = "completed",
) -> dict[str, Any]:
    base = base or loaded()
    final = final if final is not None else placed(base.state, moves)
    metrics = {
        "pending": sum(1 for t in final.tasks if t.is_pending),
        "hard_violations": 0,
        "objective": 10,
    }
    return build_preview(base, final, settings={}, metrics=metrics, run={"outcome": outcome})


def check(expect: dict[str, Any], doc: dict[str, Any] | None = None, **case: Any):
    c = Case.model_validate({"id": "c", "input": "tiny.yaml", "expect": expect, **case})
    checks = run_checks(c, doc if doc is not None else preview(), 0, "")
    return [x for x in checks if x.name != "no_violations" or "no_violations" in expect]


def only(expect: dict[str, Any], doc: dict[str, Any] | None = None, **case: Any):
    checks = check({"no_violations": False, **expect}, doc, **case)
    assert len(checks) == 1, checks
    return checks[0]


# -- the independent validator --------------------------------------------------------------------


def test_a_valid_layout_has_no_problems():
    assert state_problems(placed(loaded().state, GOOD)) == []


@pytest.mark.parametrize(
    ("moves", "problem"),
    [
        ({4: (1, 1, 2), 5: (5, 1, 2)}, "tasks 1 and 4 overlap on day 1 (W5D1) §1-2"),
        (
            {4: (5, 1, 2), 5: (4, 3, 4)},
            "task 5 (order 3) does not start after task 4 (order 2) ends",
        ),
        (
            {4: (3, 5, 6), 5: (5, 1, 2)},
            "task 4 (order 2) does not start after task 3 (order 1) ends",
        ),
        ({4: (4, 3, 4), 5: (7, 1, 2)}, "task 5 on an excluded weekday"),
        ({4: (4, 11, 12), 5: (5, 1, 2)}, "task 4 in excluded block 6"),
    ],
)
def test_state_problems_find_each_broken_rule(moves, problem):
    problems = state_problems(placed(loaded().state, moves))
    assert any(problem in p for p in problems), problems


def test_a_guest_inside_its_water_course_is_not_an_overlap():
    base = loaded().state
    base.task(4).task_order = 0  # type: ignore[union-attr]  # out of the order chain (day 2 < day 3)
    new, conflict = relocate(base, {4: [Slot(day=2, slot_start=3, slot_end=4)]})
    assert conflict is None and new.task(4).embed_host == 2  # type: ignore[union-attr]
    assert state_problems(new) == []
    detached = new.clone()
    detached.task(4).embed_host = None  # type: ignore[union-attr]
    assert any("overlap" in p for p in state_problems(detached))


def test_class_dates_bind_suggested_tasks():
    state = placed(loaded().state, GOOD)
    state.task_classes[0].start_date = "2026-10-09"  # Friday: Thursday is now too early
    assert any("outside its class dates" in p for p in state_problems(state))


def test_no_violations_check_also_trusts_the_preview_count():
    doc = preview()
    assert check({"no_violations": True}, doc)[0].ok
    doc["metrics"]["hard_violations"] = 2
    failed = check({"no_violations": True}, doc)[0]
    assert not failed.ok and "reports 2 hard violation" in failed.detail


# -- expectations -----------------------------------------------------------------------------------


def test_all_placed():
    assert only({"all_placed": True}).ok
    partial = only({"all_placed": True}, preview({4: (4, 3, 4)}))
    assert not partial.ok and "5 第三章多维随机变量" in partial.detail


def test_no_weekend():
    assert only({"no_weekend": True}).ok
    saturday = only({"no_weekend": True}, preview({4: (4, 3, 4), 5: (6, 1, 2)}))
    assert not saturday.ok and "day 6 (W5D6)" in saturday.detail


@pytest.mark.parametrize(("day", "ok"), [("5:3", True), ("2026-10-08", False), ("5:4", False)])
def test_free_days(day, ok):
    assert only({"free_days": [day]}).ok is ok


def test_free_days_reject_what_is_not_a_day():
    result = only({"free_days": ["Thursday"]})
    assert not result.ok and "is not WEEK:DAY or a date" in result.detail


@pytest.mark.parametrize(("first", "last", "ok"), [(1, 4, True), (1, 2, False), (3, 12, False)])
def test_in_sections(first, last, ok):
    rule = {"tasks": {"category": "概率论"}, "first": first, "last": last}
    assert only({"in_sections": [rule]}).ok is ok


def test_selectors_must_match_something():
    result = only({"in_sections": [{"tasks": {"category": "线性代数"}, "last": 4}]})
    assert not result.ok and "no suggested task matches 线性代数" in result.detail
    by_name = {"tasks": {"names": ["第二章随机变量"]}, "last": 4}
    assert only({"in_sections": [by_name]}).ok
    assert only(
        {"in_sections": [{"tasks": {"class_id": 10, "name_contains": "第三"}, "last": 2}]}
    ).ok


@pytest.mark.parametrize(
    ("rule", "ok"),
    [
        ({"days_of_week": [4, 5]}, True),
        ({"days_of_week": [1, 2, 3]}, False),
        ({"before": "5:6"}, True),
        ({"before": "5:5"}, False),
        ({"not_before": "2026-10-08"}, True),
        ({"not_before": "5:5"}, False),
    ],
)
def test_on_days(rule, ok):
    assert only({"on_days": [{"tasks": {"class_id": 10}, **rule}]}).ok is ok


@pytest.mark.parametrize(("sections", "ok"), [(4, True), (3, False)])
def test_max_per_day_spreads_work(sections, ok):
    same_day = preview({4: (4, 3, 4), 5: (4, 5, 6)})
    rule = {"tasks": {"category": "概率论"}, "sections": sections}
    assert only({"max_per_day": [rule]}, same_day).ok is ok


@pytest.mark.parametrize(
    ("position", "ok"),
    [
        ({"task": "第二章随机变量", "week": 5, "day_of_week": 4, "slot_start": 3}, True),
        ({"task": 5, "week": 5, "day_of_week": 5, "slot_start": 1}, True),
        ({"task": "第二章随机变量", "week": 5, "day_of_week": 4, "slot_start": 1}, False),
        ({"task": "第九章", "week": 5, "day_of_week": 4, "slot_start": 3}, False),
    ],
)
def test_positions(position, ok):
    assert only({"positions": [position]}).ok is ok


def test_max_moved_counts_moves_of_placed_tasks():
    base = loaded()
    before = dataclasses.replace(base, state=placed(base.state, GOOD))
    one_move = preview(base=before, final=placed(before.state, {5: (6, 1, 2)}))
    assert only({"max_moved": 1}, one_move).ok
    failed = only({"max_moved": 0}, one_move)
    assert not failed.ok and "1 moved: 5 第三章多维随机变量" in failed.detail
    assert only({"max_moved": 0}).ok  # placing pending tasks moves nothing


def test_past_frozen():
    assert only({"past_frozen": True}, now="5:4").ok
    into_past = only({"past_frozen": True}, preview({4: (4, 3, 4), 5: (5, 1, 2)}), now="5:5")
    assert not into_past.ok and "into the past" in into_past.detail
    base = loaded()
    stale = dataclasses.replace(base, state=placed(base.state, {4: (2, 1, 2)}))
    kept = preview(base=stale, final=placed(stale.state, {5: (5, 1, 2)}))
    lapsed = only({"past_frozen": True}, kept, now="5:4")
    assert not lapsed.ok and "still suggested in the past" in lapsed.detail
    assert not only({"past_frozen": True}).ok  # a case without `now` cannot check it


@pytest.mark.parametrize(
    ("threshold", "ok"),
    [({"max": 10}, True), ({"max": 9}, False), ({"min": 11}, False), ({"min": 0, "max": 20}, True)],
)
def test_metric_thresholds(threshold, ok):
    assert only({"metrics": {"objective": threshold}}).ok is ok


def test_an_unknown_metric_fails():
    result = only({"metrics": {"happiness": {"min": 1}}})
    assert not result.ok and "no such metric" in result.detail


def test_outcome_and_exit_code():
    c = Case.model_validate(
        {"id": "c", "input": "x", "expect": {"exit_code": 0, "outcome": ["completed", "partial"]}}
    )
    assert all(x.ok for x in run_checks(c, preview(), 0, ""))
    failed = [x for x in run_checks(c, preview(outcome="fallback"), 4, "") if not x.ok]
    assert [x.name for x in failed] == ["exit_code 0", "outcome completed|partial"]


def test_an_expected_error_needs_no_preview():
    c = Case.model_validate(
        {"id": "c", "input": "x", "expect": {"exit_code": 1, "error_contains": "file not found"}}
    )
    assert all(x.ok for x in run_checks(c, None, 1, "error: x: file not found"))
    unexpected = Case.model_validate({"id": "c", "input": "x"})
    failed = run_checks(unexpected, None, 1, "error: x: file not found")
    assert [(x.name, x.ok) for x in failed] == [("preview", False)]


def test_a_cassette_case_that_falls_back_fails_with_the_miss():
    doc = preview(outcome="fallback")
    doc["run"]["notes"] = ["round 1: cassette c.json has no recorded answer for request 1234"]
    stale = Case.model_validate({"id": "c", "input": "x", "cassette": "c.json"})
    failed = [x for x in run_checks(stale, doc, 4, "") if not x.ok]
    assert [(x.name, x.detail) for x in failed] == [
        ("llm usable", "round 1: cassette c.json has no recorded answer for request 1234")
    ]
    wanted = Case.model_validate(
        {"id": "c", "input": "x", "cassette": "c.json", "expect": {"outcome": "fallback"}}
    )
    assert all(x.ok for x in run_checks(wanted, doc, 4, ""))
    no_llm = Case.model_validate({"id": "c", "input": "x"})
    assert all(x.ok for x in run_checks(no_llm, doc, 4, ""))
