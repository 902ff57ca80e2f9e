"""analyze_health / analyze_rhythm: scenario 21 of seed-origin §6, the rhythm thresholds, the
decision ladder (feasibility → profile → heavy adjacency → tightness) and simulated candidates."""

from __future__ import annotations

import json

import pytest

from planner_cli.tools.common import ToolContext
from planner_cli.tools.registry import get_spec, run_tool


def health(state, args=None, lang="zh"):
    before = state.dump()
    result = run_tool("analyze_health", state, args or {}, ToolContext(lang=lang))
    assert result.state is state and state.dump() == before  # read-only, always
    payload = json.loads(result.text)
    assert result.data == payload
    return result, payload


def rhythm(state, args=None):
    result = run_tool("analyze_rhythm", state, args or {}, ToolContext())
    return result, json.loads(result.text)


def issue_ids(payload):
    return [i["issue_id"] for i in payload["issues"]]


@pytest.fixture
def classes(builders):
    return [
        builders.meta(
            7, subject_type="quantitative", difficulty_level="high", cognitive_intensity="high"
        ),
        builders.meta(
            8, subject_type="memory", difficulty_level="high", cognitive_intensity="medium"
        ),
        builders.meta(9, subject_type="reading", difficulty_level="low", cognitive_intensity="low"),
    ]


@pytest.fixture
def heavy(builders, classes):
    """Day 1: two high-intensity classes back to back; day 2: a light task to trade with."""
    b = builders
    return b.make_state(
        [
            b.item(1, "A1", 7, 1, slots=[(1, 1, 2)]),
            b.item(2, "B1", 8, 1, slots=[(1, 3, 4)]),
            b.item(3, "C1", 9, 1, slots=[(2, 1, 2)]),
        ],
        days=2,
        classes=classes,
    )


def test_registered_as_read_json_strict():
    for name in ("analyze_health", "analyze_rhythm"):
        spec = get_spec(name)
        assert spec.kind == "read" and spec.json_output and spec.strict


def test_scenario_21_feasibility_first(builders, classes):
    b = builders
    state = b.make_state(
        [
            b.course(1, "实验", [(1, 1, 10)]),
            b.item(2, "a", 7, 1, status="pending"),
            b.item(3, "b", 7, 2, status="pending"),
        ],
        days=1,
        classes=classes,
    )
    result, payload = health(state)
    assert result.ok and payload["success"] is True and payload["error_code"] == ""
    assert payload["feasibility"] == {
        "is_feasible": False,
        "required_sections": 4,
        "capacity_sections": 2,
        "capacity_gap": 2,
        "reason_code": "capacity_insufficient",
    }
    first = payload["issues"][0]
    assert first["issue_id"] == "issue_feasibility_capacity_gap" and first["severity"] == "critical"
    assert first["trigger"] == {
        "metric": "capacity_gap",
        "operator": ">",
        "threshold": 0,
        "actual": 2,
    }
    decision = payload["decision"]
    assert decision["recommended_operation"] == "ask_user"
    assert (
        decision["is_forced_imperfection"] is True and decision["should_continue_optimize"] is False
    )
    assert decision["primary_problem"].startswith("可用时段不足")
    assert decision["candidates"] == [
        {
            "candidate_id": "close",
            "tool": "close",
            "arguments": {},
            "summary": "结束优化，保持当前安排",
            "effect": "close",
        }
    ]
    assert payload["metrics"]["can_close"] is True
    assert decision["improvement_signal"].endswith("|capacity_gap=2")


def test_feasible_when_capacity_is_enough(builders, classes):
    b = builders
    state = b.make_state(
        [b.course(1, "实验", [(1, 1, 8)]), b.item(2, "a", 7, 1, status="pending")],
        days=1,
        classes=classes,
    )
    _, payload = health(state)
    assert payload["feasibility"]["is_feasible"] is True
    assert payload["feasibility"]["reason_code"] == "enough_capacity"
    assert payload["feasibility"]["capacity_gap"] == 0
    assert "issue_feasibility_capacity_gap" not in issue_ids(payload)


def test_water_courses_count_as_occupied_capacity(builders, classes):
    b = builders
    state = b.make_state(
        [b.course(1, "思政", [(1, 1, 12)], can_embed=True), b.item(2, "a", 7, 1, status="pending")],
        days=1,
        classes=classes,
    )
    assert health(state)[1]["feasibility"]["capacity_sections"] == 0


