"""Mechanics every schedule tool shares: results, labels, occupancy, conflicts, embedding, order.

Embedding is per occurrence (tools.md fix 1): each slot of a `can_embed` course is one
occurrence and hosts at most one guest; a range that lies fully inside a free occurrence of a
water course, for a task item whose class allows filler courses, becomes its guest; any other
overlap is a conflict. `relocate` is the one door through which write tools move tasks: it
moves them all at once, then checks every moved task against the final positions and sets or
clears embed links (fixes 2 and 4).

Order decision (seed-origin §7.16): a task is checked against the nearest *placed* task of its
class before and after it in `task_order` (pending siblings are skipped, not a hole in the
check), so the placed part of every class stays in order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from planner_cli.model.state import SECTIONS_PER_DAY, ScheduleState, Slot, Task
from planner_cli.tools.messages import Lang, t
from planner_cli.tools.messages.common import EN_WEEKDAYS


@dataclass
class ToolContext:
    """Per-call settings: the language of texts and the solver settings of compound tools."""

    lang: Lang = "zh"
    solver: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolResult:
    """What every tool returns. `state` is the new state (the input object itself on failure)."""

    ok: bool
    text: str
    state: ScheduleState
    data: dict[str, Any] = field(default_factory=dict)
    changed: list[int] = field(default_factory=list)


class ToolFailure(Exception):
    """Raised inside a handler to fail with a finished text; the registry turns it into a result."""

    def __init__(self, text: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(text)
        self.text = text
        self.data = data or {}


# -- labels -------------------------------------------------------------------------------


def weekday(state: ScheduleState, day: int, lang: Lang) -> str | None:
    info = state.day_info(day)
    if info is None:
        return None
    return t(lang, "weekday", dow=info.day_of_week, dow_name=EN_WEEKDAYS[info.day_of_week - 1])


def day_label(state: ScheduleState, day: int, lang: Lang) -> str:
    wd = weekday(state, day, lang)
    if wd is None:
        return t(lang, "day_label_bare", day=day)
    return t(lang, "day_label", day=day, weekday=wd)


def range_label(state: ScheduleState, day: int, a: int, b: int, lang: Lang) -> str:
    key = "range_label_one" if a == b else "range_label"
    return t(lang, key, day_label=day_label(state, day, lang), a=a, b=b)


def slot_label(state: ScheduleState, slot: Slot, lang: Lang) -> str:
    return range_label(state, slot.day, slot.slot_start, slot.slot_end, lang)


def slots_label(state: ScheduleState, slots: list[Slot], lang: Lang) -> str:
    return t(lang, "list_sep").join(slot_label(state, s, lang) for s in slots)


def slot_json(state: ScheduleState, slot: Slot) -> dict[str, int]:
    """A slot with its calendar coordinates, as the JSON tools and previews show it."""
    info = state.day_info(slot.day)
    out = {"day": slot.day, "slot_start": slot.slot_start, "slot_end": slot.slot_end}
    if info is not None:
        out["week"] = info.week
        out["day_of_week"] = info.day_of_week
    return out


# -- occupancy ----------------------------------------------------------------------------


def tasks_on_day(state: ScheduleState, day: int) -> list[tuple[Slot, Task]]:
    """Every (slot, task) on `day`, guests included, by start section then state_id."""
    found = [(s, task) for task in state.tasks for s in task.slots if s.day == day]
    return sorted(found, key=lambda p: (p[0].slot_start, p[0].slot_end, p[1].state_id))


def occupied_sections(state: ScheduleState, day: int) -> set[int]:
    """Sections of `day` held by any non-guest task (water courses count as occupied)."""
    out: set[int] = set()
    for s, task in tasks_on_day(state, day):
        if not task.is_guest:
            out.update(range(s.slot_start, s.slot_end + 1))
    return out


def free_runs(state: ScheduleState, day: int) -> list[tuple[int, int]]:
    taken = occupied_sections(state, day)
    runs: list[tuple[int, int]] = []
    for s in range(1, SECTIONS_PER_DAY + 1):
        if s in taken:
            continue
        if runs and runs[-1][1] == s - 1:
            runs[-1] = (runs[-1][0], s)
        else:
            runs.append((s, s))
    return runs


def occupancy_line(state: ScheduleState, day: int, lang: Lang) -> str:
    label = day_label(state, day, lang)
    items = tasks_on_day(state, day)
    if not items:
        return t(lang, "occupancy_empty", day_label=label)
    rendered = " ".join(
        t(lang, "occupant", id=task.state_id, name=task.name, a=s.slot_start, b=s.slot_end)
        for s, task in items
    )
    return t(
        lang, "occupancy", day_label=label, items=rendered, used=len(occupied_sections(state, day))
    )


def free_hint(state: ScheduleState, day: int, lang: Lang) -> str:
    runs = free_runs(state, day)
    if not runs:
        return ""
    parts = [
        t(lang, "section_one", a=a) if a == b else t(lang, "sections", a=a, b=b) for a, b in runs
    ]
    return t(lang, "free_hint", runs=t(lang, "list_sep").join(parts))


def pending_count(state: ScheduleState) -> int:
    return sum(1 for task in state.tasks if task.is_pending)


# -- embedding ----------------------------------------------------------------------------


def guest_in(state: ScheduleState, host: Task, occurrence: Slot, exclude: set[int]) -> Task | None:
    """The guest sitting in `occurrence` of `host`, ignoring `exclude`."""
    for guest_id in host.embedded_by:
        if guest_id in exclude:
            continue
        guest = state.task(guest_id)
        if guest is None:
            continue
        for s in guest.slots:
            if occurrence.contains(s.day, s.slot_start, s.slot_end):
                return guest
    return None


def may_embed(state: ScheduleState, task: Task) -> bool:
    """Only task items may sit in water courses, and only when their class allows filler courses."""
    if task.source != "task_item" or task.can_embed:
        return False
    meta = state.task_class(task.class_id)
    return meta.allow_filler_course if meta is not None else True


def find_embed_host(
    state: ScheduleState, task: Task, day: int, start: int, end: int, exclude: set[int]
) -> tuple[Task, Slot] | None:
    """The first water course whose free occurrence fully contains the range."""
    if not may_embed(state, task):
        return None
    for host in state.tasks:
        if not host.can_embed or host.state_id in exclude or host.state_id == task.state_id:
            continue
        for occ in host.slots:
            if (
                occ.contains(day, start, end)
                and guest_in(state, host, occ, exclude | {task.state_id}) is None
            ):
                return host, occ
    return None


def find_conflict(
    state: ScheduleState,
    task: Task,
    day: int,
    start: int,
    end: int,
    exclude: set[int],
    may_be_guest: bool = True,
) -> Task | None:
    """The first task that makes the range unusable for `task` (None when it is free).

    A free water-course occurrence that fully contains the range is not a conflict when the
    task may become its guest; a task of several blocks never can (a guest is one block).
    """
    host = find_embed_host(state, task, day, start, end, exclude) if may_be_guest else None
    skip = exclude | {task.state_id}
    for other in state.tasks:
        if other.state_id in skip:
            continue
        if host is not None and other.state_id == host[0].state_id:
            continue
        if any(s.overlaps(day, start, end) for s in other.slots):
            return other
    return None


# -- intra-class order (seed-origin §3.4) -------------------------------------------------


def placed_neighbours(state: ScheduleState, task: Task) -> tuple[Task | None, Task | None]:
    """The nearest placed tasks of the same class before and after `task` in task_order."""
    before: Task | None = None
    after: Task | None = None
    for other in state.tasks:
        if (
            other.state_id == task.state_id
            or not other.in_order_chain
            or other.class_id != task.class_id
            or not other.slots
        ):
            continue
        if other.task_order < task.task_order and (
            before is None or other.task_order > before.task_order
        ):
            before = other
        if other.task_order > task.task_order and (
            after is None or other.task_order < after.task_order
        ):
            after = other
    return before, after


def order_violation(state: ScheduleState, moved: list[int], lang: Lang) -> str | None:
    """Check the order constraint of every moved task against `state` (proposals applied)."""
    for task_id in moved:
        task = state.task(task_id)
        if task is None or not task.in_order_chain or not task.slots:
            continue
        first = min(task.slots, key=lambda s: (s.day, s.slot_start))
        last = max(task.slots, key=lambda s: (s.day, s.slot_end))
        before, after = placed_neighbours(state, task)
        label = slots_label(state, task.slots, lang)
        if before is not None:
            prev_end = max((s.day, s.slot_end) for s in before.slots)
            if not (first.day, first.slot_start) > prev_end:
                return t(
                    lang,
                    "order_after",
                    id=task.state_id,
                    name=task.name,
                    label=label,
                    pid=before.state_id,
                    pname=before.name,
                    plabels=slots_label(state, before.slots, lang),
                )
        if after is not None:
            next_start = min((s.day, s.slot_start) for s in after.slots)
            if not (last.day, last.slot_end) < next_start:
                return t(
                    lang,
                    "order_before",
                    id=task.state_id,
                    name=task.name,
                    label=label,
                    pid=after.state_id,
                    pname=after.name,
                    plabels=slots_label(state, after.slots, lang),
                )
    return None


# -- validation helpers -------------------------------------------------------------------


def check_range(
    state: ScheduleState, day: int, start: int, end: int, prefix: str, lang: Lang
) -> None:
    """Day in the window, then the seed's three slot-range checks, in that order."""
    total = state.window.total_days
    if not 1 <= day <= total or state.day_info(day) is None:
        raise ToolFailure(t(lang, "day_out_of_window", prefix=prefix, day=day, total=total))
    if start < 1:
        raise ToolFailure(t(lang, "start_below_1", prefix=prefix, start=start))
    if end > SECTIONS_PER_DAY:
        raise ToolFailure(t(lang, "end_above_12", prefix=prefix, end=end))
    if start > end:
        raise ToolFailure(t(lang, "start_after_end", prefix=prefix, start=start, end=end))


