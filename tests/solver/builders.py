"""Small hand-made states for the solver tests (a window starting Monday 2026-09-07, week 1)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from planner_cli.model.state import (
    DayMap,
    ScheduleState,
    Semester,
    Slot,
    Task,
    TaskClassMeta,
    Window,
)

START = dt.date(2026, 9, 7)

# every soft term off: a test switches on the one it is about (the tie-break stays)
QUIET = {
    "weights": {
        "steady_spread": 0,
        "rapid_finish": 0,
        "late_section": 0,
        "day_over_mean": 0,
        "long_run": 0,
        "context_switch": 0,
    },
    "time_limit_s": 5,
    "max_deterministic_time": 3,
}


def quiet(**weights: int) -> dict[str, Any]:
    out = {**QUIET, "weights": {**QUIET["weights"], **weights}}
    return out


def date(day: int) -> str:
    return (START + dt.timedelta(days=day - 1)).isoformat()


def meta(class_id: int, **kw: Any) -> TaskClassMeta:
    base: dict[str, Any] = {"id": class_id, "name": f"class{class_id}", "strategy": ""}
    base.update(kw)
    return TaskClassMeta(**base)


def course(state_id: int, slots: list[tuple[int, int, int]], can_embed: bool = False) -> Task:
    return Task(
        state_id=state_id,
        source="event",
        source_id=100 + state_id,
        name=f"course{state_id}",
        category="课程",
        status="existing",
        locked=not can_embed,
        can_embed=can_embed,
        event_type="course",
        slots=[Slot(day=d, slot_start=a, slot_end=b) for d, a, b in slots],
    )


def item(
    state_id: int,
    class_id: int,
    order: int = 0,
    duration: int = 2,
    slots: list[tuple[int, int, int]] | None = None,
    status: str | None = None,
) -> Task:
    placed = bool(slots)
    return Task(
        state_id=state_id,
        source="task_item",
        source_id=1000 + state_id,
        name=f"t{state_id}",
        category=f"class{class_id}",
        status=status or ("suggested" if placed else "pending"),  # type: ignore[arg-type]
        duration=duration,
        task_class_id=class_id,
        task_order=order,
        slots=[Slot(day=d, slot_start=a, slot_end=b) for d, a, b in slots or []],
    )


def state(days: int, tasks: list[Task], classes: list[TaskClassMeta]) -> ScheduleState:
    mapping = [DayMap(day_index=i + 1, week=i // 7 + 1, day_of_week=i % 7 + 1) for i in range(days)]
    return ScheduleState(
        semester=Semester(start_date=START.isoformat()),
        window=Window(total_days=days, day_mapping=mapping),
        tasks=tasks,
        task_classes=classes,
    )


def slots_of(st: ScheduleState, state_id: int) -> list[tuple[int, int, int]]:
    task = st.task(state_id)
    assert task is not None
    return [s.key() for s in task.slots]