@pytest.mark.parametrize("dims", [["foo"], "foo", ["foo", "bar"]])
def test_dimensions_all_invalid(s0, dims):
    result, payload = health(s0, {"dimensions": dims})
    assert not result.ok
    assert payload == {
        "tool": "analyze_health",
        "success": False,
        "metric_schema": {},
        "metrics": {},
        "issues": [],
        "next_actions": [],
        "error": "dimensions 全部非法",
        "error_code": "invalid_args",
    }
    assert (
        health(s0, {"dimensions": ["foo"]}, lang="en")[1]["error"] == "all dimensions are invalid"
    )


@pytest.mark.parametrize(
    "dims", ["rhythm", ["foo", "tightness"], [], "", "semantic_profile,rhythm"]
)
def test_dimensions_valid_do_not_change_the_report(s0, dims):
    result, payload = health(s0, {"dimensions": dims, "threshold": 0.5})
    assert result.ok
    assert payload == health(s0)[1]


def test_whitelist(s0):
    result = run_tool("analyze_health", s0, {"dimension": "rhythm"})
    assert json.loads(result.text) == {
        "tool": "analyze_health",
        "success": False,
        "error": "参数非法：dimension。请仅使用当前工具 schema 中声明的参数字段。",
    }


def test_state_empty(builders):
    result, payload = health(builders.make_state([], days=1))
    assert not result.ok and payload["error_code"] == "state_empty"


def test_profile_incomplete_asks_the_user(builders):
    b = builders
    state = b.make_state(
        [b.item(1, "A1", 7, 1, slots=[(1, 1, 2)])],
        days=1,
        classes=[b.meta(7, subject_type="quantitative")],
    )
    _, payload = health(state)
    assert "issue_semantic_profile_missing" in issue_ids(payload)
    profile = payload["metrics"]["semantic_profile"]
    assert profile["missing_profile_count"] == 1 and profile["missing_subject_type"] == 0
    assert profile["missing_difficulty_level"] == 1 and profile["incomplete_subjects"] == [
        "线性代数"
    ]
    assert payload["decision"]["recommended_operation"] == "ask_user"
    assert payload["decision"]["is_forced_imperfection"] is False


def test_nothing_to_fix_closes(s0):
    _, payload = health(s0)
    assert issue_ids(payload) == ["issue_rhythm_info"]
    assert payload["decision"]["recommended_operation"] == "close"
    assert payload["decision"]["should_continue_optimize"] is False
    assert payload["metrics"]["can_close"] is True


def test_heavy_adjacency_gets_simulated_candidates(heavy):
    result, payload = health(heavy)
    assert "issue_rhythm_heavy_adjacent_day_1" in issue_ids(payload)
    assert payload["next_actions"][0]["action"] == "smooth_rhythm"
    decision = payload["decision"]
    assert (
        decision["primary_problem"]
        == "第1天(星期1)高强度科目相邻：[1]A1(线性代数) 与 [2]B1(英语)。"
    )
    assert decision["should_continue_optimize"] is True and payload["metrics"]["can_close"] is False
    cands = decision["candidates"]
    assert cands[-1]["tool"] == "close" and 2 <= len(cands) <= 6
    assert decision["recommended_operation"] == cands[0]["tool"] == "swap"
    assert cands[0]["candidate_id"] == "swap_1_3"
    assert cands[0]["arguments"] == {"task_a": 1, "task_b": 3}
    assert cands[0]["effect"] == "improve" and cands[0]["after"]["heavy_adjacent_days"] == 0
    # the swap of the adjacent pair itself does not help and is not offered
    assert all(c["candidate_id"] not in ("swap_1_2", "swap_2_1") for c in cands)
    ranks = [c["score"] + (12 if c["tool"] == "swap" else 0) for c in cands[:-1]]
    assert ranks == sorted(ranks, reverse=True)  # swaps carry a ranking bias of 12
    # every candidate really works with the real tool and removes the problem
    for cand in cands[:-1]:
        applied = run_tool(cand["tool"], heavy, cand["arguments"])
        assert applied.ok, applied.text
        after = health(applied.state)[1]
        assert after["metrics"]["heavy_adjacent_days"] == 0
        assert after["decision"]["recommended_operation"] == "close"


def test_candidates_follow_the_language(heavy):
    _, payload = health(heavy, lang="en")
    decision = payload["decision"]
    assert decision["primary_problem"].startswith(
        "day 1 (Mon): high-intensity subjects back to back"
    )
    assert decision["candidates"][0]["summary"] == "swap the positions of [1]A1 and [3]C1"
    assert (
        payload["metric_schema"]["max_switch_count"]["description"]
        == "most subject switches on one day"
    )


