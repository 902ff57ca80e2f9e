"""Shared fixtures of the tool tests: the base state S0 of seed-origin §6 and small builders.

Builders are plain functions exposed through the `builders` fixture (conftest modules are not
imported by test files); `s0` is a fresh ScheduleState per test, so tests may not leak changes.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from planner_cli.model.state import DayMap, ScheduleState, Slot, Task, TaskClassMeta, Window
from planner_cli.tools.common import ToolContext, ToolResult
from planner_cli.tools.registry import run_tool


def slot(day: int, start: int, end: int) -> Slot:
    return Slot(day=day, slot_start=start, slot_end=end)


def window(days: int = 7, week: int = 12, first_dow: int = 1) -> Window:
    """`days` consecutive calendar days starting at (week, first_dow)."""
    mapping = []
    for i in range(days):
        offset = first_dow - 1 + i
        mapping.append(DayMap(day_index=i + 1, week=week + offset // 7, day_of_week=offset % 7 + 1))
    return Window(total_days=days, day_mapping=mapping)


def course(
    state_id: int,
    name: str,
    slots: list[tuple[int, int, int]],
    *,
    can_embed: bool = False,
    source_id: int | None = None,
) -> Task:
    """A timetable course: locked unless it is an embeddable ("water") course."""
    return Task(
        state_id=state_id,
        source="event",
        source_id=source_id if source_id is not None else 500 + state_id,
        name=name,
        category="课程",
        status="existing",
        locked=not can_embed,
        can_embed=can_embed,
        event_type="course",
        slots=[slot(*s) for s in slots],
    )


def item(
    state_id: int,
    name: str,
    class_id: int,
    order: int,
    *,
    status: str = "suggested",
    slots: list[tuple[int, int, int]] | None = None,
    duration: int = 2,
    category: str | None = None,
    source_id: int | None = None,
    embed_host: int | None = None,
) -> Task:
    """A study task item of class `class_id` (category defaults to the class name of CLASS_NAMES)."""
    return Task(
        state_id=state_id,
        source="task_item",
        source_id=source_id if source_id is not None else 9000 + state_id,
        name=name,
        category=category if category is not None else CLASS_NAMES.get(class_id, f"类{class_id}"),
        status=status,  # type: ignore[arg-type]
        slots=[slot(*s) for s in slots or []],
        duration=duration,
        task_class_id=class_id,
        task_order=order,
        embed_host=embed_host,
    )


def meta(class_id: int, name: str | None = None, **fields: Any) -> TaskClassMeta:
    return TaskClassMeta(
        id=class_id, name=name or CLASS_NAMES.get(class_id, f"类{class_id}"), **fields
    )


def make_state(
    tasks: list[Task],
    *,
    days: int = 7,
    week: int = 12,
    first_dow: int = 1,
    classes: list[TaskClassMeta] | None = None,
) -> ScheduleState:
    """A state over `days` days; embed links given on guests (embed_host) are mirrored on hosts."""
    state = ScheduleState(
        window=window(days, week, first_dow), tasks=tasks, task_classes=classes or []
    )
    for task in state.tasks:
        if task.embed_host is not None:
            host = state.task(task.embed_host)
            assert host is not None, task.embed_host
            if task.state_id not in host.embedded_by:
                host.embedded_by = sorted([*host.embedded_by, task.state_id])
    return ScheduleState.model_validate(state.dump())


CLASS_NAMES = {7: "线性代数", 8: "英语", 9: "杂项"}


def build_s0() -> ScheduleState:
    """S0 of seed-origin §6: 7 days, day d = (week 12, weekday d)."""
    return make_state(
        [
            course(1, "高等数学", [(1, 1, 2)]),
            course(2, "思政", [(2, 3, 4)], can_embed=True),
            item(3, "线代1", 7, 1, slots=[(1, 5, 6)]),
            item(4, "线代2", 7, 2, status="pending"),
            item(5, "线代3", 7, 3, slots=[(3, 1, 2)]),
            item(6, "英语1", 8, 1, slots=[(4, 1, 2)]),
            item(7, "杂项", 9, 0, status="pending"),
        ],
        classes=[
            meta(
                7,
                strategy="steady",
                total_slots=6,
                subject_type="quantitative",
                difficulty_level="high",
                cognitive_intensity="high",
                start_date="2025-05-12",
                end_date="2025-05-18",
            ),
            meta(
                8,
                strategy="rapid",
                total_slots=2,
                subject_type="memory",
                difficulty_level="medium",
                cognitive_intensity="medium",
                start_date="2025-05-12",
                end_date="2025-05-18",
            ),
            meta(
                9,
                total_slots=2,
                subject_type="mixed",
                difficulty_level="low",
                cognitive_intensity="low",
                start_date="2025-05-12",
                end_date="2025-05-18",
            ),
        ],
    )


@pytest.fixture
def s0() -> ScheduleState:
    return build_s0()


@pytest.fixture
def builders() -> SimpleNamespace:
    """slot, window, course, item, meta, make_state, build_s0 — for tests that need other states."""
    return SimpleNamespace(
        slot=slot,
        window=window,
        course=course,
        item=item,
        meta=meta,
        make_state=make_state,
        build_s0=build_s0,
        class_names=dict(CLASS_NAMES),
    )


# -- call helpers of the write, queue and compound tool tests --------------------------------

FAILURE_WORDS = ("失败", "failed")


def _snapshot(state: ScheduleState) -> str:
    return json.dumps(state.dump(), ensure_ascii=False, sort_keys=True)


def _schedule_part(state: ScheduleState) -> str:
    """The state without its runtime queue (all a failed queue call may change)."""
    data = state.dump()
    data.pop("runtime_queue", None)
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def _call(
    name: str, state: ScheduleState, args: dict[str, Any] | None = None, lang: str = "zh"
) -> ToolResult:
    """Run a tool; the input is never mutated and a success never reads as a failure."""
    before = _snapshot(state)
    result = run_tool(name, state, args or {}, ToolContext(lang=lang))  # type: ignore[arg-type]
    assert _snapshot(state) == before, "the input state was mutated"
    if result.ok and not name.startswith("queue_"):
        assert not any(w in result.text for w in FAILURE_WORDS), result.text
    return result


def _ok(
    name: str, state: ScheduleState, args: dict[str, Any] | None = None, lang: str = "zh"
) -> ToolResult:
    result = _call(name, state, args, lang)
    assert result.ok, result.text
    return result


def _fails(
    name: str, state: ScheduleState, args: dict[str, Any] | None = None, lang: str = "zh"
) -> str:
    """Run a call that must fail, check the state is byte-identical, return the text."""
    before = _snapshot(state)
    result = _call(name, state, args, lang)
    assert not result.ok, result.text
    assert _snapshot(result.state) == before, "a failed call changed the state"
    return result.text


@pytest.fixture
def calls() -> SimpleNamespace:
    """call / ok / fails (state byte-identical on failure), snapshot, schedule_part."""
    return SimpleNamespace(
        call=_call, ok=_ok, fails=_fails, snapshot=_snapshot, schedule_part=_schedule_part
    )
