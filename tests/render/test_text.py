"""The terminal week grid: one grid per week, days as columns, marks, widths, guests inside."""

from __future__ import annotations

import pytest

from planner_cli.model.state import Slot
from planner_cli.render.grid import width
from planner_cli.render.text import render_text
from tests.render.helpers import laid_out, s0, s0_with_guest


def grid_rows(out: str) -> dict[int, str]:
    rows = {}
    for line in out.splitlines():
        head = line[:4].strip()
        if head.isdigit() and "│" in line:
            rows[int(head)] = line
    return rows


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.split("│")[1:]]


def test_s0_grid_columns_rows_and_marks():
    out = render_text(s0())
    assert "第12周  2026-11-23 – 2026-11-29" in out
    header = next(line for line in out.splitlines() if line.startswith(" 节"))
    assert cells(header) == [
        "周一 11-23",
        "周二 11-24",
        "周三 11-25",
        "周四 11-26",
        "周五 11-27",
        "周六 11-28",
        "周日 11-29",
    ]
    rows = grid_rows(out)
    assert cells(rows[1])[0] == "高等数学"  # course: no mark
    assert cells(rows[2])[0] == "┆"
    assert cells(rows[5])[0] == "*线代1"  # suggested: marked
    assert cells(rows[3])[1] == "~思政"  # water course
    assert cells(rows[1])[2] == "*线代3"
    assert cells(rows[7]) == [""] * 7 or cells(rows[7]) == []
    assert "待安排（2）：[4]线代2、[7]杂项" in out


def test_guest_is_shown_inside_its_water_course():
    rows = grid_rows(render_text(s0_with_guest()))
    assert cells(rows[3])[1] == "~思政"
    assert cells(rows[4])[1] == "↳*线代2"
    out = render_text(s0_with_guest())
    assert "* [4]线代2 — 周二 11-24 第3-4节（嵌入 [2]思政）" in out
    assert "待安排（1）：[7]杂项" in out


def test_existing_tasks_are_not_marked_suggested():
    state = s0()
    state.task(3).status = "existing"
    state.task(3).duration = 0
    rows = grid_rows(render_text(state))
    assert cells(rows[5])[0] == "线代1"


@pytest.mark.parametrize("name", ["week.json", "seed13.yaml", "month.yaml", "exam.yaml"])
def test_every_line_fits_100_columns_and_each_week_has_a_grid(name):
    state = laid_out(name)
    out = render_text(state)
    assert max(width(line) for line in out.splitlines()) <= 100
    weeks = sorted({d.week for d in state.window.day_mapping})
    titles = [line for line in out.splitlines() if line.startswith("第") and "周  " in line]
    assert [int(t[1 : t.index("周")]) for t in titles] == weeks
    for task in state.tasks:
        if task.is_suggested and not task.is_guest:
            assert f"* [{task.state_id}]{task.name} — " in out


def test_long_names_wrap_over_their_block():
    state = s0()
    state.task(3).name = "第四章随机变量的数字特征"
    rows = grid_rows(render_text(state))
    assert cells(rows[5])[0] == "*第四章随机"
    assert cells(rows[6])[0] == "变量的数字…"


def test_partial_first_week_shows_only_window_days():
    state = laid_out("seed13.yaml")  # week 5 d1 .. week 6 d6
    out = render_text(state)
    second = out.split("第6周")[1]
    header = next(line for line in second.splitlines() if line.startswith(" 节"))
    assert len(cells(header)) == 6


def test_english_headings():
    out = render_text(s0(), "en")
    assert "Week 12  2026-11-23 – 2026-11-29" in out
    assert "Mon 11-23" in out
    assert "Pending (2): [4]线代2, [7]杂项" in out


def test_a_guest_sits_on_its_own_row_inside_a_long_water_course():
    state = s0_with_guest()
    state.task(2).slots = [Slot(day=2, slot_start=1, slot_end=4)]
    rows = grid_rows(render_text(state))
    assert [cells(rows[s])[1] for s in (1, 2, 3, 4)] == ["~思政", "┆", "↳*线代2", "┆"]
