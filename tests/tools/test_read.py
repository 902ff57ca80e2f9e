"""Read tools: seed-origin §6 scenarios 12–15 and a passing and a failing case per argument rule."""

from __future__ import annotations

import json

import pytest

from planner_cli.tools.common import ToolContext
from planner_cli.tools.registry import get_spec, run_tool
from planner_cli.tools.slots import collect_slots, parse_slot_filters


def run(name, state, args=None, lang="zh"):
    return run_tool(name, state, args or {}, ToolContext(lang=lang))


def run_json(name, state, args=None, lang="zh"):
    result = run(name, state, args, lang)
    return result, json.loads(result.text)


def failing(name, state, args, lang="zh"):
    """Run a call that must fail and check that the state is untouched."""
    before = state.dump()
    result = run(name, state, args, lang)
    assert not result.ok, result.text
    assert result.state is state
    assert state.dump() == before
    return result


def spans(payload):
    return [(s["day"], s["slot_start"], s["slot_end"], s["slot_type"]) for s in payload["slots"]]


@pytest.fixture
def s1(builders):
    """S0 after scenario 1: task 4 embedded in the water course 2 on day 2 §3-4."""
    state = builders.build_s0()
    data = state.dump()
    for task in data["tasks"]:
        if task["state_id"] == 4:
            task.update(
                status="suggested", slots=[{"day": 2, "slot_start": 3, "slot_end": 4}], embed_host=2
            )
        if task["state_id"] == 2:
            task["embedded_by"] = [4]
    return type(state).model_validate(data)


def test_read_tools_are_registered_as_read():
    for name in (
        "get_overview",
        "query_range",
        "query_available_slots",
        "query_target_tasks",
        "list_tasks",
        "get_task_info",
    ):
        spec = get_spec(name)
        assert spec is not None and spec.kind == "read"
    assert (
        get_spec("query_available_slots").json_output and get_spec("query_target_tasks").json_output
    )
    assert get_spec("query_available_slots").strict and get_spec("query_target_tasks").strict
    assert not get_spec("query_range").strict


# -- get_overview ---------------------------------------------------------------------------

S0_OVERVIEW = """规划窗口共7天，每天12个时段，总计84个时段。
当前已占用10个，空闲74个。课程占位条目2个（仅用于占位统计）；任务条目：已安排(existing)0个、已预排(suggested)3个、待安排(pending)2个。

每日概况：
第1天(星期1)：总占4/12（课程占2/12，任务占2/12） — 任务：[3]线代1(suggested,5-6节)
第2天(星期2)：总占2/12（课程占2/12，任务占0/12） — 任务：无
第3天(星期3)：总占2/12（课程占0/12，任务占2/12） — 任务：[5]线代3(suggested,1-2节)
第4天(星期4)：总占2/12（课程占0/12，任务占2/12） — 任务：[6]英语1(suggested,1-2节)
第5天(星期5)：总占0/12（课程占0/12，任务占0/12） — 任务：无
第6天(星期6)：总占0/12（课程占0/12，任务占0/12） — 任务：无
第7天(星期7)：总占0/12（课程占0/12，任务占0/12） — 任务：无

任务清单（全量，已过滤课程）：
[3]线代1 | 状态:suggested | 类别:线性代数 | task_class_id:7 | 时段:第1天(星期1)(5-6节)
[4]线代2 | 状态:pending | 类别:线性代数 | task_class_id:7 | 需2个连续时段
[5]线代3 | 状态:suggested | 类别:线性代数 | task_class_id:7 | 时段:第3天(星期3)(1-2节)
[6]英语1 | 状态:suggested | 类别:英语 | task_class_id:8 | 时段:第4天(星期4)(1-2节)
[7]杂项 | 状态:pending | 类别:杂项 | task_class_id:9 | 需2个连续时段

任务类约束（排课时请遵守）：
[7]线性代数：策略=均匀分布，总时段预算=6，允许嵌入水课=是
[8]英语：策略=集中突击，总时段预算=2，允许嵌入水课=是
[9]杂项：策略=默认，总时段预算=2，允许嵌入水课=是"""


def test_get_overview_layout_of_s0(s0):
    result = run("get_overview", s0)
    assert result.ok and result.state is s0
    assert result.text == S0_OVERVIEW
    assert result.data["occupied"] == 10 and result.data["free"] == 74
    assert result.data["task_counts"] == {"existing": 0, "suggested": 3, "pending": 2}
    assert result.data["days"][0] == {
        "day": 1, "week": 12, "day_of_week": 1, "occupied": 4, "course": 2, "task": 2, "task_ids": [3],
    }  # fmt: skip
    assert result.data["task_ids"] == [3, 4, 5, 6, 7]