def get_task(state: ScheduleState, task_id: int, prefix: str, lang: Lang) -> Task:
    task = state.task(task_id)
    if task is None:
        raise ToolFailure(t(lang, "task_not_found", prefix=prefix, id=task_id))
    return task


def conflict_text(
    state: ScheduleState,
    blocker: Task,
    day: int,
    start: int,
    end: int,
    prefix: str,
    lang: Lang,
    mark_fixed: bool = False,
) -> str:
    """ "<label>已被 [c]name 占用。"; place (only place, as in the seed) marks a fixed course."""
    key = "conflict_locked" if mark_fixed and blocker.locked else "conflict"
    return t(
        lang,
        key,
        prefix=prefix,
        label=range_label(state, day, start, end, lang),
        cid=blocker.state_id,
        cname=blocker.name,
    )


# -- the one door for moving tasks --------------------------------------------------------


@dataclass(frozen=True)
class Conflict:
    task: Task
    slot: Slot
    blocker: Task

    def text(self, state: ScheduleState, key: str, lang: Lang, **values: Any) -> str:
        """The message `key` about this conflict ({id} {name} {label} {cid} {cname})."""
        return t(
            lang,
            key,
            id=self.task.state_id,
            name=self.task.name,
            label=slot_label(state, self.slot, lang),
            cid=self.blocker.state_id,
            cname=self.blocker.name,
            **values,
        )


