"""Write tools: seed-origin §6 scenarios 1–11 (adapted to tools.md's fixes) and a passing and a
failing case for every rule (validation order, status, lock, range, order, conflict, embedding)."""

from __future__ import annotations

import pytest

from planner_cli.model.state import Task

# -- helpers ---------------------------------------------------------------------------------


def slots_of(state, task_id):
    return [s.key() for s in state.task(task_id).slots]


def after_scenario_1(s0, calls):
    """S0 with task 4 embedded in the water course [2] (day 2 §3-4)."""
    return calls.ok("place", s0, {"task_id": 4, "day": 2, "slot_start": 3}).state


def suggested_event(state_id, name, slots, *, locked=False, can_embed=False):
    """A suggested event task (rare but legal): lets lock/host rules be reached by move."""
    from planner_cli.model.state import Slot

    return Task(
        state_id=state_id,
        source="event",
        source_id=700 + state_id,
        name=name,
        category="课程",
        status="suggested",
        locked=locked,
        can_embed=can_embed,
        event_type="course",
        slots=[Slot(day=d, slot_start=a, slot_end=b) for d, a, b in slots],
    )


# -- scenario 1: place embeds into a free water course ---------------------------------------


def test_place_embeds_into_free_water_course(s0, calls):
    result = calls.ok("place", s0, {"task_id": 4, "day": 2, "slot_start": 3})
    assert result.text == (
        "已将 [4]线代2 预排并嵌入到第2天(星期2)第3-4节（宿主：[2]思政）。\n"
        "第2天(星期2)当前占用：[2]思政(3-4节) [4]线代2(3-4节)，占用2/12。\n"
        "待安排任务剩余：1个。"
    )
    new = result.state
    guest, host = new.task(4), new.task(2)
    assert guest.status == "suggested" and guest.is_suggested
    assert slots_of(new, 4) == [(2, 3, 4)]
    assert guest.embed_host == 2 and host.embedded_by == [4]
    assert result.changed == [4]
    assert result.data["changed"] == [
        {
            "state_id": 4,
            "from": [],
            "to": [{"day": 2, "slot_start": 3, "slot_end": 4, "week": 12, "day_of_week": 2}],
            "embed_host": 2,
        }
    ]
    assert result.data["pending_count"] == 1


def test_place_plain_text_and_data(s0, calls):
    result = calls.ok("place", s0, {"task_id": 7, "day": 5, "slot_start": 3})
    assert result.text == (
        "已将 [7]杂项 预排到第5天(星期5)第3-4节。\n"
        "第5天(星期5)当前占用：[7]杂项(3-4节)，占用2/12。\n"
        "待安排任务剩余：1个。"
    )
    assert result.state.task(7).embed_host is None
    assert result.data["changed"][0]["embed_host"] is None


def test_place_en_texts(s0, calls):
    result = calls.ok("place", s0, {"task_id": 4, "day": 2, "slot_start": 3}, lang="en")
    assert result.text == (
        "Placed [4]线代2 embedded in day 2 (Tue) sections 3-4 (host: [2]思政) (suggested).\n"
        "day 2 (Tue) now occupied: [2]思政(sections 3-4) [4]线代2(sections 3-4); 2/12 sections in use.\n"
        "Pending tasks left: 1."
    )
    text = calls.fails("place", s0, {"task_id": 7, "day": 1, "slot_start": 1}, lang="en")
    assert text.startswith(
        "Place failed: day 1 (Mon) sections 1-2 is already taken by [1]高等数学 (fixed).\n"
    )
    assert text.endswith("Free sections: sections 3-4, sections 7-12.")


# -- scenarios 2–5: place validation ----------------------------------------------------------


def test_place_order_is_checked_before_conflict(s0, calls):
    # day 1 §1-2 breaks the order of class 7 AND collides with the locked course: order wins
    text = calls.fails("place", s0, {"task_id": 4, "day": 1, "slot_start": 1})
    assert text == (
        "放置失败：顺序约束不满足：[4]线代2 不能放到第1天(星期1)第1-2节。"
        "它必须晚于同任务类前一个任务 [3]线代1 的结束位置（第1天(星期1)第5-6节）。"
    )


def test_place_locked_conflict_message(s0, calls):
    text = calls.fails("place", s0, {"task_id": 7, "day": 1, "slot_start": 1})
    assert text == (
        "放置失败：第1天(星期1)第1-2节已被 [1]高等数学（固定）占用。\n"
        "第1天(星期1)当前占用：[1]高等数学(1-2节) [3]线代1(5-6节)，占用4/12。\n"
        "空闲时段：3-4节、7-12节。"
    )


def test_place_unlocked_conflict_message(s0, calls):
    text = calls.fails("place", s0, {"task_id": 7, "day": 1, "slot_start": 6})
    assert text.startswith("放置失败：第1天(星期1)第6-7节已被 [3]线代1 占用。\n")
    assert "（固定）" not in text