def test_get_overview_guest_listed_but_not_double_counted(s1):
    text = run("get_overview", s1).text
    assert (
        "第2天(星期2)：总占2/12（课程占2/12，任务占0/12） — 任务：[4]线代2(suggested,3-4节)" in text
    )
    assert "当前已占用10个，空闲74个。" in text
    assert "待安排(pending)1个" in text


def test_get_overview_empty_and_class_exclusions(builders):
    state = builders.make_state(
        [builders.course(1, "体育", [(1, 1, 4)])],
        days=1,
        classes=[builders.meta(7, excluded_slots=[1, 6], excluded_days_of_week=[6, 7])],
    )
    text = run("get_overview", state).text
    assert "无任务条目。" in text
    assert "第1天(星期1)：总占4/12（课程占4/12，任务占0/12） — 任务：无" in text
    assert (
        "[7]线性代数：策略=默认，总时段预算=0，允许嵌入水课=是，排除时段=[1,6]，排除星期=[6,7]"
        in text
    )
    no_classes = builders.make_state([], days=1)
    assert "任务类约束" not in run("get_overview", no_classes).text


def test_get_overview_english(s0):
    text = run("get_overview", s0, lang="en").text
    assert text.startswith(
        "The planning window has 7 days, 12 sections a day, 84 sections in total."
    )
    assert (
        "day 1 (Mon): 4/12 in use (courses 2/12, tasks 2/12) — tasks: [3]线代1(suggested, sections 5-6)"
        in text
    )
    assert "星期" not in text and "节" not in text


# -- query_range ----------------------------------------------------------------------------


def test_query_range_whole_day(s0):
    result = run("query_range", s0, {"day": 2})
    assert result.ok and result.state is s0
    assert result.text == (
        "第2天(星期2) 全天：\n\n"
        "第1-2节：空\n第3-4节：[2]思政（可嵌入）\n第5-6节：空\n第7-8节：空\n第9-10节：空\n第11-12节：空\n\n"
        "连续空闲区：第1-2节(2时段)、第5-12节(8时段)\n"
        "可嵌入：第3-4节已有[2]思政（可嵌入）"
    )
    assert result.data["free_runs"] == [[1, 2], [5, 12]]


def test_query_range_whole_day_locked_and_embedded(s1, builders):
    day1 = run("query_range", s1, {"day": 1}).text
    assert "第1-2节：[1]高等数学（固定）" in day1 and "第5-6节：[3]线代1" in day1
    assert "可嵌入" not in day1  # no water course that day
    day2 = run("query_range", s1, {"day": 2}).text
    assert "第3-4节：[2]思政（可嵌入） [4]线代2" in day2
    assert "可嵌入：第3-4节已有[2]思政（已嵌入[4]线代2）" in day2
    mixed = builders.make_state(
        [
            builders.course(1, "体育", [(1, 1, 2)]),
            builders.course(2, "思政", [(1, 3, 4)], can_embed=True),
        ],
        days=1,
    )
    assert (
        "可嵌入：第1-2节已有[1]体育（固定，不可嵌入）；第3-4节已有[2]思政（可嵌入）"
        in run("query_range", mixed, {"day": 1}).text
    )


def test_query_range_full_day_has_no_free_runs(builders):
    state = builders.make_state([builders.course(1, "实验", [(1, 1, 12)])], days=1)
    text = run("query_range", state, {"day": 1}).text
    assert "连续空闲区" not in text and text.endswith("第11-12节：[1]实验（固定）")


def test_query_range_explicit_range(s0, s1):
    assert run("query_range", s0, {"day": 4, "slot_start": 5, "slot_end": 8}).text == (
        "第4天(星期4)第5-8节：\n\n第5节：空\n第6节：空\n第7节：空\n第8节：空\n\n该范围4个时段全部空闲。"
    )
    mixed = run("query_range", s1, {"day": 2, "slot_start": 2, "slot_end": 4})
    assert mixed.text == (
        "第2天(星期2)第2-4节：\n\n第2节：空\n第3节：[2]思政\n第4节：[2]思政\n\n该范围3个时段中，1个空闲，2个被占用。"
    )
    assert mixed.data["sections"][1] == {"section": 3, "task_id": 2}
    one = run("query_range", s0, {"day": 1, "slot_start": 1, "slot_end": 1}).text
    assert one.startswith("第1天(星期1)第1节：")