def relocate(
    state: ScheduleState, moves: dict[int, list[Slot]]
) -> tuple[ScheduleState, Conflict | None]:
    """Move tasks simultaneously on a clone and keep embed links right.

    `moves` maps state_id → new slots (empty = unplaced). All moves are applied first; then every
    moved slot is checked against the final positions of everything else; a slot fully inside a
    free occurrence of a water course makes the task its guest. Returns the new state and the
    first conflict (then the new state must be discarded).
    """
    new = state.clone()
    for task_id, slots in moves.items():
        task = new.task(task_id)
        assert task is not None, task_id
        if task.embed_host is not None:
            host = new.task(task.embed_host)
            if host is not None and task_id in host.embedded_by:
                host.embedded_by.remove(task_id)
            task.embed_host = None
        task.slots = sorted(slots, key=lambda s: s.key())
    for task_id in moves:
        task = new.task(task_id)
        assert task is not None
        for slot in task.slots:
            # tasks moved in this call are checked at their final positions (not excluded)
            blocker = find_conflict(
                new, task, slot.day, slot.slot_start, slot.slot_end, set(), len(task.slots) == 1
            )
            if blocker is not None:
                return new, Conflict(task, slot, blocker)
            if len(task.slots) == 1:
                host_occ = find_embed_host(
                    new, task, slot.day, slot.slot_start, slot.slot_end, set()
                )
                if host_occ is not None:
                    host = host_occ[0]
                    task.embed_host = host.state_id
                    host.embedded_by.append(task.state_id)
                    host.embedded_by.sort()
    return new, None
