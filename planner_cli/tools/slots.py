"""Slot filters and candidate collection of query_available_slots, shared with spread_even.

Decision: `week` sets week_from = week_to (the filter list is left as given); scalar values are
accepted for the list filters (the seed silently dropped them).

API (seed-origin §2.3 steps 2–9; messages raised as ToolFailure WITHOUT a failure prefix):

- `parse_slot_filters(args, state, lang) -> SlotFilters` — `args` is any object (a pydantic args
  model or a dict) exposing some of span, duration, limit, allow_embed, day, day_start, day_end,
  day_scope, day_of_week, week, week_filter, week_from, week_to, slot_type, slot_types,
  exclude_sections, after_section, before_section, section_from, section_to; absent names count
  as not given. Validation order: day_scope, allow_embed (+ pure/empty/strict hints), span,
  limit, weeks, section filters (exact pair), candidate days.
- `collect_slots(state, filters, span, limit, allow_embed, task=None, exclude=()) -> list[dict]`
  — candidates `{"day","week","day_of_week","slot_start","slot_end","slot_type"}`, strict
  ("empty") first, then ("embedded_candidate") ranges fully inside a free occurrence of a water
  course. `exclude`: task ids whose own slots (and guest places) count as free, so their current
  positions are candidates; `task`: the task the slots are for (embedded candidates only if its
  class may use filler courses; the task itself is excluded too).
- `range_allowed(filters, start, end) -> bool` — the section filters alone.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from planner_cli.model.state import SECTIONS_PER_DAY, ScheduleState, Task
from planner_cli.tools.common import ToolFailure, guest_in, may_embed
from planner_cli.tools.messages import Lang, t

DEFAULT_SPAN = 2
DEFAULT_LIMIT = 12
DAY_SCOPES = ("all", "workday", "weekend")
PURE_HINTS = ("pure", "empty", "strict")


@dataclass(frozen=True)
class SlotFilters:
    """Parsed filters: `days` are the candidate days (ascending) after every calendar filter."""

    days: tuple[int, ...]
    day_scope: str
    day_of_week: tuple[int, ...]
    week_filter: tuple[int, ...]
    week_from: int | None
    week_to: int | None
    exclude_sections: tuple[int, ...]
    after_section: int | None
    before_section: int | None
    exact: tuple[int, int] | None
    span: int
    limit: int
    allow_embed: bool
    calendar_active: bool


def _get(args: Any, name: str) -> Any:
    if isinstance(args, Mapping):
        return args.get(name)
    return getattr(args, name, None)


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def _ints(value: Any) -> list[int]:
    if value is None:
        return []
    if not isinstance(value, list):
        value = [value]
    out = [_int(v) for v in value]
    return [v for v in out if v is not None]


def _strings(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        value = [value]
    return [v.strip().lower() for v in value if isinstance(v, str)]


def parse_slot_filters(args: Any, state: ScheduleState, lang: Lang) -> SlotFilters:
    """Validate and normalise the filters in the seed's order; raise ToolFailure on the first error."""
    scope_raw = _get(args, "day_scope")
    scope = scope_raw.strip().lower() if isinstance(scope_raw, str) else "all"
    if scope not in DAY_SCOPES:
        scope = "all"

    allow_embed_raw = _get(args, "allow_embed")
    allow_embed = allow_embed_raw if isinstance(allow_embed_raw, bool) else True
    hints = _strings(_get(args, "slot_types")) + _strings(_get(args, "slot_type"))
    if any(h in PURE_HINTS for h in hints):
        allow_embed = False

    span = _int(_get(args, "span"))
    if span is None:
        span = _int(_get(args, "duration"))
    if span is None or span <= 0:
        span = DEFAULT_SPAN
    if span > SECTIONS_PER_DAY:
        raise ToolFailure(t(lang, "span_invalid", span=span))

    limit = _int(_get(args, "limit"))
    if limit is None or limit <= 0:
        limit = DEFAULT_LIMIT

    weeks = [d.week for d in state.window.day_mapping]
    week_filter = sorted({w for w in _ints(_get(args, "week_filter"))})
    week_from = _int(_get(args, "week_from"))
    week_to = _int(_get(args, "week_to"))
    week = _int(_get(args, "week"))
    if week is not None:
        week_from = week_to = week
    if week_from is not None and week_to is not None and week_from > week_to:
        week_from, week_to = week_to, week_from
    if week_from is None and weeks:
        week_from = min(weeks)
    if week_to is None and weeks:
        week_to = max(weeks)

    exclude = sorted(set(_ints(_get(args, "exclude_sections"))))
    after = _int(_get(args, "after_section"))
    before = _int(_get(args, "before_section"))
    sec_from = _int(_get(args, "section_from"))
    sec_to = _int(_get(args, "section_to"))
    exact: tuple[int, int] | None = None
    if (sec_from is None) != (sec_to is None):
        raise ToolFailure(t(lang, "exact_incomplete"))
    if sec_from is not None and sec_to is not None:
        if sec_from < 1 or sec_to > SECTIONS_PER_DAY or sec_from > sec_to:
            raise ToolFailure(t(lang, "exact_invalid", a=sec_from, b=sec_to))
        exact = (sec_from, sec_to)
        span = sec_to - sec_from + 1

    day = _int(_get(args, "day"))
    day_start = _int(_get(args, "day_start"))
    day_end = _int(_get(args, "day_end"))
    total = state.window.total_days
    if day is not None and (day_start is not None or day_end is not None):
        raise ToolFailure(t(lang, "day_and_range"))
    if day is not None:
        _check_day(state, day, lang)
        first, last = day, day
    else:
        first = day_start if day_start is not None else 1
        last = day_end if day_end is not None else total
        if first > last:
            raise ToolFailure(t(lang, "day_start_after_end", start=first, end=last))
        _check_day(state, first, lang)
        _check_day(state, last, lang)

    day_of_week = sorted({d for d in _ints(_get(args, "day_of_week"))})
    days: list[int] = []
    for d in range(first, last + 1):
        info = state.day_info(d)
        if info is None:
            continue
        if not _weekday_kept(info.day_of_week, day_of_week, scope):
            continue
        if week_filter and info.week not in week_filter:
            continue
        if week_from is not None and info.week < week_from:
            continue
        if week_to is not None and info.week > week_to:
            continue
        days.append(d)

    active = (
        any(
            v is not None
            for v in (day, day_start, day_end, week, _get(args, "week_from"), _get(args, "week_to"))
        )
        or bool(week_filter)
        or bool(day_of_week)
        or scope != "all"
    )
    return SlotFilters(
        days=tuple(days),
        day_scope=scope,
        day_of_week=tuple(day_of_week),
        week_filter=tuple(week_filter),
        week_from=week_from,
        week_to=week_to,
        exclude_sections=tuple(exclude),
        after_section=after,
        before_section=before,
        exact=exact,
        span=span,
        limit=limit,
        allow_embed=allow_embed,
        calendar_active=active,
    )


