"""The read tools: get_overview, query_range, query_available_slots, query_target_tasks,
list_tasks, get_task_info (seed-origin §2.1–2.6 with the fixes of tools.md).

Decisions where the seed is silent: overview lines print excluded weekdays of a class too;
query_range with only one bound answers for the whole day; list_tasks accepts a list as
category (joined with ",", so the task_class_ids hint fires); an item's `duration` in
query_target_tasks is its duration field, else its slot length; the queue is created only when
ids are actually added or a reset is asked.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import Field, field_validator

from planner_cli.model.state import SECTIONS_PER_DAY, RuntimeQueue, ScheduleState, Slot, Task
from planner_cli.tools.common import (
    ToolContext,
    ToolFailure,
    ToolResult,
    check_range,
    day_label,
    free_runs,
    get_task,
    guest_in,
    occupied_sections,
    range_label,
    slot_json,
    slot_label,
    tasks_on_day,
)
from planner_cli.tools.messages import Lang, t
from planner_cli.tools.registry import StrictToolArgs, ToolArgs, tool
from planner_cli.tools.slots import SlotFilters, collect_slots, parse_slot_filters

STATUSES = ("all", "existing", "suggested", "pending")
STANDARD_PAIRS = ((1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12))
PREFIX = "query_prefix"


def _text_or_none(value: Any) -> Any:
    """Free-text enums of the seed: anything but a string counts as not given."""
    return value if isinstance(value, str) else None


def _slot_short(state: ScheduleState, slot: Slot, lang: Lang) -> str:
    return t(
        lang,
        "slot_short",
        day_label=day_label(state, slot.day, lang),
        a=slot.slot_start,
        b=slot.slot_end,
    )


def _slots_short(state: ScheduleState, task: Task, lang: Lang) -> str:
    return " ".join(_slot_short(state, s, lang) for s in sorted(task.slots, key=lambda s: s.key()))


def _slot_obj(state: ScheduleState, slot: Slot) -> dict[str, int]:
    """A slot in the seed's JSON key order: day, week, day_of_week, slot_start, slot_end."""
    full = slot_json(state, slot)
    return {
        k: full[k] for k in ("day", "week", "day_of_week", "slot_start", "slot_end") if k in full
    }


def _need(task: Task) -> int:
    return task.duration if task.duration > 0 else task.slot_sections


# -- get_overview ---------------------------------------------------------------------------


class GetOverviewArgs(ToolArgs):
    """Overview of the whole planning window: per-day occupancy (courses counted, not listed),
    every non-course task with its status and sections, and the task-class constraints. No
    arguments."""


def _task_sections(state: ScheduleState, day: int) -> set[int]:
    out: set[int] = set()
    for s, task in tasks_on_day(state, day):
        if not task.is_guest and not task.is_course:
            out.update(range(s.slot_start, s.slot_end + 1))
    return out