def test_place_conflict_on_a_full_day_has_no_free_hint(builders, calls):
    b = builders
    state = b.make_state(
        [b.course(1, "全天课", [(1, 1, 12)]), b.item(2, "x", 9, 0, status="pending")]
    )
    text = calls.fails("place", state, {"task_id": 2, "day": 1, "slot_start": 3})
    assert text == (
        "放置失败：第1天(星期1)第3-4节已被 [1]全天课（固定）占用。\n"
        "第1天(星期1)当前占用：[1]全天课(1-12节)，占用12/12。"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"task_id": 7, "day": 5, "slot_start": 12}, "放置失败：结束时段 13 不能大于12"),
        ({"task_id": 7, "day": 8, "slot_start": 1}, "放置失败：第8天不在规划窗口范围内（1-7）。"),
        ({"task_id": 7, "day": 0, "slot_start": 1}, "放置失败：第0天不在规划窗口范围内（1-7）。"),
        ({"task_id": 7, "day": 5, "slot_start": 0}, "放置失败：起始时段 0 不能小于1"),
    ],
)
def test_place_range_failures(s0, calls, args, message):
    assert calls.fails("place", s0, args) == message


def test_place_range_edges_pass(s0, calls):
    assert slots_of(calls.ok("place", s0, {"task_id": 7, "day": 7, "slot_start": 11}).state, 7) == [
        (7, 11, 12)
    ]
    assert slots_of(calls.ok("place", s0, {"task_id": 7, "day": 5, "slot_start": 1}).state, 7) == [
        (5, 1, 2)
    ]


def test_place_only_pending(s0, calls):
    assert calls.fails("place", s0, {"task_id": 3, "day": 2, "slot_start": 7}) == (
        "放置失败：[3]线代1 不是待安排任务，无法放置。"
    )
    assert calls.fails("place", s0, {"task_id": 1, "day": 2, "slot_start": 7}) == (
        "放置失败：[1]高等数学 不是待安排任务，无法放置。"
    )


def test_place_validation_order(s0, calls):
    # exists beats everything else
    assert calls.fails("place", s0, {"task_id": 99, "day": 8, "slot_start": 12}) == (
        "放置失败：任务ID 99 不存在。"
    )
    # pending beats range
    assert "不是待安排任务" in calls.fails("place", s0, {"task_id": 3, "day": 8, "slot_start": 1})
    # range beats order (day 1 §0-1 would also precede task 3)
    assert calls.fails("place", s0, {"task_id": 4, "day": 1, "slot_start": 0}) == (
        "放置失败：起始时段 0 不能小于1"
    )
    # the day is checked before the sections
    assert "第9天不在规划窗口范围内" in calls.fails(
        "place", s0, {"task_id": 7, "day": 9, "slot_start": 0}
    )


def test_place_missing_argument(s0, calls):
    assert calls.fails("place", s0, {"task_id": 7, "day": 2}) == (
        "放置失败：缺少必填参数 slot_start。"
    )
    # a string is not an int (seed coercion): counts as missing
    assert calls.fails("place", s0, {"task_id": "7", "day": 2, "slot_start": 1}) == (
        "放置失败：缺少必填参数 task_id。"
    )


def test_place_float_arguments_are_truncated(s0, calls):
    result = calls.ok("place", s0, {"task_id": 7.0, "day": 5.9, "slot_start": 3.2})
    assert slots_of(result.state, 7) == [(5, 3, 4)]


# -- order constraint (seed-origin §3.4; §7.16 decision: nearest placed sibling) -------------


def test_order_after_boundary_same_day(s0, calls):
    # task 3 (order 1) ends day 1 §6: task 4 may start at §7, not at §6
    assert slots_of(calls.ok("place", s0, {"task_id": 4, "day": 1, "slot_start": 7}).state, 4) == [
        (1, 7, 8)
    ]
    assert "必须晚于同任务类前一个任务 [3]线代1" in calls.fails(
        "place", s0, {"task_id": 4, "day": 1, "slot_start": 5}
    )


def test_order_before_successor(s0, calls):
    # task 5 (order 3) starts day 3 §1: task 4 may end on day 2, not start on day 3 §3
    text = calls.fails("place", s0, {"task_id": 4, "day": 3, "slot_start": 3})
    assert text == (
        "放置失败：顺序约束不满足：[4]线代2 不能放到第3天(星期3)第3-4节。"
        "它必须早于同任务类后一个任务 [5]线代3 的开始位置（第3天(星期3)第1-2节）。"
    )
    calls.ok("place", s0, {"task_id": 4, "day": 2, "slot_start": 11})


def test_order_ignores_tasks_without_order(s0, calls):
    # task 7 has order 0: it may go anywhere free
    calls.ok("place", s0, {"task_id": 7, "day": 1, "slot_start": 3})


def test_move_order_after_scenario_1(s0, calls):
    state = after_scenario_1(s0, calls)
    text = calls.fails("move", state, {"task_id": 5, "new_day": 2, "new_slot_start": 1})
    assert text == (
        "移动失败：顺序约束不满足：[5]线代3 不能放到第2天(星期2)第1-2节。"
        "它必须晚于同任务类前一个任务 [4]线代2 的结束位置（第2天(星期2)第3-4节）。"
    )


def test_move_order_in_plain_s0_skips_pending_sibling(s0, calls):
    # decision §7.16: the pending task 4 is skipped, task 3 (day 1) is the nearest placed
    # predecessor, so day 2 is fine ...
    result = calls.ok("move", s0, {"task_id": 5, "new_day": 2, "new_slot_start": 1})
    assert slots_of(result.state, 5) == [(2, 1, 2)]
    # ... and the check does look past the pending sibling: day 1 §1-2 precedes task 3
    assert "[3]线代1" in calls.fails("move", s0, {"task_id": 5, "new_day": 1, "new_slot_start": 3})


