"""ScheduleState: the single object every tool reads and every write tool replaces.

Owns the state schema (formats.md §2), the status predicates of seed-origin §1.5 and the small
lookups the tools, the solver and the renderers share. Pure data: no I/O, no solver, no LLM.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SECTIONS_PER_DAY = 12
COURSE_CATEGORY = "课程"

Status = Literal["existing", "suggested", "pending"]
Source = Literal["event", "task_item"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Slot(_Model):
    """One contiguous block of sections on one day of the window."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    day: int = Field(ge=1)
    slot_start: int = Field(ge=1, le=SECTIONS_PER_DAY)
    slot_end: int = Field(ge=1, le=SECTIONS_PER_DAY)

    @model_validator(mode="after")
    def _ordered(self) -> Slot:
        if self.slot_start > self.slot_end:
            raise ValueError(
                f"slot_start {self.slot_start} must not be greater than slot_end {self.slot_end}"
            )
        return self

    @property
    def length(self) -> int:
        return self.slot_end - self.slot_start + 1

    def overlaps(self, day: int, start: int, end: int) -> bool:
        return self.day == day and self.slot_start <= end and start <= self.slot_end

    def contains(self, day: int, start: int, end: int) -> bool:
        return self.day == day and self.slot_start <= start and end <= self.slot_end

    def key(self) -> tuple[int, int, int]:
        return (self.day, self.slot_start, self.slot_end)


class DayMap(_Model):
    day_index: int = Field(ge=1)
    week: int = Field(ge=1)
    day_of_week: int = Field(ge=1, le=7)


class Window(_Model):
    total_days: int = Field(ge=1)
    day_mapping: list[DayMap]

    @model_validator(mode="after")
    def _consistent(self) -> Window:
        indexes = [d.day_index for d in self.day_mapping]
        if len(set(indexes)) != len(indexes):
            raise ValueError("day_mapping has duplicate day_index values")
        if any(i > self.total_days for i in indexes):
            raise ValueError(
                f"day_mapping has a day_index greater than total_days {self.total_days}"
            )
        return self


class TaskClassMeta(_Model):
    id: int
    name: str
    mode: Literal["auto", "manual"] = "auto"
    strategy: str = ""
    total_slots: int = 0
    allow_filler_course: bool = True
    excluded_slots: list[int] = Field(default_factory=list)
    excluded_days_of_week: list[int] = Field(default_factory=list)
    start_date: str = ""
    end_date: str = ""
    subject_type: str = ""
    difficulty_level: str = ""
    cognitive_intensity: str = ""

    @field_validator("excluded_slots")
    @classmethod
    def _blocks(cls, value: list[int]) -> list[int]:
        bad = [v for v in value if not 1 <= v <= 6]
        if bad:
            raise ValueError(f"block indices must be between 1 and 6 (got {bad[0]})")
        return sorted(set(value))

    @field_validator("excluded_days_of_week")
    @classmethod
    def _weekdays(cls, value: list[int]) -> list[int]:
        bad = [v for v in value if not 1 <= v <= 7]
        if bad:
            raise ValueError(f"weekdays must be between 1 and 7 (got {bad[0]})")
        return sorted(set(value))

    @property
    def high_intensity(self) -> bool:
        return "high" in (
            self.cognitive_intensity.strip().lower(),
            self.difficulty_level.strip().lower(),
        )