def test_query_range_one_bound_means_whole_day(s0):
    assert run("query_range", s0, {"day": 1, "slot_start": 5}).text.startswith(
        "第1天(星期1) 全天："
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "查询失败：缺少必填参数 day。"),
        ({"day": "3"}, "查询失败：缺少必填参数 day。"),
        ({"day": 8}, "查询失败：第8天不在规划窗口范围内（1-7）。"),
        ({"day": 0}, "查询失败：第0天不在规划窗口范围内（1-7）。"),
        ({"day": 8, "slot_start": 0, "slot_end": 2}, "查询失败：第8天不在规划窗口范围内（1-7）。"),
        ({"day": 1, "slot_start": 0, "slot_end": 2}, "查询失败：起始时段 0 不能小于1"),
        ({"day": 1, "slot_start": 11, "slot_end": 13}, "查询失败：结束时段 13 不能大于12"),
        ({"day": 1, "slot_start": 6, "slot_end": 5}, "查询失败：起始时段 6 不能大于结束时段 5"),
    ],
)
def test_query_range_validation(s0, args, message):
    assert failing("query_range", s0, args).text == message


def test_query_range_english(s0):
    assert run("query_range", s0, {"day": 4, "slot_start": 5, "slot_end": 6}, lang="en").text == (
        "day 4 (Thu) sections 5-6:\n\nSection 5: free\nSection 6: free\n\nAll 2 sections of this range are free."
    )
    assert failing(
        "query_range", s0, {"day": 1, "slot_start": 6, "slot_end": 5}, lang="en"
    ).text == ("Query failed: start section 6 must not be greater than end section 5")


# -- query_available_slots ------------------------------------------------------------------

DAY2_STRICT = [(2, a, a + 1, "empty") for a in (1, 5, 6, 7, 8, 9, 10, 11)]


def test_scenario_12_strict_then_embedded(s0):
    result, payload = run_json("query_available_slots", s0, {"span": 2, "day": 2})
    assert result.ok and result.state is s0 and result.data == payload
    assert spans(payload) == [*DAY2_STRICT, (2, 3, 4, "embedded_candidate")]
    assert payload["count"] == 9 and payload["strict_count"] == 8 and payload["embedded_count"] == 1
    assert payload["fallback_used"] is True
    assert list(payload) == [
        "tool", "count", "strict_count", "embedded_count", "fallback_used", "day_scope", "day_of_week",
        "week_filter", "week_from", "week_to", "span", "allow_embed", "exclude_sections", "slots",
    ]  # fmt: skip
    assert payload["slots"][0] == {
        "day": 2, "week": 12, "day_of_week": 2, "slot_start": 1, "slot_end": 2, "slot_type": "empty",
    }  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [
        {"span": 2, "day": 2, "slot_type": "pure"},
        {"span": 2, "day": 2, "slot_type": " STRICT "},
        {"span": 2, "day": 2, "slot_types": ["embedded", "empty"]},
        {"span": 2, "day": 2, "allow_embed": False},
        {"span": 2, "day": 2, "allow_embed": "false"},
    ],
)
def test_scenario_12_strict_only(s0, args):
    _, payload = run_json("query_available_slots", s0, args)
    assert spans(payload) == DAY2_STRICT
    assert payload["allow_embed"] is False and payload["fallback_used"] is False


def test_slot_type_without_pure_hint_keeps_embedding(s0):
    _, payload = run_json(
        "query_available_slots", s0, {"span": 2, "day": 2, "slot_type": "embedded"}
    )
    assert payload["allow_embed"] is True and payload["embedded_count"] == 1


def test_scenario_12_occupied_occurrence_is_not_offered(s1):
    _, payload = run_json("query_available_slots", s1, {"span": 2, "day": 2})
    assert spans(payload) == DAY2_STRICT and payload["embedded_count"] == 0


def test_embedding_is_per_occurrence(builders):
    state = builders.make_state(
        [
            builders.course(1, "思政", [(1, 3, 4), (2, 3, 4)], can_embed=True),
            builders.item(2, "复习", 7, 1, slots=[(1, 3, 4)], embed_host=1),
        ],
        days=2,
    )
    _, payload = run_json(
        "query_available_slots", state, {"span": 2, "section_from": 3, "section_to": 4}
    )
    assert spans(payload) == [(2, 3, 4, "embedded_candidate")]
    # a range only partly inside an occurrence is neither strict nor embedded
    _, payload = run_json("query_available_slots", state, {"span": 2, "day": 2, "slot_types": []})
    assert (2, 2, 3, "empty") not in spans(payload) and (2, 4, 5, "empty") not in spans(payload)
    # a span-1 range inside a free occurrence is an embedded candidate, twice
    _, payload = run_json("query_available_slots", state, {"span": 1, "day": 2, "limit": 20})
    assert [s for s in spans(payload) if s[3] == "embedded_candidate"] == [
        (2, 3, 3, "embedded_candidate"),
        (2, 4, 4, "embedded_candidate"),
    ]


def test_guests_do_not_occupy_beyond_their_host(builders):
    state = builders.make_state(
        [
            builders.course(1, "思政", [(1, 1, 4)], can_embed=True),
            builders.item(2, "复习", 7, 1, slots=[(1, 1, 2)], embed_host=1),
        ],
        days=1,
    )
    _, payload = run_json("query_available_slots", state, {"span": 2, "limit": 50})
    assert spans(payload)[0] == (1, 5, 6, "empty")
    assert [s for s in spans(payload) if s[3] != "empty"] == []  # the occurrence is taken