def _weekday_kept(dow: int, day_of_week: list[int], scope: str) -> bool:
    """An explicit weekday list wins over day_scope."""
    if day_of_week:
        return dow in day_of_week
    if scope == "weekend":
        return dow >= 6
    if scope == "workday":
        return dow <= 5
    return True


def _check_day(state: ScheduleState, day: int, lang: Lang) -> None:
    total = state.window.total_days
    if not 1 <= day <= total:
        raise ToolFailure(t(lang, "day_out_of_window", prefix="", day=day, total=total))


def range_allowed(filters: SlotFilters, start: int, end: int) -> bool:
    """The section filters: exact pair, after/before bounds, excluded sections."""
    if filters.exact is not None and (start, end) != filters.exact:
        return False
    if filters.after_section is not None and start <= filters.after_section:
        return False
    if filters.before_section is not None and end >= filters.before_section:
        return False
    return not any(start <= s <= end for s in filters.exclude_sections)


def _strict_free(state: ScheduleState, day: int, start: int, end: int, skip: set[int]) -> bool:
    for other in state.tasks:
        if other.state_id in skip or other.is_guest:
            continue
        if any(s.overlaps(day, start, end) for s in other.slots):
            return False
    return True


def _embeddable(state: ScheduleState, day: int, start: int, end: int, skip: set[int]) -> bool:
    """Every non-guest overlap is a free occurrence of a water course containing the range."""
    hosts = 0
    for other in state.tasks:
        if other.state_id in skip or other.is_guest:
            continue
        for occ in other.slots:
            if not occ.overlaps(day, start, end):
                continue
            if not other.can_embed or not occ.contains(day, start, end):
                return False
            if guest_in(state, other, occ, skip) is not None:
                return False
            hosts += 1
    return hosts > 0


def collect_slots(
    state: ScheduleState,
    filters: SlotFilters,
    span: int,
    limit: int,
    allow_embed: bool,
    task: Task | None = None,
    exclude: Collection[int] = (),
) -> list[dict[str, Any]]:
    """Candidate ranges of `span` sections: strict ones first, then embedded ones, at most `limit`."""
    skip = set(exclude)
    if task is not None:
        skip.add(task.state_id)
    out: list[dict[str, Any]] = []
    seen: set[tuple[int, int, int]] = set()
    passes = ["empty"]
    if allow_embed and (task is None or may_embed(state, task)):
        passes.append("embedded_candidate")
    for kind in passes:
        for day in filters.days:
            info = state.day_info(day)
            if info is None:
                continue
            for start in range(1, SECTIONS_PER_DAY - span + 2):
                if len(out) >= limit:
                    return out
                end = start + span - 1
                if (day, start, end) in seen or not range_allowed(filters, start, end):
                    continue
                if kind == "empty":
                    usable = _strict_free(state, day, start, end, skip)
                else:
                    usable = _embeddable(state, day, start, end, skip)
                if not usable:
                    continue
                seen.add((day, start, end))
                out.append(
                    {
                        "day": day,
                        "week": info.week,
                        "day_of_week": info.day_of_week,
                        "slot_start": start,
                        "slot_end": end,
                        "slot_type": kind,
                    }
                )
    return out