class Task(_Model):
    state_id: int = Field(ge=1)
    source: Source
    source_id: int
    name: str
    category: str = ""
    status: Status
    locked: bool = False
    slots: list[Slot] = Field(default_factory=list)
    duration: int = Field(default=0, ge=0, le=SECTIONS_PER_DAY)
    task_class_id: int = 0
    category_id: int = 0
    task_order: int = 0
    can_embed: bool = False
    embedded_by: list[int] = Field(default_factory=list)
    embed_host: int | None = None
    event_type: str | None = None

    @field_validator("embedded_by", mode="before")
    @classmethod
    def _embedded_by_list(cls, value: Any) -> Any:
        # The seed's JSON carries a single guest id (or null/0); ours is one id per occurrence.
        if value is None or value == 0:
            return []
        if isinstance(value, int) and not isinstance(value, bool):
            return [value]
        return value

    @field_validator("embed_host", mode="before")
    @classmethod
    def _zero_host(cls, value: Any) -> Any:
        return None if value == 0 else value

    @model_validator(mode="after")
    def _class_alias(self) -> Task:
        if not self.task_class_id and self.category_id:
            self.task_class_id = self.category_id
        if not self.category_id and self.task_class_id:
            self.category_id = self.task_class_id
        return self

    # -- status predicates (seed-origin §1.5, applied in this order) ------------------------

    @property
    def is_pending(self) -> bool:
        return self.status == "pending" and not self.slots

    @property
    def is_suggested(self) -> bool:
        if not self.slots:
            return False
        return self.status in ("suggested", "pending") or (
            self.status == "existing" and self.source == "task_item" and self.duration > 0
        )

    @property
    def is_existing(self) -> bool:
        return self.status == "existing" and not self.is_suggested

    @property
    def is_placed(self) -> bool:
        return self.is_existing or self.is_suggested

    @property
    def label(self) -> str:
        if self.is_pending:
            return "pending"
        return "suggested" if self.is_suggested else "existing"

    @property
    def is_course(self) -> bool:
        return self.source == "event" and (
            (self.event_type or "").lower() == "course" or self.category == COURSE_CATEGORY
        )

    @property
    def is_guest(self) -> bool:
        return self.embed_host is not None

    @property
    def slot_sections(self) -> int:
        return sum(s.length for s in self.slots)

    @property
    def class_id(self) -> int:
        return self.task_class_id or self.category_id

    @property
    def in_order_chain(self) -> bool:
        return self.class_id > 0 and self.task_order > 0


class RuntimeQueue(_Model):
    pending_task_ids: list[int] = Field(default_factory=list)
    current_task_id: int = 0
    current_attempts: int = 0
    completed_task_ids: list[int] = Field(default_factory=list)
    skipped_task_ids: list[int] = Field(default_factory=list)
    last_error: str = ""


class Semester(_Model):
    start_date: str
    weeks: int | None = None


class ScheduleState(_Model):
    kind: Literal["schedule-state"] = "schedule-state"
    version: Literal[1] = 1
    semester: Semester | None = None
    window: Window
    tasks: list[Task] = Field(default_factory=list)
    task_classes: list[TaskClassMeta] = Field(default_factory=list)
    runtime_queue: RuntimeQueue | None = None

    @model_validator(mode="after")
    def _unique_ids(self) -> ScheduleState:
        ids = [t.state_id for t in self.tasks]
        if len(set(ids)) != len(ids):
            raise ValueError("tasks have duplicate state_id values")
        return self

    # -- lookups ---------------------------------------------------------------------------

    def task(self, state_id: int) -> Task | None:
        for t in self.tasks:
            if t.state_id == state_id:
                return t
        return None

    def day_info(self, day: int) -> DayMap | None:
        for d in self.window.day_mapping:
            if d.day_index == day:
                return d
        return None

    def day_of(self, week: int, day_of_week: int) -> int | None:
        for d in self.window.day_mapping:
            if d.week == week and d.day_of_week == day_of_week:
                return d.day_index
        return None

    def task_class(self, class_id: int) -> TaskClassMeta | None:
        for c in self.task_classes:
            if c.id == class_id:
                return c
        return None

    def clone(self) -> ScheduleState:
        return self.model_copy(deep=True)

    def dump(self) -> dict[str, Any]:
        """The JSON form written to files: no None fields, tasks by state_id."""
        data = self.model_dump(mode="json", exclude_none=True)
        data["tasks"].sort(key=lambda t: t["state_id"])
        return data
