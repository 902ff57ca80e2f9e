"""The shared grid model: weeks, columns, guests attached to occurrences, display widths."""

from __future__ import annotations

from planner_cli.model.state import Slot
from planner_cli.render.grid import truncate, week_grids, width, wrap
from tests.render.helpers import s0, s0_with_guest


def test_guest_is_attached_to_its_host_occurrence_not_drawn_alone():
    (week,) = week_grids(s0_with_guest())
    tuesday = week.days[1]
    assert [(b.task.state_id, b.start, b.end) for b in tuesday.blocks] == [(2, 3, 4)]
    assert [(g.task.state_id, g.start, g.end) for g in tuesday.blocks[0].guests] == [(4, 3, 4)]


def test_guest_occurrence_is_per_slot():
    state = s0_with_guest()
    host = state.task(2)
    host.slots = [Slot(day=2, slot_start=3, slot_end=4), Slot(day=5, slot_start=3, slot_end=4)]
    (week,) = week_grids(state)
    assert [len(b.guests) for b in week.days[1].blocks] == [1]
    assert [len(b.guests) for b in week.days[4].blocks] == [0]


def test_overlapping_blocks_are_flagged():
    state = s0()
    state.task(3).slots = [Slot(day=1, slot_start=2, slot_end=3)]
    (week,) = week_grids(state)
    assert [b.clash for b in week.days[0].blocks] == [False, True]


def test_display_width_counts_cjk_twice():
    assert width("ab") == 2 and width("线代") == 4 and width("线代A") == 5
    assert truncate("第四章随机变量", 7) == "第四章…"
    assert truncate("abc", 3) == "abc"
    assert wrap("第四章随机变量的数字特征", 11, 2) == ["第四章随机", "变量的数字…"]
    assert wrap("第四章随机变量的数字特征", 10, 2) == ["第四章随机", "变量的数…"]
    assert wrap("短", 10, 3) == ["短"]
