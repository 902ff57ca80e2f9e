"""min_context_switch: seed-origin §6 scenario 16, the regrouping of §3.3 and the §2.14 checks."""

from __future__ import annotations

import pytest


def keys(state, task_id):
    return [s.key() for s in state.task(task_id).slots]


@pytest.fixture
def aba(builders):
    """Three suggested 2-section tasks with contexts A, B, A on day 1 §1-2, §3-4, §5-6."""
    b = builders
    return b.make_state(
        [
            b.item(1, "a1", 1, 0, category="A", slots=[(1, 1, 2)]),
            b.item(2, "b", 2, 0, category="B", slots=[(1, 3, 4)]),
            b.item(3, "a2", 1, 0, category="A", slots=[(1, 5, 6)]),
        ]
    )


def test_scenario_16_regroups(aba, calls):
    result = calls.ok("min_context_switch", aba, {"task_ids": [1, 2, 3]})
    new = result.state
    assert keys(new, 1) == [(1, 1, 2)]
    assert keys(new, 3) == [(1, 3, 4)]
    assert keys(new, 2) == [(1, 5, 6)]
    assert result.text == (
        "最少上下文切换重排完成：共处理 3 个任务，上下文切换次数 2 -> 1。\n"
        "本次调整：\n"
        "  [2]b：第1天(星期1)第3-4节 -> 第1天(星期1)第5-6节\n"
        "  [3]a2：第1天(星期1)第5-6节 -> 第1天(星期1)第3-4节\n"
        "第1天(星期1)当前占用：[1]a1(1-2节) [3]a2(3-4节) [2]b(5-6节)，占用6/12。"
    )
    assert result.changed == [2, 3]
    assert result.data["switches_before"] == 2 and result.data["switches_after"] == 1


def test_scenario_16_en(aba, calls):
    result = calls.ok("min_context_switch", aba, {"task_ids": [1, 2, 3]}, lang="en")
    assert result.text.startswith(
        "Context-switch reduction done: 3 tasks processed, context switches 2 -> 1.\nChanges:\n"
        "  [2]b: day 1 (Mon) sections 3-4 -> day 1 (Mon) sections 5-6\n"
    )


def test_biggest_group_takes_the_earliest_positions(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.item(1, "b1", 2, 0, category="B", slots=[(1, 1, 2)]),
            b.item(2, "a1", 1, 0, category="A", slots=[(1, 3, 4)]),
            b.item(3, "b2", 2, 0, category="B", slots=[(2, 1, 2)]),
            b.item(4, "a2", 1, 0, category="A", slots=[(2, 3, 4)]),
            b.item(5, "a3", 1, 0, category="A", slots=[(3, 1, 2)]),
        ]
    )
    new = calls.ok("min_context_switch", state, {"task_ids": [1, 2, 3, 4, 5]}).state
    assert [keys(new, i)[0] for i in (2, 4, 5, 1, 3)] == [
        (1, 1, 2),
        (1, 3, 4),
        (2, 1, 2),
        (2, 3, 4),
        (3, 1, 2),
    ]


def test_origin_rank_orders_a_group(aba, calls):
    # a2 listed first: it takes the group's first position
    new = calls.ok("min_context_switch", aba, {"task_ids": [3, 2, 1]}).state
    assert (
        keys(new, 3) == [(1, 1, 2)] and keys(new, 1) == [(1, 3, 4)] and keys(new, 2) == [(1, 5, 6)]
    )


def test_spans_are_kept(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.item(1, "a1", 1, 0, category="A", slots=[(1, 1, 3)], duration=3),
            b.item(2, "b", 2, 0, category="B", slots=[(1, 4, 5)]),
            b.item(3, "a2", 1, 0, category="A", slots=[(1, 6, 8)], duration=3),
        ]
    )
    result = calls.ok("min_context_switch", state, {"task_ids": [1, 2, 3]})
    # only same-span positions are exchanged: nothing can improve here
    assert result.text.endswith("当前任务顺序已是较优结果，无需调整。")


def test_already_grouped_changes_nothing(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.item(1, "a1", 1, 0, category="A", slots=[(1, 1, 2)]),
            b.item(2, "a2", 1, 0, category="A", slots=[(1, 3, 4)]),
            b.item(3, "b", 2, 0, category="B", slots=[(1, 5, 6)]),
        ]
    )
    result = calls.ok("min_context_switch", state, {"task_ids": [1, 2, 3]})
    assert result.text == (
        "最少上下文切换重排完成：共处理 3 个任务，上下文切换次数 1 -> 1。\n"
        "当前任务顺序已是较优结果，无需调整。"
    )
    assert result.state is state and result.changed == []