def test_limit_and_order_strict_before_embedded(s0):
    _, payload = run_json("query_available_slots", s0, {"span": 2, "day": 2, "limit": 3})
    assert spans(payload) == DAY2_STRICT[:3] and payload["fallback_used"] is False
    _, default = run_json("query_available_slots", s0, {"limit": 0})
    assert default["count"] == 12 and default["span"] == 2
    assert spans(default)[:2] == [(1, 3, 4, "empty"), (1, 7, 8, "empty")]


def test_span_and_duration(s0):
    _, payload = run_json("query_available_slots", s0, {"duration": 12})
    assert payload["span"] == 12 and spans(payload) == [(d, 1, 12, "empty") for d in (5, 6, 7)]
    _, payload = run_json("query_available_slots", s0, {"span": 3, "duration": 5, "day": 4})
    assert payload["span"] == 3 and spans(payload)[0] == (4, 3, 5, "empty")
    _, payload = run_json("query_available_slots", s0, {"span": 0})
    assert payload["span"] == 2
    _, payload = run_json("query_available_slots", s0, {"span": 2.9, "day": 5, "limit": 1})
    assert payload["span"] == 2


@pytest.mark.parametrize("span", [13, 40])
def test_span_above_12_fails(s0, span):
    result = failing("query_available_slots", s0, {"span": span})
    assert json.loads(result.text) == {
        "tool": "query_available_slots",
        "success": False,
        "error": f"span={span} 非法，必须在 1~12",
    }


def test_exact_section_pair(s0):
    _, payload = run_json(
        "query_available_slots", s0, {"section_from": 5, "section_to": 7, "span": 2}
    )
    assert payload["span"] == 3
    assert spans(payload) == [(d, 5, 7, "empty") for d in (2, 3, 4, 5, 6, 7)]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"section_from": 3}, "精确节次查询需要同时提供 section_from 和 section_to"),
        ({"section_to": 3}, "精确节次查询需要同时提供 section_from 和 section_to"),
        ({"section_from": 0, "section_to": 2}, "精确节次区间非法：0-2"),
        ({"section_from": 11, "section_to": 13}, "精确节次区间非法：11-13"),
        ({"section_from": 6, "section_to": 5}, "精确节次区间非法：6-5"),
    ],
)
def test_exact_section_pair_errors(s0, args, error):
    assert json.loads(failing("query_available_slots", s0, args).text)["error"] == error


def test_section_filters(s0):
    _, payload = run_json("query_available_slots", s0, {"day": 5, "after_section": 8, "limit": 50})
    assert spans(payload) == [(5, 9, 10, "empty"), (5, 10, 11, "empty"), (5, 11, 12, "empty")]
    _, payload = run_json("query_available_slots", s0, {"day": 5, "before_section": 4, "limit": 50})
    assert spans(payload) == [(5, 1, 2, "empty"), (5, 2, 3, "empty")]
    _, payload = run_json(
        "query_available_slots",
        s0,
        {"day": 5, "exclude_sections": [3, 8, 3], "span": 4, "limit": 50},
    )
    assert spans(payload) == [(5, 4, 7, "empty"), (5, 9, 12, "empty")]
    assert payload["exclude_sections"] == [3, 8]
    _, payload = run_json(
        "query_available_slots", s0, {"day": 5, "exclude_sections": 1, "span": 11}
    )
    assert spans(payload) == [(5, 2, 12, "empty")] and payload["exclude_sections"] == [1]


def test_day_scope_and_weekdays(s0):
    _, payload = run_json("query_available_slots", s0, {"day_scope": "weekend", "span": 12})
    assert [s[0] for s in spans(payload)] == [6, 7] and payload["day_scope"] == "weekend"
    _, payload = run_json("query_available_slots", s0, {"day_scope": "workday", "span": 12})
    assert [s[0] for s in spans(payload)] == [5]
    _, payload = run_json("query_available_slots", s0, {"day_scope": "holiday", "span": 12})
    assert payload["day_scope"] == "all" and [s[0] for s in spans(payload)] == [5, 6, 7]
    _, payload = run_json(
        "query_available_slots", s0, {"day_scope": "weekend", "day_of_week": [5, 3], "span": 12}
    )
    assert [s[0] for s in spans(payload)] == [5] and payload["day_of_week"] == [3, 5]


