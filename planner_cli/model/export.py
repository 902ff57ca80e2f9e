"""The timetable export (`smartflow-export` v1, formats.md §1): schema and semantic checks.

The pydantic models check each field; `check_export` adds the cross-field rules (unique cells,
known references, semester bounds). Both report problems with field paths like
`schedules[3].section`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from planner_cli.errors import Problem


def _between(lo: int, hi: int):  # type: ignore[no-untyped-def]
    def check(value: int) -> int:
        if not lo <= value <= hi:
            raise ValueError(f"must be between {lo} and {hi} (got {value})")
        return value

    return AfterValidator(check)


def _iso_date(value: str) -> str:
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"must be a date written YYYY-MM-DD (got {value!r})") from None
    if len(value) != 10:
        raise ValueError(f"must be a date written YYYY-MM-DD (got {value!r})")
    return value


Week = Annotated[int, _between(1, 53)]
Weekday = Annotated[int, _between(1, 7)]
Section = Annotated[int, _between(1, 12)]
Duration = Annotated[int, _between(1, 12)]
Block = Annotated[int, _between(1, 6)]
IsoDate = Annotated[str, AfterValidator(_iso_date)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _monday(value: str) -> str:
    if dt.date.fromisoformat(value).isoweekday() != 1:
        raise ValueError(f"must be a Monday, the first day of teaching week 1 (got {value})")
    return value


class SemesterSpec(_Model):
    start_date: Annotated[IsoDate, AfterValidator(_monday)]
    weeks: Annotated[int, _between(1, 53)] | None = None

    def date_of(self, week: int, day_of_week: int) -> dt.date:
        return dt.date.fromisoformat(self.start_date) + dt.timedelta(
            days=(week - 1) * 7 + day_of_week - 1
        )

    def coords_of(self, date: dt.date) -> tuple[int, int]:
        days = (date - dt.date.fromisoformat(self.start_date)).days
        return days // 7 + 1, days % 7 + 1


class WeekDay(_Model):
    week: Week
    day_of_week: Weekday


class WindowSpec(_Model):
    start: WeekDay
    end: WeekDay

    @model_validator(mode="after")
    def _ordered(self) -> WindowSpec:
        if (self.start.week, self.start.day_of_week) > (self.end.week, self.end.day_of_week):
            raise ValueError("start must not be after end")
        return self


class ScheduleEvent(_Model):
    id: int
    name: str
    type: Literal["course", "task"]
    can_be_embedded: bool = False
    location: str | None = None
    rel_id: int | None = None


class ScheduleRow(_Model):
    """One section of one event, or compactly a run `section_from..section_to`."""

    id: int | None = None
    event_id: int
    week: Week
    day_of_week: Weekday
    section: Section | None = None
    section_from: Section | None = None
    section_to: Section | None = None
    embedded_task_id: int | None = None
    status: Literal["normal", "interrupted"] = "normal"

    @model_validator(mode="after")
    def _one_form(self) -> ScheduleRow:
        compact = self.section_from is not None or self.section_to is not None
        if self.section is not None and compact:
            raise ValueError("give either section or section_from/section_to, not both")
        if self.section is None and not compact:
            raise ValueError("section (or section_from and section_to) is required")
        if compact:
            if self.section_from is None or self.section_to is None:
                raise ValueError("section_from and section_to must be given together")
            if self.section_from > self.section_to:
                raise ValueError(
                    f"section_from {self.section_from} must not be greater than section_to {self.section_to}"
                )
        return self

    def sections(self) -> range:
        if self.section is not None:
            return range(self.section, self.section + 1)
        assert self.section_from is not None and self.section_to is not None
        return range(self.section_from, self.section_to + 1)


class TaskClass(_Model):
    id: int
    name: str
    mode: Literal["auto", "manual"] = "auto"
    start_date: IsoDate
    end_date: IsoDate
    total_slots: Annotated[int, Field(ge=0)] = 0
    strategy: Literal["steady", "rapid"] = "steady"
    allow_filler_course: bool = True
    excluded_slots: list[Block] = Field(default_factory=list)
    excluded_days_of_week: list[Weekday] = Field(default_factory=list)
    subject_type: str = ""
    difficulty_level: str = ""
    cognitive_intensity: str = ""

    @model_validator(mode="after")
    def _dates(self) -> TaskClass:
        if self.start_date > self.end_date:
            raise ValueError(
                f"start_date {self.start_date} must not be after end_date {self.end_date}"
            )
        return self


class EmbeddedTime(_Model):
    week: Week
    day_of_week: Weekday
    section_from: Section
    section_to: Section

    @model_validator(mode="after")
    def _ordered(self) -> EmbeddedTime:
        if self.section_from > self.section_to:
            raise ValueError(
                f"section_from {self.section_from} must not be greater than section_to {self.section_to}"
            )
        return self


class TaskItem(_Model):
    id: int
    category_id: int
    order: int = 0
    content: str
    status: Literal["unscheduled", "applied"] | None = None
    duration: Duration | None = None
    embedded_time: EmbeddedTime | None = None

    @property
    def applied(self) -> bool:
        return self.status == "applied"


class Export(_Model):
    kind: Literal["smartflow-export"] = "smartflow-export"
    version: Literal[1] = 1
    user_id: int | None = None
    semester: SemesterSpec
    window: WindowSpec | None = None
    schedule_events: list[ScheduleEvent] = Field(default_factory=list)
    schedules: list[ScheduleRow] = Field(default_factory=list)
    task_classes: list[TaskClass] = Field(default_factory=list)
    task_items: list[TaskItem] = Field(default_factory=list)

    def cells(self) -> Iterator[tuple[int, ScheduleRow, int]]:
        """Every (row index, row, section) cell, compact rows expanded."""
        for index, row in enumerate(self.schedules):
            for section in row.sections():
                yield index, row, section


def check_export(export: Export) -> list[Problem]:
    """Cross-field rules of formats.md §1 that a single field cannot check."""
    problems: list[Problem] = []

    def unique(items: list, what: str) -> None:  # type: ignore[type-arg]
        seen: set[int] = set()
        for i, item in enumerate(items):
            if item.id in seen:
                problems.append(Problem(f"{what}[{i}].id", f"duplicate id {item.id}"))
            seen.add(item.id)

    unique(export.schedule_events, "schedule_events")
    unique(export.task_classes, "task_classes")
    unique(export.task_items, "task_items")

    events = {e.id for e in export.schedule_events}
    items = {i.id for i in export.task_items}
    classes = {c.id for c in export.task_classes}
    weeks = export.semester.weeks

    for i, event in enumerate(export.schedule_events):
        if event.rel_id is not None and event.rel_id not in items:
            problems.append(
                Problem(f"schedule_events[{i}].rel_id", f"unknown task item id {event.rel_id}")
            )
        if event.rel_id is not None and event.type != "task":
            problems.append(
                Problem(f"schedule_events[{i}].rel_id", "only events of type task may have rel_id")
            )

    cell_owner: dict[tuple[int, int, int], int] = {}
    for index, row, section in export.cells():
        path = f"schedules[{index}]"
        if row.event_id not in events:
            problems.append(
                Problem(f"{path}.event_id", f"unknown schedule event id {row.event_id}")
            )
        if weeks is not None and row.week > weeks:
            problems.append(
                Problem(f"{path}.week", f"week {row.week} is outside the semester (1-{weeks})")
            )
        if row.embedded_task_id is not None and row.embedded_task_id not in items:
            problems.append(
                Problem(f"{path}.embedded_task_id", f"unknown task item id {row.embedded_task_id}")
            )
        cell = (row.week, row.day_of_week, section)
        if cell in cell_owner and cell_owner[cell] != index:
            problems.append(
                Problem(
                    f"{path}",
                    f"duplicate cell week {cell[0]} day_of_week {cell[1]} section {cell[2]}"
                    f" (also schedules[{cell_owner[cell]}])",
                )
            )
        elif cell in cell_owner:
            problems.append(Problem(f"{path}", "a row lists the same section twice"))
        else:
            cell_owner[cell] = index

    for i, item in enumerate(export.task_items):
        if item.category_id not in classes:
            problems.append(
                Problem(f"task_items[{i}].category_id", f"unknown task class id {item.category_id}")
            )
        if weeks is not None and item.embedded_time and item.embedded_time.week > weeks:
            problems.append(
                Problem(
                    f"task_items[{i}].embedded_time.week",
                    f"week {item.embedded_time.week} is outside the semester (1-{weeks})",
                )
            )
    if export.window and weeks is not None:
        for end in ("start", "end"):
            week = getattr(export.window, end).week
            if week > weeks:
                problems.append(
                    Problem(
                        f"window.{end}.week", f"week {week} is outside the semester (1-{weeks})"
                    )
                )
    return list(dict.fromkeys(problems))  # a compact row repeats per-section findings