# -- scenarios 6–7: move ----------------------------------------------------------------------


def test_move_status_rules_precede_lock_rule(s0, calls):
    assert calls.fails("move", s0, {"task_id": 1, "new_day": 2, "new_slot_start": 7}) == (
        "移动失败：[1]高等数学 当前为已安排（existing）任务，不允许 move；仅 suggested 任务可移动。"
    )
    assert calls.fails("move", s0, {"task_id": 4, "new_day": 2, "new_slot_start": 7}) == (
        "移动失败：[4]线代2 当前为待安排状态，请使用 place 放置。"
    )
    assert calls.fails("move", s0, {"task_id": 99, "new_day": 2, "new_slot_start": 7}) == (
        "移动失败：任务ID 99 不存在。"
    )


def test_move_success_and_affected_days(s0, calls):
    result = calls.ok("move", s0, {"task_id": 6, "new_day": 5, "new_slot_start": 9})
    assert slots_of(result.state, 6) == [(5, 9, 10)]
    assert result.text == (
        "已将 [6]英语1 从第4天(星期4)第1-2节移至第5天(星期5)第9-10节。\n"
        "第4天(星期4)当前占用：0/12。\n"
        "第5天(星期5)当前占用：[6]英语1(9-10节)，占用2/12。"
    )
    assert result.state.task(6).status == "suggested"
    assert result.changed == [6]


def test_move_en_text(s0, calls):
    result = calls.ok("move", s0, {"task_id": 6, "new_day": 5, "new_slot_start": 9}, lang="en")
    assert result.text.startswith(
        "Moved [6]英语1 from day 4 (Thu) sections 1-2 to day 5 (Fri) sections 9-10.\n"
    )
    assert calls.fails(
        "move", s0, {"task_id": 4, "new_day": 2, "new_slot_start": 7}, lang="en"
    ) == ("Move failed: [4]线代2 is pending; use place to place it.")


def test_move_accepts_legacy_suggested_statuses(builders, calls):
    b = builders
    legacy_pending = b.item(1, "粗排旧快照", 9, 0, status="pending", slots=[(1, 1, 2)])
    legacy_existing = b.item(2, "预排旧快照", 9, 0, status="existing", slots=[(2, 1, 2)])
    saved = b.item(3, "已保存", 9, 0, status="existing", slots=[(3, 1, 2)], duration=0)
    state = b.make_state([legacy_pending, legacy_existing, saved])
    calls.ok("move", state, {"task_id": 1, "new_day": 4, "new_slot_start": 1})
    calls.ok("move", state, {"task_id": 2, "new_day": 4, "new_slot_start": 1})
    assert "当前为已安排（existing）任务" in calls.fails(
        "move", state, {"task_id": 3, "new_day": 4, "new_slot_start": 1}
    )


def test_move_lock_rule(builders, calls):
    b = builders
    state = b.make_state(
        [
            suggested_event(1, "锁定课", [(1, 1, 2)], locked=True),
            suggested_event(2, "普通课", [(2, 1, 2)]),
        ]
    )
    # the lock is checked before the range
    assert calls.fails("move", state, {"task_id": 1, "new_day": 9, "new_slot_start": 1}) == (
        "移动失败：[1]锁定课 是固定课程，不可操作"
    )
    calls.ok("move", state, {"task_id": 2, "new_day": 3, "new_slot_start": 1})


def test_move_collapses_multi_slot_task_into_one_block(builders, calls):
    b = builders
    state = b.make_state([b.item(1, "两段", 9, 0, slots=[(1, 1, 2), (2, 5, 7)], duration=5)])
    result = calls.ok("move", state, {"task_id": 1, "new_day": 3, "new_slot_start": 2})
    assert slots_of(result.state, 1) == [(3, 2, 6)]  # 2 + 3 sections, one block
    assert result.text.startswith("已将 [1]两段 从第1天(星期1)第1-2节、第2天(星期2)第5-7节移至")
    assert calls.fails("move", state, {"task_id": 1, "new_day": 3, "new_slot_start": 9}) == (
        "移动失败：结束时段 13 不能大于12"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"task_id": 6, "new_day": 5, "new_slot_start": 0}, "移动失败：起始时段 0 不能小于1"),
        ({"task_id": 6, "new_day": 5, "new_slot_start": 12}, "移动失败：结束时段 13 不能大于12"),
        (
            {"task_id": 6, "new_day": 8, "new_slot_start": 1},
            "移动失败：第8天不在规划窗口范围内（1-7）。",
        ),
    ],
)
def test_move_range_failures(s0, calls, args, message):
    assert calls.fails("move", s0, args) == message


def test_move_validation_order_range_then_order_then_conflict(s0, calls):
    state = after_scenario_1(s0, calls)
    # range beats order
    assert calls.fails("move", state, {"task_id": 5, "new_day": 2, "new_slot_start": 12}) == (
        "移动失败：结束时段 13 不能大于12"
    )
    # order beats conflict (day 1 §1-2: before task 4 AND on the locked course)
    assert "顺序约束不满足" in calls.fails(
        "move", state, {"task_id": 5, "new_day": 1, "new_slot_start": 1}
    )