def test_week_filters(builders):
    state = builders.make_state([], days=14, week=12)
    cases = [
        ({"week": 13}, list(range(8, 15)), [], 13, 13),
        ({"week_filter": [13]}, list(range(8, 15)), [13], 12, 13),
        ({"week_filter": 12}, list(range(1, 8)), [12], 12, 13),
        ({"week_from": 13, "week_to": 12}, list(range(1, 15)), [], 12, 13),
        ({"week_from": 13}, list(range(8, 15)), [], 13, 13),
        ({"week_to": 12, "day_start": 5}, [5, 6, 7], [], 12, 12),
        ({"week": 14}, [], [], 14, 14),
    ]
    for args, days, wf, lo, hi in cases:
        _, payload = run_json("query_available_slots", state, {**args, "span": 12, "limit": 99})
        assert [s[0] for s in spans(payload)] == days, args
        assert (payload["week_filter"], payload["week_from"], payload["week_to"]) == (wf, lo, hi), (
            args
        )


def test_day_range_passes(s0):
    _, payload = run_json("query_available_slots", s0, {"day_start": 5, "day_end": 6, "span": 12})
    assert [s[0] for s in spans(payload)] == [5, 6]
    _, payload = run_json("query_available_slots", s0, {"day_start": 6, "span": 12})
    assert [s[0] for s in spans(payload)] == [6, 7]
    _, payload = run_json("query_available_slots", s0, {"day_start": 3, "day_end": 3, "span": 12})
    assert payload["count"] == 0 and payload["slots"] == []


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"day": 1, "day_start": 1}, "day 与 day_start/day_end 不能同时传入"),
        ({"day": 1, "day_end": 3}, "day 与 day_start/day_end 不能同时传入"),
        ({"day_start": 5, "day_end": 2}, "day_start=5 不能大于 day_end=2"),
        ({"day_start": 9, "day_end": 2}, "day_start=9 不能大于 day_end=2"),
        ({"day": 8}, "第8天不在规划窗口范围内（1-7）。"),
        ({"day_end": 8}, "第8天不在规划窗口范围内（1-7）。"),
        ({"day_start": 0}, "第0天不在规划窗口范围内（1-7）。"),
    ],
)
def test_scenario_13_day_errors(s0, args, error):
    result = failing("query_available_slots", s0, args)
    assert json.loads(result.text) == {
        "tool": "query_available_slots",
        "success": False,
        "error": error,
    }


def test_scenario_13_whitelist(s0):
    result = failing("query_available_slots", s0, {"day_from": 1})
    assert result.text == json.dumps(
        {
            "tool": "query_available_slots",
            "success": False,
            "error": "参数非法：day_from。请仅使用当前工具 schema 中声明的参数字段；day_from/day_to 不受支持，请改用 day_start/day_end。",
        },
        ensure_ascii=False,
    )
    result = failing(
        "query_available_slots", s0, {"weeks": [12], "allow_embedding": True, "span": 2}
    )
    assert (
        json.loads(result.text)["error"]
        == "参数非法：allow_embedding、weeks。请仅使用当前工具 schema 中声明的参数字段。"
    )
    result = failing("query_available_slots", s0, {"target_section_from": 1}, lang="en")
    assert json.loads(result.text)["error"] == (
        "Invalid arguments: target_section_from. Use only the argument fields declared in this tool's schema."
    )


def test_whitelisted_aliases_are_accepted(s0):
    args = {
        "span": 2, "duration": 2, "limit": 5, "allow_embed": True, "day_start": 1, "day_end": 7,
        "day_scope": "all", "day_of_week": [1, 2, 3, 4, 5, 6, 7], "week": 12, "week_filter": [12],
        "week_from": 12, "week_to": 12, "slot_type": "any", "slot_types": ["any"],
        "exclude_sections": [], "after_section": 0, "before_section": 13, " ": 1,
    }  # fmt: skip
    result, payload = run_json("query_available_slots", s0, args)
    assert result.ok and payload["count"] == 5


def test_query_available_slots_english_error(s0):
    result = failing("query_available_slots", s0, {"day_start": 5, "day_end": 2}, lang="en")
    assert json.loads(result.text)["error"] == "day_start=5 must not be greater than day_end=2"


def test_collect_slots_for_a_task_sees_its_own_place(s0):
    filters = parse_slot_filters({"day": 1}, s0, "zh")
    task = s0.task(3)
    plain = collect_slots(s0, filters, 2, 50, True)
    own = collect_slots(s0, filters, 2, 50, True, task=task)
    assert (1, 5, 6) not in [(s["day"], s["slot_start"], s["slot_end"]) for s in plain]
    assert (1, 5, 6) in [(s["day"], s["slot_start"], s["slot_end"]) for s in own]
    others = collect_slots(s0, filters, 2, 50, True, exclude=[1, 3])
    assert (1, 1, 2) in [(s["day"], s["slot_start"], s["slot_end"]) for s in others]