@tool("get_overview", GetOverviewArgs, kind="read", prefix_key=PREFIX)
def get_overview(state: ScheduleState, args: GetOverviewArgs, ctx: ToolContext) -> ToolResult:
    lang = ctx.lang
    days = state.window.total_days
    total = days * SECTIONS_PER_DAY
    day_rows: list[dict[str, Any]] = []
    lines_days: list[str] = []
    for info in sorted(state.window.day_mapping, key=lambda d: d.day_index):
        day = info.day_index
        used = len(occupied_sections(state, day))
        task_used = len(_task_sections(state, day))
        on_day = [(s, task) for s, task in tasks_on_day(state, day) if not task.is_course]
        rendered = " ".join(
            t(
                lang,
                "ov_day_task",
                id=task.state_id,
                name=task.name,
                status=task.label,
                a=s.slot_start,
                b=s.slot_end,
            )
            for s, task in on_day
        )
        lines_days.append(
            t(
                lang,
                "ov_day",
                day_label=day_label(state, day, lang),
                total=used,
                course=used - task_used,
                task=task_used,
                tasks=rendered or t(lang, "ov_none"),
            )
        )
        day_rows.append(
            {
                "day": day,
                "week": info.week,
                "day_of_week": info.day_of_week,
                "occupied": used,
                "course": used - task_used,
                "task": task_used,
                "task_ids": [task.state_id for _, task in on_day],
            }
        )
    occupied = sum(row["occupied"] for row in day_rows)
    courses = [task for task in state.tasks if task.is_course and task.is_placed]
    non_course = sorted(
        (task for task in state.tasks if not task.is_course), key=lambda x: x.state_id
    )
    counts = {
        "existing": sum(1 for x in non_course if x.label == "existing"),
        "suggested": sum(1 for x in non_course if x.label == "suggested"),
        "pending": sum(1 for x in non_course if x.label == "pending"),
    }
    lines = [
        t(lang, "ov_header", days=days, total=total),
        t(
            lang,
            "ov_totals",
            occupied=occupied,
            free=total - occupied,
            courses=len(courses),
            **counts,
        ),
        "",
        t(lang, "ov_days_title"),
        *lines_days,
        "",
        t(lang, "ov_list_title"),
    ]
    for task in non_course:
        line = t(
            lang,
            "ov_item_head",
            id=task.state_id,
            name=task.name,
            status=task.label,
            category=task.category,
        )
        if task.class_id > 0:
            line += t(lang, "ov_item_class", class_id=task.class_id)
        if task.is_pending:
            line += t(lang, "ov_item_need", n=task.duration)
        else:
            line += t(lang, "ov_item_slots", slots=_slots_short(state, task, lang))
        lines.append(line)
    if not non_course:
        lines.append(t(lang, "ov_list_empty"))
    if state.task_classes:
        lines += ["", t(lang, "ov_classes_title")]
        for meta in sorted(state.task_classes, key=lambda m: m.id):
            strategy = meta.strategy.strip().lower()
            key = f"strategy_{strategy}" if strategy in ("steady", "rapid") else "strategy_default"
            line = t(
                lang,
                "ov_class",
                id=meta.id,
                name=meta.name,
                strategy=t(lang, key),
                budget=meta.total_slots,
                filler=t(lang, "yes" if meta.allow_filler_course else "no"),
            )
            if meta.excluded_slots:
                line += t(
                    lang,
                    "ov_class_excluded_slots",
                    blocks=json.dumps(meta.excluded_slots).replace(" ", ""),
                )
            if meta.excluded_days_of_week:
                line += t(
                    lang,
                    "ov_class_excluded_days",
                    days=json.dumps(meta.excluded_days_of_week).replace(" ", ""),
                )
            lines.append(line)
    data = {
        "total_days": days,
        "total_sections": total,
        "occupied": occupied,
        "free": total - occupied,
        "course_count": len(courses),
        "task_counts": counts,
        "days": day_rows,
        "task_ids": [task.state_id for task in non_course],
    }
    return ToolResult(True, "\n".join(lines), state, data)


# -- query_range ----------------------------------------------------------------------------


class QueryRangeArgs(ToolArgs):
    """Fine-grained occupancy of one day (the six standard section pairs, free runs, water
    courses) or, when both slot_start and slot_end are given, of each section of that range."""

    day: int = Field(description="Day index inside the planning window (1..N).")
    slot_start: int | None = Field(
        default=None,
        description="First section (1..12) of the range; omit with slot_end for the whole day.",
    )
    slot_end: int | None = Field(
        default=None,
        description="Last section (1..12, ≥ slot_start) of the range; omit for the whole day.",
    )


def _who(task: Task, lang: Lang) -> str:
    key = "qr_who_locked" if task.locked else "qr_who_embed" if task.can_embed else "qr_who"
    return t(lang, key, id=task.state_id, name=task.name)


