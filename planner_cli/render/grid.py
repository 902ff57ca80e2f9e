"""The week grid every timetable rendering shares: weeks → day columns → blocks → guests.

A block is one slot of one task on one day; a guest (a task sitting inside a water course) is
attached to the block of the host occurrence that contains it, not drawn on its own. Also owns
the section times of configs/sections.yaml, the display texts of the renderings (zh/en) and
terminal display widths. Decision: only the window's days are columns (a window starting on a
Wednesday shows Wed-Sun in its first week).
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal

from planner_cli.errors import ConfigError
from planner_cli.model.state import SECTIONS_PER_DAY, ScheduleState, Task

Lang = Literal["zh", "en"]
Role = Literal["course", "water", "task", "suggested"]

TEXTS: dict[str, dict[str, str]] = {
    "zh": {
        "week": "第{week}周",
        "section": "节",
        "day": "第{day}天",
        "pending": "待安排（{count}）：",
        "no_pending": "没有待安排的任务。",
        "tasks_of_week": "本周任务：",
        "legend": "图例：",
        "legend_suggested": "新安排（待确认）",
        "legend_water": "水课（可嵌入）",
        "legend_guest": "嵌在水课里的任务",
        "legend_course": "课程",
        "legend_task": "已确定的任务",
        "legend_continued": "同一时段延续",
        "sections": "第{a}-{b}节",
        "section_one": "第{a}节",
        "inside": "（嵌入 {host}）",
        "title": "课表",
        "sep": "、",
        "empty": "窗口内没有任何安排。",
    },
    "en": {
        "week": "Week {week}",
        "section": "§",
        "day": "day {day}",
        "pending": "Pending ({count}): ",
        "no_pending": "No pending tasks.",
        "tasks_of_week": "Tasks this week:",
        "legend": "Legend: ",
        "legend_suggested": "new suggestion (to confirm)",
        "legend_water": "water course (may host a task)",
        "legend_guest": "task inside a water course",
        "legend_course": "course",
        "legend_task": "confirmed task",
        "legend_continued": "continues",
        "sections": "sections {a}-{b}",
        "section_one": "section {a}",
        "inside": " (inside {host})",
        "title": "Timetable",
        "sep": ", ",
        "empty": "Nothing is scheduled in the window.",
    },
}
WEEKDAYS = {
    "zh": ["周一", "周二", "周三", "周四", "周五", "周六", "周日"],
    "en": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
}


def text(lang: Lang, key: str, **values: Any) -> str:
    return TEXTS[lang][key].format(**values)


def role_of(task: Task) -> Role:
    if task.is_course:
        return "water" if task.can_embed else "course"
    return "suggested" if task.is_suggested else "task"


@dataclass
class Guest:
    task: Task
    start: int
    end: int

    @property
    def role(self) -> Role:
        return role_of(self.task)


@dataclass
class Block:
    task: Task
    start: int
    end: int
    guests: list[Guest] = field(default_factory=list)
    clash: bool = False  # overlaps an earlier block of the day (an invalid state)

    @property
    def role(self) -> Role:
        return role_of(self.task)

    @property
    def length(self) -> int:
        return self.end - self.start + 1


@dataclass
class DayColumn:
    day: int
    week: int
    day_of_week: int
    date: dt.date | None
    blocks: list[Block]

    def block_at(self, section: int) -> Block | None:
        for block in self.blocks:
            if block.start <= section <= block.end:
                return block
        return None


@dataclass
class WeekGrid:
    week: int
    days: list[DayColumn]

    @property
    def first(self) -> dt.date | None:
        return self.days[0].date

    @property
    def last(self) -> dt.date | None:
        return self.days[-1].date


def _date(state: ScheduleState, week: int, dow: int) -> dt.date | None:
    if state.semester is None:
        return None
    start = dt.date.fromisoformat(state.semester.start_date)
    return start + dt.timedelta(days=(week - 1) * 7 + dow - 1)


def week_grids(state: ScheduleState) -> list[WeekGrid]:
    """The window's days grouped by teaching week, each with its blocks and their guests."""
    hosted: set[tuple[int, int, int, int]] = set()  # (guest id, day, start, end) drawn in a host
    guests_of: dict[tuple[int, int, int, int], list[Guest]] = {}
    for task in state.tasks:
        host = state.task(task.embed_host) if task.embed_host is not None else None
        if host is None:
            continue
        for slot in task.slots:
            for occ in host.slots:
                if occ.contains(slot.day, slot.slot_start, slot.slot_end):
                    key = (host.state_id, occ.day, occ.slot_start, occ.slot_end)
                    guests_of.setdefault(key, []).append(
                        Guest(task, slot.slot_start, slot.slot_end)
                    )
                    hosted.add((task.state_id, *slot.key()))
                    break

    by_day: dict[int, list[Block]] = {}
    for task in sorted(state.tasks, key=lambda t: t.state_id):
        for slot in task.slots:
            if (task.state_id, *slot.key()) in hosted:
                continue
            guests = guests_of.get((task.state_id, *slot.key()), [])
            by_day.setdefault(slot.day, []).append(
                Block(task, slot.slot_start, slot.slot_end, sorted(guests, key=lambda g: g.start))
            )

    weeks: list[WeekGrid] = []
    for info in sorted(state.window.day_mapping, key=lambda d: d.day_index):
        blocks = sorted(by_day.get(info.day_index, []), key=lambda b: (b.start, b.end))
        taken: set[int] = set()
        for block in blocks:
            sections = set(range(block.start, block.end + 1))
            block.clash = bool(sections & taken)
            taken |= sections
        column = DayColumn(
            info.day_index,
            info.week,
            info.day_of_week,
            _date(state, info.week, info.day_of_week),
            blocks,
        )
        if weeks and weeks[-1].week == info.week:
            weeks[-1].days.append(column)
        else:
            weeks.append(WeekGrid(info.week, [column]))
    return weeks