def test_collect_slots_embedding_respects_the_class(builders):
    state = builders.make_state(
        [
            builders.course(1, "思政", [(1, 1, 12)], can_embed=True),
            builders.item(2, "复习", 7, 1, status="pending"),
        ],
        days=1,
        classes=[builders.meta(7, allow_filler_course=False)],
    )
    filters = parse_slot_filters({}, state, "zh")
    assert collect_slots(state, filters, 2, 5, True, task=state.task(2)) == []
    assert len(collect_slots(state, filters, 2, 5, True)) == 5
    assert collect_slots(state, filters, 2, 5, False) == []


# -- query_target_tasks ---------------------------------------------------------------------


def test_scenario_14_query_target_tasks_enqueues(s0):
    before = s0.dump()
    result, payload = run_json("query_target_tasks", s0, {})
    assert result.ok and s0.dump() == before  # input untouched
    assert payload["status"] == "suggested" and payload["count"] == 3
    assert [i["task_id"] for i in payload["items"]] == [3, 5, 6]
    assert payload["enqueued"] == 3 and payload["enqueue"] is True
    assert payload["queue"] == {
        "pending_count": 3, "completed_count": 0, "skipped_count": 0, "current_task_id": 0, "current_attempt": 0,
    }  # fmt: skip
    assert payload["items"][0] == {
        "task_id": 3, "name": "线代1", "category": "线性代数", "status": "suggested", "duration": 2,
        "task_class_id": 7, "slots": [{"day": 1, "week": 12, "day_of_week": 1, "slot_start": 5, "slot_end": 6}],
    }  # fmt: skip
    assert result.state.runtime_queue.pending_task_ids == [3, 5, 6]
    again, payload = run_json("query_target_tasks", result.state, {})
    assert payload["enqueued"] == 0 and again.state.runtime_queue.pending_task_ids == [3, 5, 6]


def test_query_target_tasks_skips_known_queue_ids(s0):
    data = s0.dump()
    data["runtime_queue"] = {
        "pending_task_ids": [6],
        "current_task_id": 5,
        "completed_task_ids": [3],
    }
    state = type(s0).model_validate(data)
    result, payload = run_json("query_target_tasks", state, {})
    assert payload["enqueued"] == 0 and result.state.dump() == state.dump()
    data["runtime_queue"] = {"pending_task_ids": [], "current_task_id": 0, "skipped_task_ids": [3]}
    state = type(s0).model_validate(data)
    result, payload = run_json("query_target_tasks", state, {})
    assert payload["enqueued"] == 2 and result.state.runtime_queue.pending_task_ids == [5, 6]


def test_query_target_tasks_reset_queue(s0):
    data = s0.dump()
    data["runtime_queue"] = {
        "pending_task_ids": [6], "current_task_id": 5, "current_attempts": 2, "completed_task_ids": [3],
        "last_error": "x",
    }  # fmt: skip
    state = type(s0).model_validate(data)
    result, payload = run_json(
        "query_target_tasks", state, {"reset_queue": True, "task_ids": [6, 3]}
    )
    queue = result.state.runtime_queue
    assert (
        queue.pending_task_ids == [3, 6]
        and queue.current_task_id == 0
        and not queue.completed_task_ids
    )
    assert queue.last_error == "" and payload["queue"]["current_attempt"] == 0


def test_query_target_tasks_without_enqueue_changes_nothing(s0):
    result, payload = run_json("query_target_tasks", s0, {"enqueue": False})
    assert result.state is s0 and s0.runtime_queue is None
    assert "queue" not in payload and payload["enqueued"] == 0 and payload["count"] == 3
    result, payload = run_json("query_target_tasks", s0, {"status": "all", "day": 6})
    assert payload["count"] == 0 and result.state is s0 and payload["queue"]["pending_count"] == 0


def test_query_target_tasks_filters(s0):
    def ids(args):
        return [
            i["task_id"]
            for i in run_json("query_target_tasks", s0, {"enqueue": False, **args})[1]["items"]
        ]

    assert ids({"status": "pending"}) == [4, 7]
    assert ids({"status": " Pending "}) == [4, 7]
    assert ids({"status": "existing"}) == [1, 2]
    assert ids({"status": "all"}) == [1, 3, 2, 5, 6, 4, 7]
    assert ids({"status": "all", "limit": 2}) == [1, 3]
    assert (
        ids({"status": "pending", "day_scope": "workday"}) == []
    )  # a calendar filter drops slotless tasks
    assert ids({"day": 3}) == [5]
    assert ids({"day_start": 3, "day_end": 4}) == [5, 6]
    assert ids({"day_of_week": [1, 4]}) == [3, 6]
    assert ids({"category": " 线性代数 "}) == [3, 5]
    assert ids({"category": "线性"}) == []
    assert ids({"task_ids": [6, 3]}) == [3, 6]
    assert ids({"task_item_ids": [5], "task_id": 6}) == [5, 6]
    assert ids({"task_item_id": 3}) == [3]
    assert ids({"task_ids": 5}) == [5]


