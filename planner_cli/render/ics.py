"""The iCalendar file of `planner show --format ics`: one VEVENT per placed block, real times.

Dates come from the state's semester.start_date, times from configs/sections.yaml (with its
TZID and VTIMEZONE). Deterministic: UIDs are derived from what a block is, DTSTAMP is the
semester's first day, events are sorted. Decisions: every placed task is exported (courses too,
guests on top of their water course); a task item's UID is its item id (plus the block number
after the first), so a re-export after a move updates the event; an event's UID is its event
id, week, weekday and first section, one per occurrence; suggested blocks are TENTATIVE.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from planner_cli.errors import InputError, Problem
from planner_cli.model.state import ScheduleState, Task
from planner_cli.render.grid import SectionTimes

UID_DOMAIN = "planner-cli.invalid"
PRODID = "-//planner_cli//timetable//ZH"


def block_uid(task: Task, week: int, day_of_week: int, start: int, index: int) -> str:
    if task.source == "task_item":
        suffix = f"-{index}" if index else ""
        return f"item-{task.source_id}{suffix}@{UID_DOMAIN}"
    return f"event-{task.source_id}-w{week}-d{day_of_week}-s{start}@{UID_DOMAIN}"


def render_ics(
    state: ScheduleState, times: SectionTimes, name: str = "planner", calendar_name: str = ""
) -> str:
    """The calendar as text (CRLF lines, as RFC 5545 wants)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    import icalendar

    if state.semester is None:
        raise InputError(
            name,
            [
                Problem(
                    "semester",
                    "an iCalendar file needs semester.start_date (give an export, or add"
                    ' `semester: {start_date: "YYYY-MM-DD"}` to the state)',
                )
            ],
        )
    try:
        zone = ZoneInfo(times.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        from planner_cli.errors import ConfigError

        raise ConfigError(f"sections.timezone: unknown time zone {times.timezone!r}") from None
    first_day = dt.date.fromisoformat(state.semester.start_date)
    stamp = dt.datetime.combine(first_day, dt.time(0, 0), tzinfo=dt.UTC)

    cal = icalendar.Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    if calendar_name:
        cal.add("x-wr-calname", calendar_name)
    cal.add("x-wr-timezone", times.timezone)

    events: list[tuple[tuple[Any, ...], Any]] = []
    for task in state.tasks:
        for index, slot in enumerate(sorted(task.slots, key=lambda s: s.key())):
            info = state.day_info(slot.day)
            if info is None:
                continue
            date = first_day + dt.timedelta(days=(info.week - 1) * 7 + info.day_of_week - 1)
            start = dt.datetime.combine(date, times.start(slot.slot_start), tzinfo=zone)
            end = dt.datetime.combine(date, times.end(slot.slot_end), tzinfo=zone)
            event = icalendar.Event()
            event.add("uid", block_uid(task, info.week, info.day_of_week, slot.slot_start, index))
            event.add("dtstamp", stamp)
            event.add("dtstart", start)
            event.add("dtend", end)
            event.add("summary", task.name)
            event.add("categories", [task.category or ("课程" if task.is_course else "任务")])
            event.add("status", "TENTATIVE" if task.is_suggested else "CONFIRMED")
            event.add("transp", "TRANSPARENT" if task.can_embed else "OPAQUE")
            sections = (
                f"第{slot.slot_start}节"
                if slot.slot_start == slot.slot_end
                else f"第{slot.slot_start}-{slot.slot_end}节"
            )
            description = [f"第{info.week}周 {sections}"]
            if task.embed_host is not None:
                host = state.task(task.embed_host)
                if host is not None:
                    description.append(f"嵌入 {host.name}")
            if task.is_suggested:
                description.append("新安排（待确认）")
            event.add("description", "\n".join(description))
            events.append(((start, slot.slot_end, str(event["uid"])), event))
    for _, event in sorted(events, key=lambda pair: pair[0]):
        cal.add_component(event)
    if hasattr(cal, "add_missing_timezones"):  # icalendar >= 6.1 writes the VTIMEZONE
        cal.add_missing_timezones()
    return cal.to_ical().decode("utf-8")