def test_move_conflicts_locked_and_unlocked(s0, calls):
    # only place marks a fixed course "（固定）" (seed-origin §2.8 vs §2.9)
    text = calls.fails("move", s0, {"task_id": 6, "new_day": 1, "new_slot_start": 1})
    assert text.startswith("移动失败：第1天(星期1)第1-2节已被 [1]高等数学 占用。\n")
    text = calls.fails("move", s0, {"task_id": 6, "new_day": 1, "new_slot_start": 5})
    assert text == (
        "移动失败：第1天(星期1)第5-6节已被 [3]线代1 占用。\n"
        "第1天(星期1)当前占用：[1]高等数学(1-2节) [3]线代1(5-6节)，占用4/12。\n"
        "空闲时段：3-4节、7-12节。"
    )


def test_move_onto_its_own_place_succeeds(s0, calls):
    result = calls.ok("move", s0, {"task_id": 6, "new_day": 4, "new_slot_start": 2})
    assert slots_of(result.state, 6) == [(4, 2, 3)]


# -- embedding (fixes 1 and 2) ----------------------------------------------------------------


def test_move_into_free_occurrence_sets_link(s0, calls):
    result = calls.ok("move", s0, {"task_id": 6, "new_day": 2, "new_slot_start": 3})
    assert result.state.task(6).embed_host == 2
    assert result.state.task(2).embedded_by == [6]
    assert result.text.startswith(
        "已将 [6]英语1 从第4天(星期4)第1-2节移至第2天(星期2)第3-4节（嵌入宿主：[2]思政）。\n"
    )
    assert result.data["changed"][0]["embed_host"] == 2


def test_moving_a_guest_out_clears_the_link(s0, calls):
    state = after_scenario_1(s0, calls)
    result = calls.ok("move", state, {"task_id": 4, "new_day": 2, "new_slot_start": 5})
    assert result.state.task(4).embed_host is None
    assert result.state.task(2).embedded_by == []
    assert "嵌入宿主" not in result.text


def test_guest_moving_inside_its_occurrence_keeps_one_link(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.course(1, "水课", [(1, 1, 4)], can_embed=True),
            b.item(2, "客", 9, 0, slots=[(1, 1, 2)], embed_host=1),
        ]
    )
    result = calls.ok("move", state, {"task_id": 2, "new_day": 1, "new_slot_start": 3})
    assert result.state.task(2).embed_host == 1
    assert result.state.task(1).embedded_by == [2]


def test_occupied_occurrence_is_a_conflict(s0, calls):
    state = after_scenario_1(s0, calls)
    text = calls.fails("place", state, {"task_id": 7, "day": 2, "slot_start": 3})
    assert text.startswith("放置失败：第2天(星期2)第3-4节已被 [2]思政 占用。\n")


def test_partial_overlap_with_water_course_is_a_conflict(s0, calls):
    text = calls.fails("place", s0, {"task_id": 7, "day": 2, "slot_start": 4})
    assert text.startswith("放置失败：第2天(星期2)第4-5节已被 [2]思政 占用。\n")
    # fully inside is fine
    calls.ok("place", s0, {"task_id": 7, "day": 2, "slot_start": 3})


def test_class_without_filler_courses_cannot_embed(builders, calls):
    b = builders
    tasks = [
        b.course(1, "水课", [(1, 3, 4)], can_embed=True),
        b.item(2, "x", 9, 0, status="pending"),
    ]
    strict = b.make_state(tasks, classes=[b.meta(9, allow_filler_course=False)])
    text = calls.fails("place", strict, {"task_id": 2, "day": 1, "slot_start": 3})
    assert text.startswith("放置失败：第1天(星期1)第3-4节已被 [1]水课 占用。\n")
    allowed = b.make_state(tasks, classes=[b.meta(9, allow_filler_course=True)])
    assert (
        calls.ok("place", allowed, {"task_id": 2, "day": 1, "slot_start": 3})
        .state.task(2)
        .embed_host
        == 1
    )


def test_embedding_is_per_occurrence(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.course(1, "思政", [(2, 3, 4), (5, 3, 4)], can_embed=True),
            b.item(2, "甲", 9, 0, status="pending"),
            b.item(3, "乙", 9, 0, status="pending"),
            b.item(4, "丙", 9, 0, status="pending"),
        ]
    )
    state = calls.ok("place", state, {"task_id": 2, "day": 2, "slot_start": 3}).state
    result = calls.ok("place", state, {"task_id": 3, "day": 5, "slot_start": 3})
    assert "预排并嵌入到第5天(星期5)第3-4节（宿主：[1]思政）" in result.text
    state = result.state
    assert state.task(1).embedded_by == [2, 3]
    assert state.task(2).embed_host == 1 and state.task(3).embed_host == 1
    # both occurrences are taken now
    calls.fails("place", state, {"task_id": 4, "day": 2, "slot_start": 3})
    calls.fails("place", state, {"task_id": 4, "day": 5, "slot_start": 3})


def test_events_never_embed(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.course(1, "水课", [(1, 3, 4)], can_embed=True),
            suggested_event(2, "活动", [(2, 3, 4)]),
        ]
    )
    assert "已被 [1]水课 占用" in calls.fails(
        "move", state, {"task_id": 2, "new_day": 1, "new_slot_start": 3}
    )