def test_query_target_tasks_multi_slot_keeps_only_filtered_slots(builders):
    state = builders.make_state(
        [builders.course(1, "思政", [(1, 3, 4), (3, 3, 4)], can_embed=True)], days=3
    )
    _, payload = run_json(
        "query_target_tasks", state, {"status": "existing", "day": 3, "enqueue": False}
    )
    assert payload["items"][0]["slots"] == [
        {"day": 3, "week": 12, "day_of_week": 3, "slot_start": 3, "slot_end": 4}
    ]
    assert (
        payload["items"][0]["duration"] == 4
    )  # no duration field: all its sections, as move counts them


@pytest.mark.parametrize("status", ["foo", "existing,suggested", 'x"y\\z'])
def test_query_target_tasks_invalid_status(s0, status):
    result = failing("query_target_tasks", s0, {"status": status})
    assert json.loads(result.text) == {
        "tool": "query_target_tasks",
        "success": False,
        "error": f'status="{status}" 非法，仅支持 all/existing/suggested/pending',
    }


def test_query_target_tasks_whitelist_and_days(s0):
    result = failing("query_target_tasks", s0, {"task_class_ids": [7], "days": [1]})
    assert (
        json.loads(result.text)["error"]
        == "参数非法：days、task_class_ids。请仅使用当前工具 schema 中声明的参数字段。"
    )
    result = failing("query_target_tasks", s0, {"day_start": 4, "day_end": 1})
    assert json.loads(result.text)["error"] == "day_start=4 不能大于 day_end=1"


def test_json_is_valid_with_quotes_and_backslashes(builders):
    name = 'say "hi" \\ back\\slash'
    state = builders.make_state(
        [builders.item(1, name, 7, 1, slots=[(1, 1, 2)], category='c"at')], days=1
    )
    result, payload = run_json("query_target_tasks", state, {})
    assert payload["items"][0]["name"] == name and payload["items"][0]["category"] == 'c"at'
    assert name in run("get_task_info", state, {"task_id": 1}).text


# -- list_tasks -----------------------------------------------------------------------------


def test_list_tasks_all(s0):
    result = run("list_tasks", s0)
    assert result.ok and result.state is s0
    assert result.text == (
        "共7个任务，已安排(existing)2个，已预排(suggested)3个，待安排(pending)2个。\n\n"
        "已安排(existing)：\n"
        "  [1]高等数学(课程,固定) — 第1天(星期1)(1-2节)\n"
        "  [2]思政(课程,可嵌入) — 第2天(星期2)(3-4节)\n\n"
        "已预排(suggested)：\n"
        "  [3]线代1(线性代数) — 第1天(星期1)(5-6节)\n"
        "  [5]线代3(线性代数) — 第3天(星期3)(1-2节)\n"
        "  [6]英语1(英语) — 第4天(星期4)(1-2节)\n\n"
        "待安排(pending)：\n"
        "  [4]线代2(线性代数) — 需2个连续时段\n"
        "  [7]杂项(杂项) — 需2个连续时段"
    )
    assert result.data == {
        "status": "all", "category": None, "existing": [1, 2], "suggested": [3, 5, 6], "pending": [4, 7],
    }  # fmt: skip


def test_list_tasks_single_status(s0):
    assert run("list_tasks", s0, {"status": "pending"}).text == (
        "待安排任务共2个：\n\n[4]线代2 — 需2个连续时段，类别：线性代数\n[7]杂项 — 需2个连续时段，类别：杂项"
    )
    assert run("list_tasks", s0, {"status": "SUGGESTED", "category": "英语"}).text == (
        "已预排任务共1个：\n\n[6]英语1 — 已预排至 第4天(星期4)(1-2节)，类别：英语"
    )
    existing = run("list_tasks", s0, {"status": "existing"})
    assert existing.text.startswith(
        "已安排任务共2个：\n\n  [1]高等数学(课程,固定) — 第1天(星期1)(1-2节)"
    )
    assert existing.data == {"status": "existing", "category": None, "existing": [1, 2]}
    assert run("list_tasks", s0, {"status": " "}).text.startswith("共7个任务")


def test_scenario_15_status_guard(s0):
    assert failing("list_tasks", s0, {"status": "existing,suggested"}).text == (
        '查询失败：status 只支持单值 all/existing/suggested/pending，不支持 "existing,suggested"。'
        "如需同时查看 existing+suggested，请使用 all"
    )
    assert failing("list_tasks", s0, {"status": ["existing", "pending"]}).text.startswith(
        "查询失败：status 只支持单值"
    )
    assert failing("list_tasks", s0, {"status": "placed"}).text == (
        '查询失败：status="placed" 非法，仅支持 all/existing/suggested/pending'
    )
    assert failing("list_tasks", s0, {"status": "placed"}, lang="en").text == (
        'Query failed: status="placed" is invalid; only all/existing/suggested/pending are supported'
    )