def test_acceptable_day_is_not_repaired(builders):
    """Same subject type everywhere and few switches: the heavy pair is tolerated."""
    b = builders
    same = [
        b.meta(7, subject_type="quantitative", difficulty_level="high", cognitive_intensity="high"),
        b.meta(8, subject_type="quantitative", difficulty_level="high", cognitive_intensity="high"),
    ]
    state = b.make_state(
        [b.item(1, "A1", 7, 1, slots=[(1, 1, 2)]), b.item(2, "B1", 8, 1, slots=[(1, 3, 4)])],
        days=1,
        classes=same,
    )
    _, payload = health(state)
    assert "issue_rhythm_heavy_adjacent_day_1" in issue_ids(payload)
    assert payload["metrics"]["same_type_transition_ratio"] == 1.0
    assert payload["decision"]["recommended_operation"] == "close"
    assert payload["decision"]["is_forced_imperfection"] is False


def test_locked_schedule_is_a_forced_imperfection(builders, classes):
    b = builders
    state = b.make_state(
        [
            b.item(1, "A1", 7, 1, slots=[(1, 1, 2)]),
            b.item(2, "B1", 8, 1, slots=[(1, 3, 5)], duration=3),
            b.course(3, "实验", [(1, 6, 12)]),
        ],
        days=1,
        classes=classes,
    )
    _, payload = health(state)
    tight = payload["metrics"]["tightness"]
    assert tight["tightness_level"] == "locked" and tight["forced_heavy_adjacent_days"] == [1]
    assert payload["decision"]["recommended_operation"] == "close"
    assert payload["decision"]["is_forced_imperfection"] is True
    assert payload["decision"]["candidates"][0]["tool"] == "close"


def test_no_improving_candidate_closes_with_forced_imperfection(builders, classes):
    """Movable, but every free place is on the same day (gaps are ignored): nothing helps."""
    b = builders
    state = b.make_state(
        [b.item(1, "A1", 7, 1, slots=[(1, 1, 2)]), b.item(2, "B1", 8, 1, slots=[(1, 3, 4)])],
        days=1,
        classes=classes,
    )
    _, payload = health(state)
    assert payload["metrics"]["tightness"]["tightness_level"] == "tight"
    decision = payload["decision"]
    assert (
        decision["recommended_operation"] == "close" and decision["is_forced_imperfection"] is True
    )
    assert decision["should_continue_optimize"] is False and [
        c["tool"] for c in decision["candidates"]
    ] == ["close"]


def test_order_constraint_limits_alternatives(builders, classes):
    b = builders
    state = b.make_state(
        [
            b.item(1, "A1", 7, 1, slots=[(1, 1, 2)]),
            b.item(2, "A2", 7, 2, slots=[(1, 3, 4)]),
            b.course(3, "实验", [(1, 5, 12)]),
        ],
        days=1,
        classes=classes,
    )
    tight = health(state)[1]["metrics"]["tightness"]
    # the only free sections lie between/before the chain: no order-legal other place, no swap
    assert tight["locally_movable_task_count"] == 0 and tight["cross_class_swap_options"] == 0


def test_metrics_and_detail(heavy):
    _, payload = health(heavy, {"detail": True})
    metrics = payload["metrics"]
    assert metrics["heavy_adjacent_day_list"] == [1] and metrics["max_switch_day"] == 1
    assert (
        metrics["avg_block_size"] == 2.0
    )  # three blocks of two sections (the seed always said 1.0)
    assert metrics["same_type_transition_ratio"] == 0.75
    assert metrics["days"][0] == {
        "day": 1,
        "sections": 4,
        "switch_count": 1,
        "max_block": 2,
        "fragmentation": 0.33,
        "heavy_adjacent": True,
        "high_intensity_run": 4,
    }
    assert "days" not in health(heavy)[1]["metrics"]
    assert set(payload["metric_schema"]) <= set(metrics)


def test_names_with_quotes_keep_json_valid(builders, classes):
    b = builders
    state = b.make_state(
        [
            b.item(1, 'A "1" \\', 7, 1, slots=[(1, 1, 2)]),
            b.item(2, "B\\1", 8, 1, slots=[(1, 3, 4)]),
        ],
        days=1,
        classes=classes,
    )
    _, payload = health(state)
    assert 'A "1" \\' in payload["decision"]["primary_problem"]


# -- rhythm thresholds (through analyze_rhythm and analyze_health alike) -----------------------