def test_host_with_guest_cannot_move(builders, calls):
    b = builders
    state = b.make_state(
        [
            suggested_event(1, "水课", [(1, 3, 4)], can_embed=True),
            b.item(2, "客", 9, 0, slots=[(1, 3, 4)], embed_host=1),
            suggested_event(3, "空水课", [(2, 3, 4)], can_embed=True),
        ]
    )
    # host_has_guest comes before the range check
    assert calls.fails("move", state, {"task_id": 1, "new_day": 9, "new_slot_start": 3}) == (
        "移动失败：[1]水课 当前嵌入了 [2]客，请先移除嵌入任务。"
    )
    result = calls.ok("move", state, {"task_id": 3, "new_day": 3, "new_slot_start": 3})
    assert slots_of(result.state, 3) == [(3, 3, 4)]


# -- scenario 9: swap -------------------------------------------------------------------------


def test_swap_success(s0, calls):
    result = calls.ok("swap", s0, {"task_a": 5, "task_b": 6})
    assert slots_of(result.state, 5) == [(4, 1, 2)]
    assert slots_of(result.state, 6) == [(3, 1, 2)]
    assert result.text == (
        "交换完成：\n"
        "  [5]线代3：第3天(星期3)第1-2节 → 第4天(星期4)第1-2节\n"
        "  [6]英语1：第4天(星期4)第1-2节 → 第3天(星期3)第1-2节\n"
        "第3天(星期3)当前占用：[6]英语1(1-2节)，占用2/12。\n"
        "第4天(星期4)当前占用：[5]线代3(1-2节)，占用2/12。"
    )
    assert result.changed == [5, 6]
    assert result.state.task(5).status == "suggested"


def test_swap_checks_order_against_nearest_placed_sibling(s0, calls):
    # seed scenario 9 swapped 3 and 6; with §7.16 decided, task 3 (order 1) on day 4 would come
    # after task 5 (order 3, day 3), so the swap is refused
    text = calls.fails("swap", s0, {"task_a": 3, "task_b": 6})
    assert text == (
        "交换失败：顺序约束不满足：[3]线代1 不能放到第4天(星期4)第1-2节。"
        "它必须早于同任务类后一个任务 [5]线代3 的开始位置（第3天(星期3)第1-2节）。"
    )


def test_swap_refusals(s0, calls):
    assert calls.fails("swap", s0, {"task_a": 3, "task_b": 3}) == "交换失败：不能与自己交换。"
    assert calls.fails("swap", s0, {"task_a": 1, "task_b": 6}) == (
        "交换失败：[1]高等数学 是固定课程，不可操作"
    )
    assert calls.fails("swap", s0, {"task_a": 6, "task_b": 1}) == (
        "交换失败：[1]高等数学 是固定课程，不可操作"
    )
    assert (
        calls.fails("swap", s0, {"task_a": 3, "task_b": 4}) == "交换失败：[4]线代2 不是已落位任务。"
    )
    assert calls.fails("swap", s0, {"task_a": 99, "task_b": 3}) == "交换失败：任务ID 99 不存在。"
    assert calls.fails("swap", s0, {"task_a": 3, "task_b": 99}) == "交换失败：任务ID 99 不存在。"


def test_swap_validation_order(s0, calls):
    # both missing: A reported first; placed-ness before the lock (4 pending, 1 locked)
    assert calls.fails("swap", s0, {"task_a": 98, "task_b": 99}) == "交换失败：任务ID 98 不存在。"
    assert (
        calls.fails("swap", s0, {"task_a": 1, "task_b": 4}) == "交换失败：[4]线代2 不是已落位任务。"
    )


def test_swap_accepts_water_course_and_existing_tasks(s0, calls):
    # decision §7.7 kept: swap takes any placed unlocked task
    result = calls.ok("swap", s0, {"task_a": 2, "task_b": 6})
    assert slots_of(result.state, 2) == [(4, 1, 2)]
    assert slots_of(result.state, 6) == [(2, 3, 4)]
    assert result.state.task(6).embed_host is None  # the water course left that place


def test_swap_duration_mismatch(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.item(1, "物理", 9, 0, slots=[(1, 1, 4)], duration=4),
            b.item(2, "英语", 9, 0, slots=[(2, 1, 2)]),
        ]
    )
    assert calls.fails("swap", state, {"task_a": 1, "task_b": 2}) == (
        "交换失败：[1]物理 占4个时段，[2]英语 占2个时段，时长不同无法直接交换。"
    )


def test_swap_moves_a_guest_out_and_a_task_in(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.course(1, "水课", [(1, 3, 4)], can_embed=True),
            b.item(2, "客", 9, 0, slots=[(1, 3, 4)], embed_host=1),
            b.item(3, "新", 9, 0, slots=[(2, 1, 2)]),
        ]
    )
    result = calls.ok("swap", state, {"task_a": 2, "task_b": 3})
    new = result.state
    assert new.task(2).embed_host is None
    assert new.task(3).embed_host == 1 and new.task(1).embedded_by == [3]
    assert "  [3]新：第2天(星期2)第1-2节 → 第1天(星期1)第3-4节（嵌入宿主：[1]水课）" in result.text


def test_swap_into_water_course_refused_for_class_without_filler(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.course(1, "水课", [(1, 3, 4)], can_embed=True),
            b.item(2, "客", 9, 0, slots=[(1, 3, 4)], embed_host=1),
            b.item(3, "严格", 8, 0, slots=[(2, 1, 2)]),
        ],
        classes=[b.meta(8, allow_filler_course=False)],
    )
    assert calls.fails("swap", state, {"task_a": 2, "task_b": 3}) == (
        "交换失败：[3]严格 的新位置第1天(星期1)第3-4节与 [1]水课 冲突。"
    )