def week_title(grid: WeekGrid, lang: Lang) -> str:
    title = text(lang, "week", week=grid.week)
    if grid.first is not None and grid.last is not None:
        title += f"  {grid.first.isoformat()} – {grid.last.isoformat()}"
    return title


def day_heading(column: DayColumn, lang: Lang) -> str:
    weekday = WEEKDAYS[lang][column.day_of_week - 1]
    if column.date is not None:
        return f"{weekday} {column.date.strftime('%m-%d')}"
    return f"{weekday} {text(lang, 'day', day=column.day)}"


def sections_text(lang: Lang, a: int, b: int) -> str:
    return text(lang, "section_one", a=a) if a == b else text(lang, "sections", a=a, b=b)


def pending_tasks(state: ScheduleState) -> list[Task]:
    return sorted((t for t in state.tasks if t.is_pending), key=lambda t: t.state_id)


# -- display width (CJK characters take two terminal columns) ---------------------------------


def char_width(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def width(s: str) -> int:
    return sum(char_width(c) for c in s)


def truncate(s: str, limit: int) -> str:
    """`s` cut to `limit` display columns, ending with … when cut."""
    if width(s) <= limit:
        return s
    out, used = "", 0
    for ch in s:
        w = char_width(ch)
        if used + w > limit - 1:
            break
        out += ch
        used += w
    return out + "…"


def wrap(s: str, limit: int, lines: int) -> list[str]:
    """`s` in at most `lines` pieces of `limit` columns; the last piece is truncated."""
    out: list[str] = []
    rest = s
    while rest and len(out) < lines - 1 and width(rest) > limit:
        piece, used = "", 0
        for ch in rest:
            if used + char_width(ch) > limit:
                break
            piece += ch
            used += char_width(ch)
        out.append(piece)
        rest = rest[len(piece) :]
    out.append(truncate(rest, limit))
    return out


def pad(s: str, limit: int) -> str:
    return s + " " * (limit - width(s))


# -- section times (configs/sections.yaml) ------------------------------------------------------

_HHMM = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


@dataclass(frozen=True)
class SectionTimes:
    timezone: str
    times: dict[int, tuple[dt.time, dt.time]]

    def start(self, section: int) -> dt.time:
        return self.times[section][0]

    def end(self, section: int) -> dt.time:
        return self.times[section][1]


def section_times(settings: dict[str, Any]) -> SectionTimes:
    """The `sections` settings as times; ConfigError naming the bad key."""
    raw = settings.get("times") or {}
    if not isinstance(raw, dict):
        raise ConfigError("sections.times: must map section numbers 1-12 to {start, end}")
    times: dict[int, tuple[dt.time, dt.time]] = {}
    for key, value in raw.items():
        try:
            section = int(key)
        except (TypeError, ValueError):
            raise ConfigError(f"sections.times.{key}: not a section number") from None
        if not 1 <= section <= SECTIONS_PER_DAY:
            raise ConfigError(f"sections.times.{key}: sections are 1-12")
        pair = []
        for end in ("start", "end"):
            value_text = value.get(end) if isinstance(value, dict) else None
            match = _HHMM.match(str(value_text)) if value_text is not None else None
            if match is None:
                raise ConfigError(
                    f"sections.times.{key}.{end}: expected a time written HH:MM (got {value_text!r})"
                )
            pair.append(dt.time(int(match.group(1)), int(match.group(2))))
        if pair[0] >= pair[1]:
            raise ConfigError(f"sections.times.{key}: start must be before end")
        times[section] = (pair[0], pair[1])
    missing = [s for s in range(1, SECTIONS_PER_DAY + 1) if s not in times]
    if missing:
        raise ConfigError(f"sections.times: section {missing[0]} has no start and end time")
    timezone = str(settings.get("timezone") or "UTC")
    return SectionTimes(timezone, times)
