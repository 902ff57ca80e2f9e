"""spread_even: seed-origin §6.17 adapted (current positions are candidates), no change,
whitelist, slot_type forwarding, the order constraint, too few candidates."""

from __future__ import annotations

from planner_cli.io.files import dumps
from planner_cli.tools.registry import run_tool

from .builders import course, item, meta, slots_of, state


def two_on_day_one(days: int = 3):  # type: ignore[no-untyped-def]
    return state(days, [item(1, 7, slots=[(1, 1, 2)]), item(2, 7, slots=[(1, 3, 4)])], [meta(7)])


def test_scenario_17_adapted() -> None:
    st = two_on_day_one()
    result = run_tool("spread_even", st, {"task_ids": [1, 2]})
    assert result.ok, result.text
    lines = result.text.split("\n")
    assert lines[0] == "均匀化调整完成：共处理 2 个任务，候选坑位 12 个。"
    assert lines[1] == "本次调整："
    assert lines[2] == "  [2]t2：第1天(星期1)第3-4节 -> 第2天(星期2)第1-2节"
    assert slots_of(result.state, 1) == [(1, 1, 2)]  # a current position is a candidate: it stays
    assert slots_of(result.state, 2) == [(2, 1, 2)]
    assert result.changed == [2]
    assert slots_of(st, 2) == [(1, 3, 4)]  # the input state is untouched


def test_already_even_is_no_change() -> None:
    st = state(2, [item(1, 7, slots=[(1, 1, 2)]), item(2, 7, slots=[(2, 1, 2)])], [meta(7)])
    result = run_tool("spread_even", st, {"task_ids": [1, 2]})
    assert result.ok
    assert result.text.split("\n")[1] == "规划结果与当前落位一致，无需调整。"
    assert dumps(result.state.dump()) == dumps(st.dump())


def test_whitelist_rejects_unknown_arguments() -> None:
    st = two_on_day_one()
    result = run_tool("spread_even", st, {"task_ids": [1, 2], "to_day": 2})
    assert not result.ok
    assert result.text.startswith("均匀化调整失败：参数非法：to_day。")
    assert result.state is st


def test_slot_type_is_forwarded() -> None:
    tasks = [
        course(5, [(1, 5, 6)], can_embed=True),
        item(1, 7, slots=[(1, 1, 2)]),
        item(2, 7, slots=[(1, 3, 4)]),
    ]
    st = state(1, tasks, [meta(7)])
    mixed = run_tool("spread_even", st, {"task_ids": [1, 2]})
    pure = run_tool("spread_even", st, {"task_ids": [1, 2], "slot_type": "pure"})
    assert "候选坑位 9 个" in mixed.text  # 8 strictly free ranges + the water course
    assert "候选坑位 8 个" in pure.text


def test_order_is_kept_jointly() -> None:
    def run(order: bool):  # type: ignore[no-untyped-def]
        first = item(1, 7, order=1 if order else 0, slots=[(2, 1, 2)])
        second = item(2, 7, order=2 if order else 0, slots=[(2, 3, 4)])
        st = state(2, [first, second], [meta(7)])
        return run_tool("spread_even", st, {"task_ids": [2, 1]})

    free = run(order=False)
    assert slots_of(free.state, 2)[0][0] == 1  # the first listed task goes first
    ordered = run(order=True)
    assert ordered.ok
    assert slots_of(ordered.state, 1)[0][0] == 1
    assert slots_of(ordered.state, 2) == [(2, 3, 4)]


def test_too_few_candidates() -> None:
    st = two_on_day_one()  # days 1-3 are Monday to Wednesday
    result = run_tool("spread_even", st, {"task_ids": [1, 2], "day_scope": "weekend"})
    assert not result.ok
    assert result.text == "均匀化调整失败：跨度=2 可用坑位不足：required=2, got=0。"


def test_only_suggested_tasks() -> None:
    st = state(2, [item(1, 7, slots=[(1, 1, 2)]), item(2, 7)], [meta(7)])
    result = run_tool("spread_even", st, {"task_ids": [1, 2]})
    assert not result.ok
    assert result.text == "均匀化调整失败：[2]t2 不是 suggested 任务，仅 suggested 可参与该工具"
    missing = run_tool("spread_even", st, {})
    assert missing.text == "均匀化调整失败：缺少必填参数 task_ids（兼容单值 task_id）。"


def test_spread_even_needs_two_tasks_like_min_context_switch() -> None:
    from planner_cli.tools.registry import run_tool
    from tests.tools.conftest import build_s0

    state = build_s0()
    result = run_tool("spread_even", state, {"task_ids": [3]})
    assert not result.ok and result.state is state
    assert result.text == "均匀化调整失败：task_ids 至少需要 2 个有效任务 ID"


def test_pure_slots_rule_out_staying_inside_a_water_course() -> None:
    from planner_cli.tools.registry import run_tool
    from tests.tools.conftest import course, item, make_state

    state = make_state(
        [
            course(1, "思政", [(2, 3, 4)], can_embed=True),
            item(2, "复习 A", 9, 0, slots=[(2, 3, 4)], embed_host=1),
            item(3, "复习 B", 9, 0, slots=[(1, 1, 2)]),
        ],
        days=3,
    )
    kept = run_tool("spread_even", state, {"task_ids": [2, 3]})
    assert kept.ok and kept.state.task(2).embed_host == 1  # embedding allowed: it may stay
    pure = run_tool("spread_even", state, {"task_ids": [2, 3], "slot_type": "pure"})
    assert pure.ok and pure.state.task(2).embed_host is None
    assert pure.state.task(1).embedded_by == []