def test_swap_host_with_guest_refused(s0, calls):
    state = after_scenario_1(s0, calls)
    assert calls.fails("swap", state, {"task_a": 6, "task_b": 2}) == (
        "交换失败：[2]思政 当前嵌入了 [4]线代2，请先移除嵌入任务。"
    )


def test_relocate_refuses_a_multi_block_task_partly_in_a_water_course(builders):
    # swap exchanges whole slot lists, so from a valid state this cannot happen through a tool;
    # relocate still refuses it, because one embed link covers exactly one block
    from planner_cli.tools.common import relocate

    b = builders
    state = b.make_state(
        [
            b.course(1, "水课", [(1, 3, 4)], can_embed=True),
            b.item(2, "两段", 9, 0, slots=[(2, 1, 2)]),
        ]
    )
    new, conflict = relocate(state, {2: [b.slot(1, 3, 4), b.slot(2, 1, 2)]})
    assert conflict is not None and conflict.blocker.state_id == 1
    new, conflict = relocate(state, {2: [b.slot(1, 3, 4)]})
    assert conflict is None and new.task(2).embed_host == 1


# -- scenario 10: batch_move ------------------------------------------------------------------


def move_req(task_id, day, start):
    return {"task_id": task_id, "new_day": day, "new_slot_start": start}


def test_batch_move_limit(s0, calls):
    moves = [move_req(3, 2, 7), move_req(5, 3, 5), move_req(6, 4, 5)]
    assert calls.fails("batch_move", s0, {"moves": moves}) == (
        "批量移动失败：当前最多支持 2 条移动请求。请改用队列化逐项处理（queue_pop_head + queue_apply_head_move）。"
    )
    assert calls.fails("batch_move", s0, {"moves": moves}, lang="en") == (
        "Batch move failed: at most 2 move requests are supported per call. Process the tasks one "
        "by one with the queue instead (queue_pop_head + queue_apply_head_move)."
    )


def test_batch_move_exchange_succeeds(s0, calls):
    # fix 4: moves are applied together, so two tasks can trade places in one call
    result = calls.ok("batch_move", s0, {"moves": [move_req(5, 4, 1), move_req(6, 3, 1)]})
    assert slots_of(result.state, 5) == [(4, 1, 2)]
    assert slots_of(result.state, 6) == [(3, 1, 2)]
    assert result.text == (
        "批量移动完成，2个任务全部成功：\n"
        "  [5]线代3 → 第4天(星期4)第1-2节\n"
        "  [6]英语1 → 第3天(星期3)第1-2节\n"
        "第3天(星期3)当前占用：[6]英语1(1-2节)，占用2/12。\n"
        "第4天(星期4)当前占用：[5]线代3(1-2节)，占用2/12。"
    )
    assert result.changed == [5, 6]
    assert [c["state_id"] for c in result.data["changed"]] == [5, 6]


def test_batch_move_seed_exchange_now_fails_on_order(s0, calls):
    # seed scenario 10 exchanged tasks 3 and 5 of one class: with the nearest-placed-sibling
    # rule that breaks the class order (and no longer a conflict)
    text = calls.fails("batch_move", s0, {"moves": [move_req(3, 3, 1), move_req(5, 1, 5)]})
    assert text == (
        "批量移动失败，全部回滚，无任何变更。\n"
        "顺序约束不满足：[3]线代1 不能放到第3天(星期3)第1-2节。"
        "它必须早于同任务类后一个任务 [5]线代3 的开始位置（第1天(星期1)第5-6节）。"
    )


def test_batch_move_conflict_between_final_positions(s0, calls):
    text = calls.fails("batch_move", s0, {"moves": [move_req(5, 4, 1), move_req(6, 4, 2)]})
    assert text == (
        "批量移动失败，全部回滚，无任何变更。\n"
        "冲突：[5]线代3 → 第4天(星期4)第1-2节，该位置已被 [6]英语1 占用。"
    )


def test_batch_move_conflict_with_an_unmoved_task(s0, calls):
    text = calls.fails("batch_move", s0, {"moves": [move_req(5, 5, 1), move_req(6, 1, 1)]})
    assert text == (
        "批量移动失败，全部回滚，无任何变更。\n"
        "冲突：[6]英语1 → 第1天(星期1)第1-2节，该位置已被 [1]高等数学 占用。"
    )


def test_batch_move_chain_into_a_vacated_place(s0, calls):
    result = calls.ok("batch_move", s0, {"moves": [move_req(5, 4, 1), move_req(6, 5, 1)]})
    assert slots_of(result.state, 5) == [(4, 1, 2)]
    assert slots_of(result.state, 6) == [(5, 1, 2)]


def test_batch_move_single_move(s0, calls):
    result = calls.ok("batch_move", s0, {"moves": [move_req(6, 5, 9)]})
    assert result.text.startswith(
        "批量移动完成，1个任务全部成功：\n  [6]英语1 → 第5天(星期5)第9-10节\n"
    )


