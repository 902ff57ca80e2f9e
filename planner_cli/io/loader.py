"""Export → ScheduleState (formats.md §1, seed-origin §1.6 with our fixes) and back to rows.

Decisions written down here (formats.md leaves them to us):
- state_ids are stable: every export event, sorted by id, owns 1..E whether or not it has rows
  in the window; every task item not represented by a task event, sorted by (category_id, order,
  id), owns E+1…. Only visible tasks are in the state (events with a slot in the window, pending
  items in scope, applied items whose position is in the window), so ids may have gaps; the same
  export always gives the same ids, whatever window or scope.
- Without an explicit `window` and without a scope, the window spans every task class's dates.
- Existing task items and events carry `duration: 0` (the seed's convention: an existing
  task_item with a positive duration would count as suggested); `unplace` recomputes it.
- `excluded_days_of_week` is enforced by the solver (our decision; the original never did).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner_cli.errors import InputError, Problem
from planner_cli.io.files import file_sha256, read_data, validate_as
from planner_cli.model.export import Export, TaskItem, check_export
from planner_cli.model.state import (
    COURSE_CATEGORY,
    DayMap,
    ScheduleState,
    Semester,
    Slot,
    Task,
    TaskClassMeta,
    Window,
)

TASK_CATEGORY_FALLBACK = "任务"


def detect_kind(data: Any) -> str | None:
    """The document kind: its `kind` field, or by keys for the seed's bare state JSON."""
    if not isinstance(data, dict):
        return None
    kind = data.get("kind")
    if isinstance(kind, str):
        return kind
    if "schedule_events" in data:
        return "smartflow-export"
    if "window" in data and "tasks" in data:
        return "schedule-state"
    if "steps" in data:
        return "schedule-plan"
    return None


def parse_export(data: Any, name: str) -> Export:
    export = validate_as(Export, data, name)
    problems = check_export(export)
    if problems:
        raise InputError(name, problems)
    return export


def load_export(path: str | Path) -> Export:
    return parse_export(read_data(path), str(path))


@dataclass(frozen=True)
class Loaded:
    """A state read from any document, with what `apply` and previews need to know of its input.

    A preview given as input continues that preview: `path`/`kind`/`sha256` are its own input's
    (so the export it came from can still `apply` the result), `original` is its original state
    (the diff base) and `prior_by` says which step made each of its changes.
    """

    path: str
    kind: str
    sha256: str | None
    state: ScheduleState
    export: Export | None = None
    original: ScheduleState | None = None
    prior_by: dict[int, str] = field(default_factory=dict)

    @property
    def base(self) -> ScheduleState:
        """The state changes are measured against."""
        return self.original if self.original is not None else self.state


def load_any(
    path: str | Path,
    scope: Iterable[int] | None = None,
    window: tuple[dt.date, dt.date] | None = None,
) -> Loaded:
    """Load an export, a state or a preview (its `state`) as a ScheduleState."""
    name = str(path)
    data = read_data(path)
    kind = detect_kind(data)
    sha = file_sha256(path) if name != "-" else None
    if kind == "smartflow-export":
        export = parse_export(data, name)
        return Loaded(name, kind, sha, export_to_state(export, scope, window, name), export)
    if kind == "schedule-state":
        return Loaded(name, kind, sha, parse_state(data, name))
    if kind == "schedule-preview":
        return _continue_preview(data, name, sha)
    if kind is None:
        raise InputError(
            name,
            [
                Problem(
                    "kind",
                    "not a planner document (no kind; neither schedule_events nor window+tasks)",
                )
            ],
        )
    raise InputError(
        name, [Problem("kind", f"expected an export, a state or a preview (got {kind!r})")]
    )


def _continue_preview(data: dict[str, Any], name: str, sha: str | None) -> Loaded:
    state = parse_state(data.get("state"), name, "state")
    original = parse_state(data.get("original_state"), name, "original_state")
    given = data.get("input")
    source: dict[str, Any] = given if isinstance(given, dict) else {}
    prior_by = {
        c["state_id"]: c["by"]
        for c in data.get("changes") or []
        if isinstance(c, dict)
        and isinstance(c.get("state_id"), int)
        and isinstance(c.get("by"), str)
    }
    return Loaded(
        path=str(source.get("path") or name),
        kind=str(source.get("kind") or "schedule-preview"),
        sha256=source.get("sha256") if source else sha,
        state=state,
        original=original,
        prior_by=prior_by,
    )


def parse_state(data: Any, name: str, prefix: str = "") -> ScheduleState:
    try:
        state = validate_as(ScheduleState, data, name)
    except InputError as exc:
        if not prefix:
            raise
        raise InputError(
            name,
            [Problem(f"{prefix}.{p.path}" if p.path else prefix, p.message) for p in exc.problems],
        ) from None
    problems = check_state(state)
    if problems:
        raise InputError(
            name, [Problem(f"{prefix}.{p.path}" if prefix else p.path, p.message) for p in problems]
        )
    return state