def test_scenario_15_category_messages(s0, builders):
    hint = "category 参数按任务类名称匹配，不支持 task_class_ids 列表。"
    assert (
        run("list_tasks", s0, {"category": "7,8"}).text
        == f'查询结果为空：category="7,8" 下没有任务。{hint}'
    )
    assert run("list_tasks", s0, {"category": [7, 8]}).text.endswith(hint)
    assert run("list_tasks", s0, {"category": 7}).text.endswith(hint)
    assert (
        run("list_tasks", s0, {"category": "化学"}).text
        == '查询结果为空：category="化学" 下没有任务。'
    )
    assert run("list_tasks", s0, {"category": "英语", "status": "pending"}).text == (
        '查询结果为空：category="英语" 下没有待安排(pending)任务。'
    )
    assert run("list_tasks", s0, {"category": " 英语 "}).data["suggested"] == [6]
    empty = builders.make_state([], days=1)
    assert (
        run("list_tasks", empty, {"status": "pending"}).text
        == "查询结果为空：当前没有待安排(pending)任务。"
    )
    assert run("list_tasks", empty, {}, lang="en").text == "Empty result: there are no tasks."


def test_list_tasks_english(s0):
    text = run("list_tasks", s0, {"status": "pending"}, lang="en").text
    assert text == (
        "2 pending tasks:\n\n[4]线代2 — needs 2 consecutive sections, category: 线性代数\n"
        "[7]杂项 — needs 2 consecutive sections, category: 杂项"
    )


# -- get_task_info --------------------------------------------------------------------------


def test_get_task_info_locked_course(s0):
    result = run("get_task_info", s0, {"task_id": 1})
    assert result.text == (
        "[1]高等数学\n类别：课程 | 状态：已安排(existing,固定)\n来源：课程表\n占用时段：\n  第1天(星期1)第1-2节"
    )
    assert result.data["slots"] == [
        {"day": 1, "week": 12, "day_of_week": 1, "slot_start": 1, "slot_end": 2}
    ]
    assert result.data["status_label"] == "existing" and result.data["locked"] is True


def test_get_task_info_pending_and_suggested(s0):
    assert run("get_task_info", s0, {"task_id": 4}).text == (
        "[4]线代2\n类别：线性代数 | 状态：待安排(pending)\n来源：任务\n占用时段：无\n需要时段：2个连续时段"
    )
    assert run("get_task_info", s0, {"task_id": 3}).text == (
        "[3]线代1\n类别：线性代数 | 状态：已预排(suggested)\n来源：任务\n占用时段：\n  第1天(星期1)第5-6节\n"
        "原始需求：2个连续时段"
    )


def test_get_task_info_host_lists_guest_per_occurrence(builders):
    state = builders.make_state(
        [
            builders.course(1, "思政", [(1, 3, 4), (2, 3, 4), (3, 3, 4)], can_embed=True),
            builders.item(2, "复习A", 7, 1, slots=[(1, 3, 4)], embed_host=1),
            builders.item(3, "复习B", 7, 2, slots=[(3, 3, 4)], embed_host=1),
        ],
        days=3,
    )
    result = run("get_task_info", state, {"task_id": 1})
    assert result.text.endswith(
        "可嵌入：是（允许在此时段嵌入其他任务）\n占用时段：\n  第1天(星期1)第3-4节\n  第2天(星期2)第3-4节\n"
        "  第3天(星期3)第3-4节\n当前嵌入任务：[2]复习A（第1天(星期1)第3-4节）；[3]复习B（第3天(星期3)第3-4节）"
    )
    assert [g["task_id"] for g in result.data["guests"]] == [2, 3]
    assert run("get_task_info", state, {"task_id": 3}).text.endswith("嵌入宿主：[1]思政")
    free_host = run("get_task_info", builders.build_s0(), {"task_id": 2}).text
    assert free_host.endswith("当前嵌入任务：无")


def test_get_task_info_failures(s0):
    assert failing("get_task_info", s0, {"task_id": 99}).text == "查询失败：任务ID 99 不存在。"
    assert failing("get_task_info", s0, {}).text == "查询失败：缺少必填参数 task_id。"
    assert (
        failing("get_task_info", s0, {}, lang="en").text
        == "Query failed: missing required argument task_id."
    )


def test_get_task_info_english(s0):
    assert run("get_task_info", s0, {"task_id": 2}, lang="en").text == (
        "[2]思政\nCategory: 课程 | status: existing\nSource: timetable\n"
        "Embeddable: yes (other tasks may be embedded in its sections)\nOccupied sections:\n"
        "  day 2 (Tue) sections 3-4\nEmbedded tasks: none"
    )