def test_batch_move_argument_errors(s0, calls):
    assert calls.fails("batch_move", s0, {}) == "批量移动失败：缺少 moves 参数"
    assert calls.fails("batch_move", s0, {"moves": []}) == "批量移动失败：移动列表为空。"
    assert calls.fails("batch_move", s0, {"moves": "3->5"}) == "批量移动失败：moves 参数必须是数组"
    assert calls.fails("batch_move", s0, {"moves": [{"task_id": 3}]}) == (
        "批量移动失败：moves[0].new_day 缺失或无效"
    )


def test_batch_move_duplicate_ids(s0, calls):
    assert calls.fails("batch_move", s0, {"moves": [move_req(6, 5, 1), move_req(6, 5, 5)]}) == (
        "批量移动失败：任务ID 6 在移动列表中出现了多次（第1条与第2条移动请求）；同一任务在一次批量移动中只能出现一次。"
    )
    assert calls.fails(
        "batch_move", s0, {"moves": [move_req(6, 5, 1), move_req(6, 5, 5)]}, lang="en"
    ).startswith("Batch move failed: task ID 6 appears more than once in the move list")


@pytest.mark.parametrize(
    ("moves", "reason"),
    [
        ([move_req(6, 5, 1), move_req(99, 5, 5)], "任务ID 99 不存在。（第2条移动请求）"),
        (
            [move_req(4, 5, 1), move_req(6, 5, 5)],
            "[4]线代2 当前为待安排状态，请使用 place 放置。（第1条移动请求）",
        ),
        (
            [move_req(6, 5, 1), move_req(1, 5, 5)],
            "[1]高等数学 当前为已安排（existing）任务，不允许 move；仅 suggested 任务可移动。（第2条移动请求）",
        ),
        ([move_req(6, 8, 1)], "第8天不在规划窗口范围内（1-7）。（第1条移动请求）"),
        ([move_req(6, 5, 12)], "结束时段 13 不能大于12（第1条移动请求）"),
        # the first failing move is reported
        (
            [move_req(6, 9, 1), move_req(99, 5, 5)],
            "第9天不在规划窗口范围内（1-7）。（第1条移动请求）",
        ),
    ],
)
def test_batch_move_per_move_validation(s0, calls, moves, reason):
    assert calls.fails("batch_move", s0, {"moves": moves}) == (
        "批量移动失败，全部回滚，无任何变更。\n" + reason
    )


def test_batch_move_lock_and_host_rules(builders, calls):
    b = builders
    state = b.make_state(
        [
            suggested_event(1, "锁定课", [(1, 1, 2)], locked=True),
            suggested_event(2, "水课", [(2, 3, 4)], can_embed=True),
            b.item(3, "客", 9, 0, slots=[(2, 3, 4)], embed_host=2),
        ]
    )
    assert calls.fails("batch_move", state, {"moves": [move_req(1, 3, 1)]}) == (
        "批量移动失败，全部回滚，无任何变更。\n[1]锁定课 是固定课程，不可操作（第1条移动请求）"
    )
    assert calls.fails("batch_move", state, {"moves": [move_req(2, 3, 3)]}) == (
        "批量移动失败，全部回滚，无任何变更。\n[2]水课 当前嵌入了 [3]客，请先移除嵌入任务。（第1条移动请求）"
    )


def test_batch_move_swaps_guest_and_newcomer_per_occurrence(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.course(1, "思政", [(2, 3, 4), (5, 3, 4)], can_embed=True),
            b.item(2, "客甲", 9, 0, slots=[(2, 3, 4)], embed_host=1),
            b.item(3, "客乙", 9, 0, slots=[(5, 3, 4)], embed_host=1),
            b.item(4, "新", 9, 0, slots=[(6, 1, 2)]),
        ]
    )
    result = calls.ok("batch_move", state, {"moves": [move_req(2, 6, 1), move_req(4, 2, 3)]})
    new = result.state
    assert new.task(2).embed_host is None
    assert new.task(4).embed_host == 1
    assert new.task(3).embed_host == 1  # the other occurrence is untouched
    assert new.task(1).embedded_by == [3, 4]
    assert "  [4]新 → 第2天(星期2)第3-4节（嵌入宿主：[1]思政）" in result.text


# -- scenario 11: unplace ---------------------------------------------------------------------


def test_unplace_host_cascades_to_guest(s0, calls):
    state = after_scenario_1(s0, calls)
    result = calls.ok("unplace", state, {"task_id": 2})
    new = result.state
    host, guest = new.task(2), new.task(4)
    assert host.is_pending and host.slots == [] and host.embedded_by == []
    assert guest.is_pending and guest.slots == [] and guest.embed_host is None
    assert guest.duration == 2
    assert result.text == (
        "已将 [2]思政 从第2天(星期2)第3-4节移除，恢复为待安排状态。\n"
        "嵌入任务 [4]线代2 随宿主一并恢复为待安排状态。\n"
        "第2天(星期2)当前占用：0/12。\n"
        "待安排任务剩余：3个。"
    )
    assert result.changed == [2, 4]
    assert result.data["pending_count"] == 3


def test_unplace_guest_only(s0, calls):
    state = after_scenario_1(s0, calls)
    result = calls.ok("unplace", state, {"task_id": 4})
    assert result.state.task(4).is_pending and result.state.task(4).embed_host is None
    assert result.state.task(2).embedded_by == []
    assert slots_of(result.state, 2) == [(2, 3, 4)]
    assert result.text == (
        "已将 [4]线代2 从第2天(星期2)第3-4节移除，恢复为待安排状态。\n"
        "第2天(星期2)当前占用：[2]思政(3-4节)，占用2/12。\n"
        "待安排任务剩余：2个。"
    )