def _alternating(builders, classes, n_sections):
    """One-section tasks A, B, A, B … on day 1 (classes 7 and 9: no heavy pair)."""
    tasks = [
        builders.item(
            i + 1, f"T{i + 1}", 7 if i % 2 == 0 else 9, 0, slots=[(1, i + 1, i + 1)], duration=1
        )
        for i in range(n_sections)
    ]
    return builders.make_state(tasks, days=1, classes=classes)


def test_switch_thresholds(builders, classes):
    _, critical = rhythm(_alternating(builders, classes, 6))  # 5 switches, fragmentation 1.0
    assert issue_ids(critical) == ["issue_rhythm_switch_day_1"]
    assert critical["issues"][0]["trigger"] == {
        "metric": "switch_count",
        "operator": ">=",
        "threshold": 5,
        "actual": 5,
    }
    assert (
        critical["next_actions"][0]["action"] == "reduce_switch"
        and critical["next_actions"][0]["priority"] == 1
    )
    _, warn = rhythm(_alternating(builders, classes, 4))  # 3 switches
    assert issue_ids(warn) == ["issue_rhythm_switch_warn_day_1"] and warn["next_actions"] == []
    _, calm = rhythm(_alternating(builders, classes, 2))  # 1 switch of 1 pair: fragmentation 1.0
    assert issue_ids(calm) == ["issue_rhythm_switch_warn_day_1"]
    _, single = rhythm(_alternating(builders, classes, 1))
    assert issue_ids(single) == ["issue_rhythm_info"]


def test_long_block_threshold(builders, classes):
    b = builders
    five = b.make_state(
        [b.item(1, "A", 9, 0, slots=[(1, 1, 5)], duration=5)], days=1, classes=classes
    )
    four = b.make_state(
        [b.item(1, "A", 9, 0, slots=[(1, 1, 4)], duration=4)], days=1, classes=classes
    )
    assert issue_ids(rhythm(five)[1]) == ["issue_rhythm_long_block_day_1"]
    assert issue_ids(rhythm(four)[1]) == ["issue_rhythm_info"]
    assert rhythm(five)[1]["metrics"]["compressed_run_count"] == 1


def test_courses_are_not_subjects_but_guests_are(builders, classes):
    b = builders
    state = b.make_state(
        [
            b.course(1, "思政", [(1, 3, 4)], can_embed=True),
            b.course(2, "高数", [(1, 5, 6)]),
            b.item(3, "A1", 7, 1, slots=[(1, 1, 2)]),
            b.item(4, "B1", 8, 1, slots=[(1, 3, 4)], embed_host=1),
        ],
        days=1,
        classes=classes,
    )
    _, payload = rhythm(state, {"detail": True})
    assert payload["metrics"]["days"][0]["sections"] == 4
    assert payload["metrics"]["heavy_adjacent_days"] == 1


def test_analyze_rhythm_subjects_and_whitelist(s0):
    _, payload = rhythm(s0)
    assert [s["category"] for s in payload["metrics"]["subjects"]] == ["线性代数", "英语", "杂项"]
    linalg = payload["metrics"]["subjects"][0]
    assert (linalg["task_count"], linalg["placed_count"], linalg["pending_count"]) == (3, 2, 1)
    _, only = rhythm(s0, {"category": "英语", "include_pending": False})
    assert [s["category"] for s in only["metrics"]["subjects"]] == ["英语"]
    _, placed = rhythm(s0, {"include_pending": False})
    assert [s["category"] for s in placed["metrics"]["subjects"]] == ["线性代数", "英语"]
    bad = run_tool("analyze_rhythm", s0, {"dimensions": ["rhythm"]})
    assert not bad.ok and json.loads(bad.text)["error"].startswith("参数非法：dimensions。")


def test_candidates_respect_the_order_constraint(builders, classes):
    b = builders
    state = b.make_state(
        [
            b.item(1, "A1", 7, 1, slots=[(1, 1, 2)]),
            b.item(2, "A2", 7, 2, slots=[(2, 5, 5)], duration=1),
            b.item(3, "B1", 8, 1, slots=[(1, 3, 4)]),
            b.item(4, "C1", 9, 1, slots=[(3, 1, 2)]),
        ],
        days=3,
        classes=classes,
    )
    cands = health(state)[1]["decision"]["candidates"]
    ids = [c["candidate_id"] for c in cands]
    assert "swap_3_4" in ids
    assert "swap_1_4" not in ids  # A1 on day 3 would come after A2
    for cand in cands:
        if cand["tool"] == "move" and cand["arguments"]["task_id"] == 1:
            assert (cand["arguments"]["new_day"], cand["arguments"]["new_slot_start"]) < (2, 4)
    assert health(state)[1]["metrics"]["same_type_transition_ratio"] == 0.75  # not acceptable