@tool("query_range", QueryRangeArgs, kind="read", prefix_key=PREFIX)
def query_range(state: ScheduleState, args: QueryRangeArgs, ctx: ToolContext) -> ToolResult:
    lang = ctx.lang
    prefix = t(lang, PREFIX)
    day = args.day
    whole_day = args.slot_start is None or args.slot_end is None
    if whole_day:
        check_range(state, day, 1, SECTIONS_PER_DAY, prefix, lang)
        start, end = 1, SECTIONS_PER_DAY
    else:
        assert args.slot_start is not None and args.slot_end is not None
        start, end = args.slot_start, args.slot_end
        check_range(state, day, start, end, prefix, lang)
    info = state.day_info(day)
    assert info is not None
    on_day = tasks_on_day(state, day)
    taken = occupied_sections(state, day)
    data: dict[str, Any] = {
        "day": day,
        "week": info.week,
        "day_of_week": info.day_of_week,
        "slot_start": start,
        "slot_end": end,
        "whole_day": whole_day,
    }
    if whole_day:
        lines = [t(lang, "qr_day_title", day_label=day_label(state, day, lang)), ""]
        pairs = []
        for a, b in STANDARD_PAIRS:
            who = [task for s, task in on_day if s.overlaps(day, a, b)]
            seen: list[Task] = []
            for task in who:
                if task not in seen:
                    seen.append(task)
            text = " ".join(_who(task, lang) for task in seen) or t(lang, "qr_free")
            lines.append(t(lang, "qr_pair", a=a, b=b, who=text))
            pairs.append(
                {"slot_start": a, "slot_end": b, "task_ids": [task.state_id for task in seen]}
            )
        runs = free_runs(state, day)
        tail: list[str] = []
        if runs:
            parts = [
                t(lang, "qr_run_one", a=a) if a == b else t(lang, "qr_run", a=a, b=b, n=b - a + 1)
                for a, b in runs
            ]
            tail.append(t(lang, "qr_runs", runs=t(lang, "list_sep").join(parts)))
        embed_items = []
        if any(task.can_embed for _, task in on_day):
            for s, task in on_day:
                if task.can_embed:
                    guest = guest_in(state, task, s, set())
                    if guest is None:
                        embed_items.append(
                            t(
                                lang,
                                "qr_embed_free",
                                a=s.slot_start,
                                b=s.slot_end,
                                id=task.state_id,
                                name=task.name,
                            )
                        )
                    else:
                        embed_items.append(
                            t(
                                lang,
                                "qr_embed_taken",
                                a=s.slot_start,
                                b=s.slot_end,
                                id=task.state_id,
                                name=task.name,
                                gid=guest.state_id,
                                gname=guest.name,
                            )
                        )
                elif task.locked:
                    embed_items.append(
                        t(
                            lang,
                            "qr_embed_locked",
                            a=s.slot_start,
                            b=s.slot_end,
                            id=task.state_id,
                            name=task.name,
                        )
                    )
            tail.append(t(lang, "qr_embed", items=t(lang, "qr_embed_sep").join(embed_items)))
        if tail:
            lines += ["", *tail]
        data["pairs"] = pairs
        data["free_runs"] = [[a, b] for a, b in runs]
    else:
        lines = [t(lang, "qr_range_title", label=range_label(state, day, start, end, lang)), ""]
        sections = []
        for sec in range(start, end + 1):
            first = next(
                (task for s, task in on_day if not task.is_guest and s.overlaps(day, sec, sec)),
                None,
            )
            occupant = (
                t(lang, "qr_free")
                if first is None
                else t(lang, "qr_who", id=first.state_id, name=first.name)
            )
            lines.append(t(lang, "qr_section", s=sec, who=occupant))
            sections.append({"section": sec, "task_id": None if first is None else first.state_id})
        n = end - start + 1
        used = sum(1 for sec in range(start, end + 1) if sec in taken)
        lines.append("")
        if used == 0:
            lines.append(t(lang, "qr_all_free", n=n))
        else:
            lines.append(t(lang, "qr_some_free", n=n, free=n - used, used=used))
        data["sections"] = sections
        data["free_count"] = n - used
        data["occupied_count"] = used
    return ToolResult(True, "\n".join(lines), state, data)


# -- query_available_slots ------------------------------------------------------------------


_DAY_FIELDS_DOC = {
    "day": "A single day index (1..N); cannot be combined with day_start/day_end.",
    "day_start": "First day index of the range (1..N, default 1).",
    "day_end": "Last day index of the range (1..N, default N, ≥ day_start).",
    "day_scope": "'all' (default), 'workday' (Mon–Fri) or 'weekend' (Sat, Sun); ignored when day_of_week is given.",
    "day_of_week": "Weekdays to keep, 1 = Monday … 7 = Sunday.",
    "week": "Only this teaching week (sets week_from = week_to).",
    "week_filter": "Teaching weeks to keep.",
    "week_from": "First teaching week to keep.",
    "week_to": "Last teaching week to keep.",
}