def test_tag_falls_back_to_name(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.item(1, "X", 1, 0, category=" ", slots=[(1, 1, 2)]),
            b.item(2, "Y", 2, 0, category="", slots=[(1, 3, 4)]),
            b.item(3, "X", 3, 0, category="", slots=[(1, 5, 6)]),
        ]
    )
    result = calls.ok("min_context_switch", state, {"task_ids": [1, 2, 3]})
    assert "上下文切换次数 2 -> 1" in result.text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "减少上下文切换失败：缺少必填参数 task_ids（兼容单值 task_id）。"),
        ({"task_ids": []}, "减少上下文切换失败：缺少必填参数 task_ids（兼容单值 task_id）。"),
        ({"task_id": 1}, "减少上下文切换失败：task_ids 至少需要 2 个有效任务 ID"),
        ({"task_ids": [1, 1]}, "减少上下文切换失败：task_ids 至少需要 2 个有效任务 ID"),
        ({"task_ids": [1, 0, -3]}, "减少上下文切换失败：task_ids 至少需要 2 个有效任务 ID"),
        ({"task_ids": [1, 99]}, "减少上下文切换失败：任务ID 99 不存在。"),
    ],
)
def test_task_collection(aba, calls, args, message):
    assert calls.fails("min_context_switch", aba, args) == message


def test_task_id_is_merged_into_task_ids(aba, calls):
    result = calls.ok("min_context_switch", aba, {"task_ids": [1, 2], "task_id": 3})
    assert "共处理 3 个任务" in result.text


def test_only_suggested_tasks(s0, calls):
    assert calls.fails("min_context_switch", s0, {"task_ids": [3, 1]}) == (
        "减少上下文切换失败：[1]高等数学 不是 suggested 任务，仅 suggested 可参与该工具"
    )
    assert calls.fails("min_context_switch", s0, {"task_ids": [4, 3]}) == (
        "减少上下文切换失败：[4]线代2 不是 suggested 任务，仅 suggested 可参与该工具"
    )
    # suggested tasks of S0 pass (different classes, nothing to regroup usefully)
    calls.ok("min_context_switch", s0, {"task_ids": [3, 6]})


def test_locked_and_multi_block_tasks(builders, calls):
    from planner_cli.model.state import Slot, Task

    b = builders
    locked = Task(
        state_id=3,
        source="event",
        source_id=703,
        name="锁定",
        category="课程",
        status="suggested",
        locked=True,
        event_type="course",
        slots=[Slot(day=2, slot_start=1, slot_end=2)],
    )
    state = b.make_state(
        [
            b.item(1, "a", 1, 0, category="A", slots=[(1, 1, 2)]),
            b.item(2, "两段", 1, 0, category="A", slots=[(1, 3, 4), (1, 7, 8)], duration=4),
            locked,
        ]
    )
    assert calls.fails("min_context_switch", state, {"task_ids": [1, 3]}) == (
        "减少上下文切换失败：[3]锁定 是固定课程，不可操作"
    )
    assert calls.fails("min_context_switch", state, {"task_ids": [1, 2]}) == (
        "减少上下文切换失败：[2]两段 当前包含 2 段时段，暂不支持该形态"
    )


def test_order_constraint_is_checked_jointly(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.item(1, "a1", 1, 1, category="A", slots=[(1, 1, 2)]),
            b.item(2, "b", 2, 0, category="B", slots=[(1, 3, 4)]),
            b.item(3, "a2", 1, 2, category="A", slots=[(1, 5, 6)]),
        ]
    )
    # listing a2 first would put it before a1: refused
    text = calls.fails("min_context_switch", state, {"task_ids": [3, 2, 1]})
    assert text.startswith("减少上下文切换失败：顺序约束不满足：")
    # in class order it regroups fine
    new = calls.ok("min_context_switch", state, {"task_ids": [1, 2, 3]}).state
    assert keys(new, 3) == [(1, 3, 4)]


def test_tasks_outside_the_set_never_move(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.item(1, "a1", 1, 0, category="A", slots=[(1, 1, 2)]),
            b.item(2, "b", 2, 0, category="B", slots=[(1, 3, 4)]),
            b.item(3, "a2", 1, 0, category="A", slots=[(1, 5, 6)]),
            b.item(4, "a3", 1, 0, category="A", slots=[(1, 7, 8)]),
        ]
    )
    new = calls.ok("min_context_switch", state, {"task_ids": [1, 2, 3]}).state
    assert keys(new, 4) == [(1, 7, 8)]


def test_positions_inside_a_water_course_follow_embedding_rules(builders, calls):
    b = builders
    tasks = [
        b.course(1, "水课", [(1, 1, 2)], can_embed=True),
        b.item(2, "a", 1, 0, category="A", slots=[(1, 1, 2)], embed_host=1),
        b.item(3, "b1", 2, 0, category="B", slots=[(1, 3, 4)]),
        b.item(4, "b2", 2, 0, category="B", slots=[(1, 5, 6)]),
    ]
    # group B is bigger, so b1 gets the earliest position: the water-course occurrence
    strict = b.make_state(tasks, classes=[b.meta(2, allow_filler_course=False)])
    assert calls.fails("min_context_switch", strict, {"task_ids": [2, 3, 4]}) == (
        "减少上下文切换失败：[3]b1 的目标位置第1天(星期1)第1-2节与 [1]水课 冲突。"
    )
    result = calls.ok("min_context_switch", b.make_state(tasks), {"task_ids": [2, 3, 4]})
    new = result.state
    assert new.task(3).embed_host == 1 and new.task(1).embedded_by == [3]
    assert new.task(2).embed_host is None and keys(new, 2) == [(1, 5, 6)]
    assert "  [3]b1：第1天(星期1)第3-4节 -> 第1天(星期1)第1-2节（嵌入宿主：[1]水课）" in result.text