def check_state(state: ScheduleState) -> list[Problem]:
    """Cross-field rules of a state document: slots in the window, embed links resolvable."""
    problems: list[Problem] = []
    by_id = {t.state_id: t for t in state.tasks}
    for i, task in enumerate(state.tasks):
        for j, slot in enumerate(task.slots):
            if slot.day > state.window.total_days or state.day_info(slot.day) is None:
                problems.append(
                    Problem(
                        f"tasks[{i}].slots[{j}].day",
                        f"day {slot.day} is outside the window (1-{state.window.total_days})",
                    )
                )
        if task.embed_host is not None and task.embed_host not in by_id:
            problems.append(Problem(f"tasks[{i}].embed_host", f"unknown task {task.embed_host}"))
        for guest in task.embedded_by:
            if guest not in by_id:
                problems.append(Problem(f"tasks[{i}].embedded_by", f"unknown task {guest}"))
    return problems


# -- export → state ---------------------------------------------------------------------------


def _runs(sections: Iterable[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive sections: [1,2,3,7,8] → [(1,3),(7,8)]."""
    runs: list[tuple[int, int]] = []
    for s in sorted(set(sections)):
        if runs and runs[-1][1] == s - 1:
            runs[-1] = (runs[-1][0], s)
        else:
            runs.append((s, s))
    return runs


def _slots(cells: Iterable[tuple[int, int]]) -> list[Slot]:
    by_day: dict[int, list[int]] = defaultdict(list)
    for day, section in cells:
        by_day[day].append(section)
    return [
        Slot(day=day, slot_start=a, slot_end=b)
        for day in sorted(by_day)
        for a, b in _runs(by_day[day])
    ]


def window_days(
    export: Export,
    scope: set[int] | None,
    cli_window: tuple[dt.date, dt.date] | None,
    name: str,
) -> list[dt.date]:
    semester = export.semester
    if export.window is not None:
        first = semester.date_of(export.window.start.week, export.window.start.day_of_week)
        last = semester.date_of(export.window.end.week, export.window.end.day_of_week)
    else:
        classes = [c for c in export.task_classes if scope is None or c.id in scope]
        if classes:
            first = min(dt.date.fromisoformat(c.start_date) for c in classes)
            last = max(dt.date.fromisoformat(c.end_date) for c in classes)
        elif cli_window is not None:
            first, last = cli_window
        else:
            raise InputError(
                name,
                [
                    Problem(
                        "window",
                        "no planning window: give `window`, task classes with dates, or --window",
                    )
                ],
            )
    start = dt.date.fromisoformat(semester.start_date)
    if first < start:
        raise InputError(
            name,
            [
                Problem(
                    "window", f"the planning window starts {first}, before the semester ({start})"
                )
            ],
        )
    days = [first + dt.timedelta(days=i) for i in range((last - first).days + 1)]
    if semester.weeks is not None:
        last_week = semester.coords_of(days[-1])[0]
        if last_week > semester.weeks:
            raise InputError(
                name,
                [
                    Problem(
                        "window",
                        f"the planning window ends in week {last_week}, after the semester (1-{semester.weeks})",
                    )
                ],
            )
    return days


def default_duration(items_of_class: int, total_slots: int) -> int:
    """The original's rule: an even share of the class budget, else 2 sections."""
    if total_slots > 0 and items_of_class > 0:
        return min(12, max(1, total_slots // items_of_class))
    return 2


def export_to_state(
    export: Export,
    scope: Iterable[int] | None = None,
    cli_window: tuple[dt.date, dt.date] | None = None,
    name: str = "<export>",
) -> ScheduleState:
    scope_set = set(scope) if scope is not None else None
    if scope_set is not None:
        unknown = sorted(scope_set - {c.id for c in export.task_classes})
        if unknown:
            raise InputError(
                name,
                [Problem("task_classes", f"unknown task class id {unknown[0]} in --task-class")],
            )
    days = window_days(export, scope_set, cli_window, name)
    semester = export.semester
    day_index: dict[tuple[int, int], int] = {}
    mapping: list[DayMap] = []
    for i, date in enumerate(days, start=1):
        week, dow = semester.coords_of(date)
        day_index[(week, dow)] = i
        mapping.append(DayMap(day_index=i, week=week, day_of_week=dow))

    classes = {c.id: c for c in export.task_classes}
    items_by_class: dict[int, list[TaskItem]] = defaultdict(list)
    for item in export.task_items:
        items_by_class[item.category_id].append(item)
    order_of: dict[int, int] = {}
    for items in items_by_class.values():
        for pos, item in enumerate(sorted(items, key=lambda x: (x.order, x.id)), start=1):
            order_of[item.id] = item.order if item.order > 0 else pos
    item_by_id = {i.id: i for i in export.task_items}

    # cells of each event, and guest cells per embedded item, inside the window
    event_cells: dict[int, list[tuple[int, int]]] = defaultdict(list)
    guest_cells: dict[int, list[tuple[int, int]]] = defaultdict(list)
    guest_host_event: dict[int, int] = {}
    for _, row, section in export.cells():
        day = day_index.get((row.week, row.day_of_week))
        if day is None:
            continue
        event_cells[row.event_id].append((day, section))
        if row.embedded_task_id is not None:
            guest_cells[row.embedded_task_id].append((day, section))
            guest_host_event.setdefault(row.embedded_task_id, row.event_id)

    events = sorted(export.schedule_events, key=lambda e: e.id)
    event_state_id = {e.id: i for i, e in enumerate(events, start=1)}
    represented = {e.rel_id for e in events if e.type == "task" and e.rel_id is not None}

    tasks: list[Task] = []
    for event in events:
        cells = event_cells.get(event.id)
        if not cells:
            continue
        linked = item_by_id.get(event.rel_id) if event.rel_id is not None else None
        cls = classes.get(linked.category_id) if linked else None
        if event.type == "course":
            category = COURSE_CATEGORY
        else:
            category = cls.name if cls else TASK_CATEGORY_FALLBACK
        tasks.append(
            Task(
                state_id=event_state_id[event.id],
                source="event",
                source_id=event.id,
                name=event.name,
                category=category,
                status="existing",
                locked=event.type == "course" and not event.can_be_embedded,
                slots=_slots(cells),
                task_class_id=linked.category_id if linked else 0,
                task_order=order_of[linked.id] if linked else 0,
                can_embed=event.can_be_embedded,
                event_type=event.type,
            )
        )
    by_id = {t.state_id: t for t in tasks}

    items = sorted(
        (i for i in export.task_items if i.id not in represented),
        key=lambda i: (i.category_id, i.order, i.id),
    )
    next_id = len(events) + 1
    for item in items:
        state_id = next_id
        next_id += 1
        cls = classes[item.category_id]
        common: dict[str, Any] = {
            "state_id": state_id,
            "source": "task_item",
            "source_id": item.id,
            "name": item.content,
            "category": cls.name,
            "task_class_id": cls.id,
            "task_order": order_of[item.id],
        }
        if item.id in guest_cells:
            host = by_id.get(event_state_id[guest_host_event[item.id]])
            if host is None:
                continue
            task = Task(
                status="existing",
                slots=_slots(guest_cells[item.id]),
                embed_host=host.state_id,
                **common,
            )
            host.embedded_by.append(state_id)
        elif item.embedded_time is not None and item.applied:
            et = item.embedded_time
            day = day_index.get((et.week, et.day_of_week))
            if day is None:
                continue
            task = Task(
                status="existing",
                slots=[Slot(day=day, slot_start=et.section_from, slot_end=et.section_to)],
                **common,
            )
        elif not item.applied:
            if scope_set is not None and cls.id not in scope_set:
                continue
            duration = item.duration or default_duration(
                len(items_by_class[cls.id]), cls.total_slots
            )
            task = Task(status="pending", duration=duration, **common)
        else:
            continue
        tasks.append(task)
        by_id[state_id] = task

    metas = [
        TaskClassMeta(
            id=c.id,
            name=c.name,
            mode=c.mode,
            strategy=c.strategy,
            total_slots=c.total_slots,
            allow_filler_course=c.allow_filler_course,
            excluded_slots=c.excluded_slots,
            excluded_days_of_week=c.excluded_days_of_week,
            start_date=c.start_date,
            end_date=c.end_date,
            subject_type=c.subject_type,
            difficulty_level=c.difficulty_level,
            cognitive_intensity=c.cognitive_intensity,
        )
        for c in sorted(export.task_classes, key=lambda c: c.id)
        if scope_set is None or c.id in scope_set
    ]
    return ScheduleState(
        semester=Semester(start_date=semester.start_date, weeks=semester.weeks),
        window=Window(total_days=len(days), day_mapping=mapping),
        tasks=sorted(tasks, key=lambda t: t.state_id),
        task_classes=metas,
    )


# -- state → export rows ----------------------------------------------------------------------


def state_rows(state: ScheduleState) -> list[dict[str, int]]:
    """The schedules rows the state's events occupy, one per section, guests as embedded_task_id.

    Task items placed outside any course have no event yet; `apply` creates one for them.
    """
    guest_at: dict[tuple[int, int, int], int] = {}
    for task in state.tasks:
        if task.embed_host is None or task.source != "task_item":
            continue
        for slot in task.slots:
            for section in range(slot.slot_start, slot.slot_end + 1):
                guest_at[(task.embed_host, slot.day, section)] = task.source_id
    rows: list[dict[str, int]] = []
    for task in state.tasks:
        if task.source != "event":
            continue
        for slot in task.slots:
            info = state.day_info(slot.day)
            if info is None:
                continue
            for section in range(slot.slot_start, slot.slot_end + 1):
                row = {
                    "event_id": task.source_id,
                    "week": info.week,
                    "day_of_week": info.day_of_week,
                    "section": section,
                }
                guest = guest_at.get((task.state_id, slot.day, section))
                if guest is not None:
                    row["embedded_task_id"] = guest
                rows.append(row)
    return sorted(rows, key=lambda r: (r["week"], r["day_of_week"], r["section"], r["event_id"]))