def test_unplace_per_occurrence_links(builders, calls):
    b = builders
    state = b.make_state(
        [
            b.course(1, "思政", [(2, 3, 4), (5, 3, 4)], can_embed=True),
            b.item(2, "客甲", 9, 0, slots=[(2, 3, 4)], embed_host=1),
            b.item(3, "客乙", 9, 0, slots=[(5, 3, 4)], embed_host=1),
        ]
    )
    one = calls.ok("unplace", state, {"task_id": 2}).state
    assert one.task(1).embedded_by == [3] and one.task(3).embed_host == 1
    both = calls.ok("unplace", state, {"task_id": 1})
    assert both.changed == [1, 2, 3]
    assert all(both.state.task(i).is_pending for i in (1, 2, 3))
    assert both.state.task(1).duration == 4  # two occurrences of 2 sections


def test_unplace_refusals(s0, calls):
    assert calls.fails("unplace", s0, {"task_id": 7}) == "移除失败：[7]杂项 已经是待安排状态。"
    assert (
        calls.fails("unplace", s0, {"task_id": 1}) == "移除失败：[1]高等数学 是固定课程，不可操作"
    )
    assert calls.fails("unplace", s0, {"task_id": 99}) == "移除失败：任务ID 99 不存在。"
    assert calls.fails("unplace", s0, {}) == "移除失败：缺少必填参数 task_id。"
    assert calls.fails("unplace", s0, {"task_id": 1}, lang="en") == (
        "Unplace failed: [1]高等数学 is a fixed course and cannot be changed"
    )


def test_unplace_slotless_existing_task(builders, calls):
    b = builders
    state = b.make_state([b.item(1, "窗口外", 9, 0, status="existing", duration=0)])
    assert (
        calls.fails("unplace", state, {"task_id": 1})
        == "移除失败：[1]窗口外 没有已落位的时段，无法移除。"
    )


def test_unplace_accepts_existing_unlocked_tasks(s0, calls):
    # decision §7.7 kept: a water course (existing, unlocked) can be unplaced
    result = calls.ok("unplace", s0, {"task_id": 2})
    assert result.state.task(2).is_pending
    assert result.text.endswith("待安排任务剩余：3个。")


def test_unplace_recomputes_duration_so_the_task_can_be_placed_again(builders, calls):
    b = builders
    saved = b.item(1, "已保存", 9, 0, status="existing", slots=[(1, 3, 5)], duration=0)
    state = b.make_state([saved])
    assert state.task(1).is_existing
    pending = calls.ok("unplace", state, {"task_id": 1}).state
    assert pending.task(1).is_pending and pending.task(1).duration == 3
    placed = calls.ok("place", pending, {"task_id": 1, "day": 2, "slot_start": 1}).state
    assert slots_of(placed, 1) == [(2, 1, 3)]


def test_unplace_keeps_an_existing_duration(builders, calls):
    b = builders
    state = b.make_state([b.item(1, "粗排", 9, 0, slots=[(1, 1, 2)], duration=3)])
    assert calls.ok("unplace", state, {"task_id": 1}).state.task(1).duration == 3


def test_unplace_en_text(s0, calls):
    result = calls.ok("unplace", s0, {"task_id": 6}, lang="en")
    assert result.text == (
        "Removed [6]英语1 from day 4 (Thu) sections 1-2; it is pending again.\n"
        "day 4 (Thu) now occupied: 0/12.\n"
        "Pending tasks left: 3."
    )


def test_swap_en_texts(s0, calls):
    result = calls.ok("swap", s0, {"task_a": 5, "task_b": 6}, lang="en")
    assert result.text.startswith(
        "Swap done:\n  [5]线代3: day 3 (Wed) sections 1-2 → day 4 (Thu) sections 1-2\n"
    )
    assert calls.fails("swap", s0, {"task_a": 3, "task_b": 3}, lang="en") == (
        "Swap failed: a task cannot be swapped with itself."
    )


def test_unplace_checks_the_lock_before_anything_about_slots(builders, calls):
    b = builders
    state = b.make_state([b.course(1, "高等数学", [(1, 1, 2)])])
    state.task(1).slots = []  # a locked course with no slot in the window
    assert (
        calls.fails("unplace", state, {"task_id": 1})
        == "移除失败：[1]高等数学 是固定课程，不可操作"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"moves": "x"}, "批量移动失败：moves 参数必须是数组"),
        ({"moves": [1]}, "批量移动失败：moves[0] 不是有效对象"),
        (
            {"moves": [{"new_day": 1, "new_slot_start": 1}]},
            "批量移动失败：moves[0].task_id 缺失或无效",
        ),
        (
            {
                "moves": [
                    {"task_id": 6, "new_day": 5, "new_slot_start": 9},
                    {"task_id": 5, "new_day": "2", "new_slot_start": 1},
                ]
            },
            "批量移动失败：moves[1].new_day 缺失或无效",
        ),
    ],
)
def test_batch_move_parse_errors_use_the_seed_words(s0, calls, args, message):
    assert calls.fails("batch_move", s0, args) == message