class _CalendarArgs(StrictToolArgs):
    day: int | None = Field(default=None, description=_DAY_FIELDS_DOC["day"])
    day_start: int | None = Field(default=None, description=_DAY_FIELDS_DOC["day_start"])
    day_end: int | None = Field(default=None, description=_DAY_FIELDS_DOC["day_end"])
    day_scope: str | None = Field(default=None, description=_DAY_FIELDS_DOC["day_scope"])
    day_of_week: list[int] | int | None = Field(
        default=None, description=_DAY_FIELDS_DOC["day_of_week"]
    )
    week: int | None = Field(default=None, description=_DAY_FIELDS_DOC["week"])
    week_filter: list[int] | int | None = Field(
        default=None, description=_DAY_FIELDS_DOC["week_filter"]
    )
    week_from: int | None = Field(default=None, description=_DAY_FIELDS_DOC["week_from"])
    week_to: int | None = Field(default=None, description=_DAY_FIELDS_DOC["week_to"])

    @field_validator("day_scope", mode="before")
    @classmethod
    def _scope_text(cls, value: Any) -> Any:
        return _text_or_none(value)


class _SlotFilterArgs(_CalendarArgs):
    """Day filters plus the section and slot-type filters of a candidate position."""

    allow_embed: bool | None = Field(
        default=None,
        description="Also use ranges inside free water-course occurrences (default true).",
    )
    slot_type: str | None = Field(
        default=None, description="'pure', 'empty' or 'strict': strictly free ranges only."
    )
    slot_types: list[str] | str | None = Field(
        default=None, description="Like slot_type, as a list."
    )
    exclude_sections: list[int] | int | None = Field(
        default=None, description="Sections (1..12) a position must not touch."
    )
    after_section: int | None = Field(
        default=None, description="A position starts strictly after this section."
    )
    before_section: int | None = Field(
        default=None, description="A position ends strictly before this section."
    )

    @field_validator("slot_type", mode="before")
    @classmethod
    def _slot_type_text(cls, value: Any) -> Any:
        return _text_or_none(value)

    @field_validator("slot_types", mode="before")
    @classmethod
    def _slot_types_text(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [v for v in value if isinstance(v, str)]
        return _text_or_none(value)


class QueryAvailableSlotsArgs(_SlotFilterArgs):
    """Candidate positions (JSON) for a block of `span` consecutive sections: strictly free
    ranges first ("empty"), then, if allowed and still below `limit`, ranges fully inside a free
    occurrence of an embeddable water course ("embedded_candidate"). Filters narrow the days and
    sections. Only the listed argument names are accepted."""

    span: int | None = Field(
        default=None, description="Length of the block in sections (1..12, default 2)."
    )
    duration: int | None = Field(
        default=None, description="Same as span (used when span is absent)."
    )
    limit: int | None = Field(
        default=None, description="Maximum number of candidates (default 12)."
    )
    section_from: int | None = Field(
        default=None, description="Exact range start (1..12); needs section_to; overrides span."
    )
    section_to: int | None = Field(
        default=None, description="Exact range end (1..12, ≥ section_from); needs section_from."
    )


def _calendar_json(filters: SlotFilters) -> dict[str, Any]:
    return {
        "day_scope": filters.day_scope,
        "day_of_week": list(filters.day_of_week),
        "week_filter": list(filters.week_filter),
        "week_from": filters.week_from,
        "week_to": filters.week_to,
    }


def _json_result(state: ScheduleState, payload: dict[str, Any]) -> ToolResult:
    return ToolResult(True, json.dumps(payload, ensure_ascii=False), state, payload)


@tool("query_available_slots", QueryAvailableSlotsArgs, kind="read", json_output=True)
def query_available_slots(
    state: ScheduleState, args: QueryAvailableSlotsArgs, ctx: ToolContext
) -> ToolResult:
    filters = parse_slot_filters(args, state, ctx.lang)
    slots = collect_slots(state, filters, filters.span, filters.limit, filters.allow_embed)
    strict = sum(1 for s in slots if s["slot_type"] == "empty")
    embedded = len(slots) - strict
    payload = {
        "tool": "query_available_slots",
        "count": len(slots),
        "strict_count": strict,
        "embedded_count": embedded,
        "fallback_used": embedded > 0,
        **_calendar_json(filters),
        "span": filters.span,
        "allow_embed": filters.allow_embed,
        "exclude_sections": list(filters.exclude_sections),
        "slots": slots,
    }
    return _json_result(state, payload)


# -- query_target_tasks ---------------------------------------------------------------------


class QueryTargetTasksArgs(_CalendarArgs):
    """Tasks to work on (JSON), filtered by status, category, ids and calendar, sorted by first
    slot; by default their ids are appended to the processing queue (queue_pop_head takes them
    one at a time). Only the listed argument names are accepted."""

    status: str | None = Field(
        default=None, description="One of all / existing / suggested / pending (default suggested)."
    )
    category: str | None = Field(default=None, description="Exact task class name (e.g. 线性代数).")
    limit: int | None = Field(default=None, description="Maximum number of tasks (default 16).")
    task_ids: list[int] | int | None = Field(
        default=None, description="Only these task ids (state ids)."
    )
    task_id: int | None = Field(default=None, description="Only this task id (added to task_ids).")
    task_item_ids: list[int] | int | None = Field(
        default=None, description="Same as task_ids (state ids)."
    )
    task_item_id: int | None = Field(default=None, description="Same as task_id (a state id).")
    enqueue: bool | None = Field(
        default=None, description="Append the found ids to the queue (default true)."
    )
    reset_queue: bool | None = Field(
        default=None, description="Clear the whole queue before appending (default false)."
    )

    @field_validator("status", "category", mode="before")
    @classmethod
    def _texts(cls, value: Any) -> Any:
        return _text_or_none(value)


def _status_matches(task: Task, status: str) -> bool:
    return status == "all" or task.label == status


def _queue_json(queue: RuntimeQueue | None) -> dict[str, int]:
    q = queue or RuntimeQueue()
    return {
        "pending_count": len(q.pending_task_ids),
        "completed_count": len(q.completed_task_ids),
        "skipped_count": len(q.skipped_task_ids),
        "current_task_id": q.current_task_id,
        "current_attempt": q.current_attempts,
    }


def _ids(value: list[int] | int | None) -> list[int]:
    if value is None:
        return []
    return [value] if isinstance(value, int) else list(value)


@tool("query_target_tasks", QueryTargetTasksArgs, kind="read", json_output=True)
def query_target_tasks(
    state: ScheduleState, args: QueryTargetTasksArgs, ctx: ToolContext
) -> ToolResult:
    lang = ctx.lang
    status = (args.status or "").strip().lower() or "suggested"
    if status not in STATUSES:
        raise ToolFailure(t(lang, "status_invalid", status=args.status))
    limit = args.limit if args.limit is not None and args.limit > 0 else 16
    filters = parse_slot_filters(args, state, lang)
    wanted = set(
        _ids(args.task_ids)
        + _ids(args.task_item_ids)
        + _ids(args.task_id)
        + _ids(args.task_item_id)
    )
    category = args.category.strip() if args.category is not None else None
    days = set(filters.days)

    found: list[tuple[Task, list[Slot]]] = []
    for task in state.tasks:
        if not _status_matches(task, status):
            continue
        if wanted and task.state_id not in wanted:
            continue
        if category and task.category != category:
            continue
        slots = [
            s
            for s in task.slots
            if state.day_info(s.day) is not None and (not filters.calendar_active or s.day in days)
        ]
        if filters.calendar_active and not slots:
            continue
        found.append((task, sorted(slots, key=lambda s: s.key())))
    found.sort(
        key=lambda p: (
            (0, p[1][0].day, p[1][0].slot_start, p[0].state_id)
            if p[1]
            else (1, 0, 0, p[0].state_id)
        )
    )
    found = found[:limit]

    items = [
        {
            "task_id": task.state_id,
            "name": task.name,
            "category": task.category,
            "status": task.label,
            "duration": _need(task),
            "task_class_id": task.class_id,
            "slots": [_slot_obj(state, s) for s in slots],
        }
        for task, slots in found
    ]
    enqueue = args.enqueue if args.enqueue is not None else True
    new_state = state
    enqueued = 0
    if enqueue:
        queue = state.runtime_queue.model_copy(deep=True) if state.runtime_queue else RuntimeQueue()
        if args.reset_queue:
            queue = RuntimeQueue()
        known = {
            queue.current_task_id,
            *queue.pending_task_ids,
            *queue.completed_task_ids,
            *queue.skipped_task_ids,
        }
        for task, _ in found:
            task_id = task.state_id
            if task_id > 0 and task_id not in known:
                queue.pending_task_ids.append(task_id)
                known.add(task_id)
                enqueued += 1
        if args.reset_queue or enqueued:
            new_state = state.clone()
            new_state.runtime_queue = queue
    payload: dict[str, Any] = {
        "tool": "query_target_tasks",
        "count": len(items),
        "status": status,
        **_calendar_json(filters),
        "enqueue": enqueue,
        "enqueued": enqueued,
    }
    if enqueue:
        payload["queue"] = _queue_json(new_state.runtime_queue)
    payload["items"] = items
    return _json_result(new_state, payload)


# -- list_tasks -----------------------------------------------------------------------------


class ListTasksArgs(ToolArgs):
    """List tasks by status bucket (existing / suggested / pending), optionally of one task
    class. `status` is a single value; `category` is a class name, not an id."""

    category: str | None = Field(
        default=None,
        description="Exact task class name (e.g. 线性代数); class ids are not accepted.",
    )
    status: str | None = Field(
        default=None, description="A single value: all (default), existing, suggested or pending."
    )

    @field_validator("category", mode="before")
    @classmethod
    def _category_text(cls, value: Any) -> Any:
        if isinstance(value, list):
            return ",".join(str(v) for v in value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        return _text_or_none(value)

    @field_validator("status", mode="before")
    @classmethod
    def _status_text(cls, value: Any) -> Any:
        if isinstance(value, list):
            return ",".join(str(v) for v in value)
        return _text_or_none(value)


_CLASS_IDS = re.compile(r"^\s*\d+(\s*[,，、]\s*\d+)*\s*$")


def _existing_tags(task: Task, lang: Lang) -> str:
    tags = [task.category]
    if task.locked:
        tags.append(t(lang, "lt_fixed"))
    elif task.can_embed:
        tags.append(t(lang, "lt_embeddable"))
    return t(lang, "lt_tag_sep").join(tags)


@tool("list_tasks", ListTasksArgs, kind="read", prefix_key=PREFIX)
def list_tasks(state: ScheduleState, args: ListTasksArgs, ctx: ToolContext) -> ToolResult:
    lang = ctx.lang
    prefix = t(lang, PREFIX)
    raw_status = (args.status or "").strip()
    status = raw_status.lower() or "all"
    if status not in STATUSES:
        if "," in status or "，" in status:
            raise ToolFailure(t(lang, "status_multi", prefix=prefix, status=raw_status))
        raise ToolFailure(prefix + t(lang, "status_invalid", status=raw_status))
    category = args.category.strip() if args.category is not None else ""
    tasks = sorted(
        (task for task in state.tasks if not category or task.category == category),
        key=lambda x: x.state_id,
    )
    buckets: dict[str, list[Task]] = {
        "existing": [x for x in tasks if x.label == "existing"],
        "suggested": [x for x in tasks if x.label == "suggested"],
        "pending": [x for x in tasks if x.label == "pending"],
    }
    shown = tasks if status == "all" else buckets[status]
    data: dict[str, Any] = {
        "status": status,
        "category": category or None,
        **{
            name: [x.state_id for x in bucket]
            for name, bucket in buckets.items()
            if status in ("all", name)
        },
    }
    if not shown:
        bucket = t(lang, f"lt_bucket_{status}")
        if category:
            text = t(lang, "lt_empty_category", category=category, bucket=bucket)
            if _CLASS_IDS.match(category):
                text += t(lang, "lt_category_ids_hint")
        else:
            text = t(lang, "lt_empty", bucket=bucket)
        return ToolResult(True, text, state, data)

    def existing_line(x: Task) -> str:
        return t(
            lang,
            "lt_existing_line",
            id=x.state_id,
            name=x.name,
            tags=_existing_tags(x, lang),
            slots=_slots_short(state, x, lang),
        )

    if status == "pending":
        lines = [t(lang, "lt_pending_title", n=len(shown)), ""] + [
            t(
                lang,
                "lt_pending_line",
                id=x.state_id,
                name=x.name,
                n=x.duration,
                category=x.category,
            )
            for x in shown
        ]
    elif status == "suggested":
        lines = [t(lang, "lt_suggested_title", n=len(shown)), ""] + [
            t(
                lang,
                "lt_suggested_line",
                id=x.state_id,
                name=x.name,
                slots=_slots_short(state, x, lang),
                category=x.category,
            )
            for x in shown
        ]
    elif status == "existing":
        lines = [t(lang, "lt_existing_title", n=len(shown)), ""] + [existing_line(x) for x in shown]
    else:
        lines = [
            t(
                lang,
                "lt_all_header",
                total=len(tasks),
                existing=len(buckets["existing"]),
                suggested=len(buckets["suggested"]),
                pending=len(buckets["pending"]),
            )
        ]
        if buckets["existing"]:
            lines += ["", t(lang, "lt_all_existing")] + [
                existing_line(x) for x in buckets["existing"]
            ]
        if buckets["suggested"]:
            lines += ["", t(lang, "lt_all_suggested")] + [
                t(
                    lang,
                    "lt_all_suggested_line",
                    id=x.state_id,
                    name=x.name,
                    category=x.category,
                    slots=_slots_short(state, x, lang),
                )
                for x in buckets["suggested"]
            ]
        if buckets["pending"]:
            lines += ["", t(lang, "lt_all_pending")] + [
                t(
                    lang,
                    "lt_all_pending_line",
                    id=x.state_id,
                    name=x.name,
                    category=x.category,
                    n=x.duration,
                )
                for x in buckets["pending"]
            ]
    return ToolResult(True, "\n".join(lines), state, data)


# -- get_task_info --------------------------------------------------------------------------


class GetTaskInfoArgs(ToolArgs):
    """Details of one task: category, status, source, occupied sections, needed length, and the
    embedding relations (the guest of each occurrence of a water course, or a guest's host)."""

    task_id: int = Field(description="The task id (state id) shown as [id] in other tool outputs.")


def _status_text(task: Task, lang: Lang) -> str:
    if task.is_pending:
        return t(lang, "ti_status_pending")
    if task.is_suggested:
        return t(lang, "ti_status_suggested")
    return t(lang, "ti_status_locked" if task.locked else "ti_status_existing")


@tool("get_task_info", GetTaskInfoArgs, kind="read", prefix_key=PREFIX)
def get_task_info(state: ScheduleState, args: GetTaskInfoArgs, ctx: ToolContext) -> ToolResult:
    lang = ctx.lang
    task = get_task(state, args.task_id, t(lang, PREFIX), lang)
    slots = sorted(task.slots, key=lambda s: s.key())
    lines = [
        t(lang, "ti_head", id=task.state_id, name=task.name),
        t(lang, "ti_kind", category=task.category, status=_status_text(task, lang)),
        t(lang, "ti_source_event" if task.source == "event" else "ti_source_item"),
    ]
    if task.can_embed:
        lines.append(t(lang, "ti_embeddable"))
    if slots:
        lines.append(t(lang, "ti_slots"))
        lines += [t(lang, "ti_slot_line", label=slot_label(state, s, lang)) for s in slots]
    else:
        lines.append(t(lang, "ti_slots_none"))
    if task.is_pending:
        lines.append(t(lang, "ti_need", n=task.duration))
    elif task.is_suggested and task.duration > 0:
        lines.append(t(lang, "ti_original_need", n=task.duration))
    guests = []
    if task.can_embed:
        for s in slots:
            guest = guest_in(state, task, s, set())
            if guest is not None:
                guests.append((s, guest))
        if guests:
            items = t(lang, "ti_guest_sep").join(
                t(
                    lang,
                    "ti_guest_item",
                    id=g.state_id,
                    name=g.name,
                    label=slot_label(state, s, lang),
                )
                for s, g in guests
            )
            lines.append(t(lang, "ti_guests", items=items))
        else:
            lines.append(t(lang, "ti_guests_none"))
    host = state.task(task.embed_host) if task.embed_host is not None else None
    if host is not None:
        lines.append(t(lang, "ti_host", id=host.state_id, name=host.name))
    data = task.model_dump(mode="json", exclude_none=True)
    data["status_label"] = task.label
    data["slots"] = [_slot_obj(state, s) for s in slots]
    data["guests"] = [{"occurrence": _slot_obj(state, s), "task_id": g.state_id} for s, g in guests]
    return ToolResult(True, "\n".join(lines), state, data)
