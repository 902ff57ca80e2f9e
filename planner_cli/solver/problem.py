"""The layout instance shared by the greedy, the CP-SAT model and the scorer: candidates and costs.

Positions use a global section index g = (day-1)*12 + section, so "earlier" is a plain `<`.
Decisions where the spec is silent: without `semester.start_date` in the state, class dates
cannot be mapped to days and every class window is the whole planning window; tasks of one
class are kept in (task_order, state_id) order even when two share an order number; a task
with no class meta (mode unknown) is laid out without class restrictions.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from planner_cli.model.state import SECTIONS_PER_DAY, ScheduleState, Slot, Task, TaskClassMeta
from planner_cli.solver.settings import SolverSettings
from planner_cli.tools.common import guest_in, may_embed

S = SECTIONS_PER_DAY


def gidx(day: int, section: int) -> int:
    return (day - 1) * S + section


def first_g(slots: list[Slot]) -> int:
    """Global index of the earliest section of `slots` (not empty)."""
    return min(gidx(s.day, s.slot_start) for s in slots)


def cell_of(day: int, section: int) -> int:
    """0-based cell index of (day, section)."""
    return (day - 1) * S + section - 1


def task_key(task: Task) -> str:
    """What counts as "the same subject" for context switches."""
    if task.class_id:
        return f"class:{task.class_id}"
    return f"cat:{task.category or task.name}"


def is_study(task: Task) -> bool:
    return not task.is_course


# -- class geometry and per-position costs (the scorer and the solver share these) ---------


def day_dates(state: ScheduleState) -> dict[int, dt.date] | None:
    if state.semester is None:
        return None
    start = dt.date.fromisoformat(state.semester.start_date)
    return {
        d.day_index: start + dt.timedelta(days=(d.week - 1) * 7 + d.day_of_week - 1)
        for d in state.window.day_mapping
    }


def _parse_date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text) if text else None
    except ValueError:
        return None


@dataclass
class ClassInfo:
    """A class's allowed days (window ∩ class dates, excluded weekdays removed) and task ranks."""

    meta: TaskClassMeta | None
    days: list[int]
    ranks: dict[int, int]
    size: int

    def ideal_day(self, task_id: int) -> int | None:
        rank = self.ranks.get(task_id)
        if rank is None or not self.days or not self.size:
            return None
        return self.days[((2 * rank + 1) * len(self.days)) // (2 * self.size)]


class CostModel:
    """Per-position costs of study tasks: steady spread, rapid finish, late sections."""

    def __init__(self, state: ScheduleState, settings: SolverSettings) -> None:
        self.state = state
        self.settings = settings
        self.dates = day_dates(state)
        self.day_map = {d.day_index: d for d in state.window.day_mapping}
        self._days_cache: dict[tuple[int, tuple[int, ...]], list[int]] = {}
        self.classes: dict[int, ClassInfo] = {}
        members: dict[int, list[Task]] = {}
        for task in state.tasks:
            if task.class_id and is_study(task):
                members.setdefault(task.class_id, []).append(task)
        all_days = [
            d.day_index for d in sorted(state.window.day_mapping, key=lambda d: d.day_index)
        ]
        for class_id, tasks in members.items():
            meta = state.task_class(class_id)
            ordered = sorted(tasks, key=lambda x: (x.task_order, x.state_id))
            days = self.class_days(meta, all_days) if meta is not None else all_days
            self.classes[class_id] = ClassInfo(
                meta, days, {x.state_id: i for i, x in enumerate(ordered)}, len(ordered)
            )

    def in_class_dates(self, meta: TaskClassMeta, day: int) -> bool:
        if self.dates is None:
            return True
        date = self.dates.get(day)
        first, last = _parse_date(meta.start_date), _parse_date(meta.end_date)
        if date is None:
            return False
        return (first is None or date >= first) and (last is None or date <= last)

    def class_days(self, meta: TaskClassMeta, all_days: list[int]) -> list[int]:
        """Days a task of the class may use: its date range, minus excluded weekdays."""
        key = (meta.id, tuple(all_days))
        if key not in self._days_cache:
            self._days_cache[key] = self._class_days(meta, all_days)
        return list(self._days_cache[key])

    def _class_days(self, meta: TaskClassMeta, all_days: list[int]) -> list[int]:
        out = []
        for day in all_days:
            info = self.day_map.get(day)
            if info is None or info.day_of_week in meta.excluded_days_of_week:
                continue
            if self.in_class_dates(meta, day):
                out.append(day)
        return out

    def pricer(self, task: Task) -> Callable[[int, int, int], tuple[int, int, int]]:
        """(steady_spread, rapid_finish, late_sections) of `task` as a function of a block's
        (day, start, end), its class looked up once (a long window prices hundreds of
        thousands of candidate blocks)."""
        info = self.classes.get(task.class_id) if task.class_id else None
        if info is None or info.meta is None:
            return lambda day, start, end: (0, 0, 0)
        meta = info.meta
        strategy = meta.strategy.strip().lower()
        ideal = info.ideal_day(task.state_id) if strategy == "steady" else None
        first = info.days[0] if strategy == "rapid" and info.days else None
        late_from = self.settings.late_section_from
        weight = self.settings.late_weight(meta.subject_type, meta.high_intensity)

        def price(day: int, start: int, end: int) -> tuple[int, int, int]:
            steady = abs(day - ideal) if ideal is not None else 0
            rapid = max(0, day - first) if first is not None else 0
            return steady, rapid, max(0, end - max(start, late_from) + 1) * weight

        return price


# -- the instance -------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    day: int
    start: int
    end: int
    host: tuple[int, int] | None = None  # (host state_id, index of the occurrence in host.slots)

    @property
    def g(self) -> int:
        return gidx(self.day, self.start)

    @property
    def g_end(self) -> int:
        return gidx(self.day, self.end)

    @property
    def cells(self) -> range:
        return range(cell_of(self.day, self.start), cell_of(self.day, self.end) + 1)

    def slot(self) -> Slot:
        return Slot(day=self.day, slot_start=self.start, slot_end=self.end)


@dataclass
class VarTask:
    """A task the layout decides: its candidate blocks, costs and what limited it."""

    task: Task
    duration: int
    key: str
    placements: list[Placement]
    costs: list[tuple[int, int, int]]
    ref: list[Slot] | None = None  # position before the call (stability, hint)
    ref_index: int | None = None  # index of `ref` among placements, when it is one
    # diagnosis of an empty or exhausted candidate list (for reasons)
    n_days: int = 0
    n_allowed: int = 0
    n_free: int = 0
    lower: Task | None = None
    upper: Task | None = None

    @property
    def id(self) -> int:
        return self.task.state_id


@dataclass
class Problem:
    state: ScheduleState  # variable tasks pending, everything else fixed
    settings: SolverSettings
    costs: CostModel
    tasks: list[VarTask]
    cell_owners: dict[int, list[int]]  # cell → fixed non-guest task ids occupying it
    free_occurrences: set[tuple[int, int]]
    study_key: dict[int, str]  # cell → key of the fixed study task on it
    chains: list[list[int]]  # indexes into tasks, in class order
    now_g: int
    mean_load: int
    day_study: dict[int, int] = field(default_factory=dict)  # fixed study sections per day
    class_day_study: dict[tuple[int, int], int] = field(default_factory=dict)

    @property
    def days(self) -> int:
        return self.state.window.total_days


def _class_order_key(task: Task) -> tuple[int, int]:
    return (task.task_order, task.state_id)


def build_problem(
    state: ScheduleState,
    variable: list[int],
    settings: SolverSettings,
    now_g: int = 1,
    refs: dict[int, list[Slot]] | None = None,
    only_days: tuple[int, int] | None = None,
) -> Problem:
    """The instance for laying out `variable` (pending tasks of `state`) around everything else;
    `only_days` (first, last) limits the candidate blocks to those days (decomposition)."""
    refs = refs or {}
    var_set = set(variable)
    costs = CostModel(state, settings)
    cell_owners: dict[int, list[int]] = {}
    study_key: dict[int, str] = {}
    free_occ: set[tuple[int, int]] = set()
    day_study: dict[int, int] = {}
    class_day_study: dict[tuple[int, int], int] = {}
    total_study = 0
    for task in sorted(state.tasks, key=lambda x: x.state_id):  # lowest id owns a shared cell
        if task.state_id in var_set:
            total_study += task.duration
            continue
        if is_study(task):
            total_study += task.slot_sections if task.slots else task.duration
        for i, slot in enumerate(task.slots):
            cells = range(cell_of(slot.day, slot.slot_start), cell_of(slot.day, slot.slot_end) + 1)
            if not task.is_guest:
                for c in cells:
                    cell_owners.setdefault(c, []).append(task.state_id)
            if is_study(task):
                for c in cells:
                    study_key.setdefault(c, task_key(task))
                day_study[slot.day] = day_study.get(slot.day, 0) + slot.length
                if task.class_id:
                    k = (task.class_id, slot.day)
                    class_day_study[k] = class_day_study.get(k, 0) + slot.length
            if task.can_embed and guest_in(state, task, slot, set()) is None:
                free_occ.add((task.state_id, i))
    mean = math.ceil(total_study / state.window.total_days) if state.window.total_days else 0

    all_days = [d.day_index for d in sorted(state.window.day_mapping, key=lambda d: d.day_index)]
    now_day = (now_g - 1) // S + 1
    var_tasks: list[VarTask] = []
    by_id = {task.state_id: task for task in state.tasks}
    siblings = _placed_siblings(state, var_set)
    sites: dict[tuple[int, int, int], tuple[int, int] | None] = {}

    def site(day: int, start: int, end: int) -> tuple[int, int] | None:
        """`_site`, once per block (tasks of one size share their blocks)."""
        key = (day, start, end)
        if key not in sites:
            sites[key] = _site(day, start, end, cell_owners, by_id, free_occ)
        return sites[key]

    for task_id in sorted(var_set):
        found = by_id.get(task_id)
        assert found is not None and found.is_pending, task_id
        var_tasks.append(
            _var_task(
                state,
                found,
                costs,
                settings,
                all_days,
                now_g,
                now_day,
                site,
                siblings,
                refs,
                only_days,
            )
        )

    chains: list[list[int]] = []
    by_class: dict[int, list[int]] = {}
    for i, vt in enumerate(var_tasks):
        if vt.task.in_order_chain:
            by_class.setdefault(vt.task.class_id, []).append(i)
    for class_id in sorted(by_class):
        members = sorted(by_class[class_id], key=lambda i: _class_order_key(var_tasks[i].task))
        if len(members) > 1:
            chains.append(members)
    return Problem(
        state,
        settings,
        costs,
        var_tasks,
        cell_owners,
        free_occ,
        study_key,
        chains,
        now_g,
        mean,
        day_study,
        class_day_study,
    )


def _placed_siblings(state: ScheduleState, var_set: set[int]) -> dict[int, list[Task]]:
    """Placed, fixed tasks of every order chain, by class (what bounds a variable task)."""
    out: dict[int, list[Task]] = {}
    for other in state.tasks:
        if other.state_id not in var_set and other.slots and other.in_order_chain:
            out.setdefault(other.class_id, []).append(other)
    return out


def _order_bounds(
    task: Task, siblings: dict[int, list[Task]]
) -> tuple[int, int, Task | None, Task | None]:
    """(lo, hi): a block must start after lo and end before hi (placed fixed siblings)."""
    lo, hi = 0, 10**9
    lower = upper = None
    if not task.in_order_chain:
        return lo, hi, None, None
    for other in siblings.get(task.class_id, ()):
        if other.task_order < task.task_order:
            end = max(gidx(s.day, s.slot_end) for s in other.slots)
            if end > lo:
                lo, lower = end, other
        elif other.task_order > task.task_order:
            start = min(gidx(s.day, s.slot_start) for s in other.slots)
            if start < hi:
                hi, upper = start, other
    return lo, hi, lower, upper


TAKEN = (-1, -1)  # a block some fixed task occupies (and no free occurrence can host)


def _site(
    day: int,
    start: int,
    end: int,
    cell_owners: dict[int, list[int]],
    by_id: dict[int, Task],
    free_occ: set[tuple[int, int]],
) -> tuple[int, int] | None:
    """What a block's cells hold: None (free), the free occurrence of an embeddable course
    that can host it (host id, occurrence index), or TAKEN."""
    owners: set[int] = set()
    for c in range(cell_of(day, start), cell_of(day, end) + 1):
        owners.update(cell_owners.get(c, ()))
    if not owners:
        return None
    host_task = by_id.get(next(iter(owners))) if len(owners) == 1 else None
    if host_task is None or not host_task.can_embed:
        return TAKEN
    for i, occ in enumerate(host_task.slots):
        if occ.contains(day, start, end) and (host_task.state_id, i) in free_occ:
            return (host_task.state_id, i)
    return TAKEN


def _var_task(
    state: ScheduleState,
    task: Task,
    costs: CostModel,
    settings: SolverSettings,
    all_days: list[int],
    now_g: int,
    now_day: int,
    site: Callable[[int, int, int], tuple[int, int] | None],
    siblings: dict[int, list[Task]],
    refs: dict[int, list[Slot]],
    only_days: tuple[int, int] | None,
) -> VarTask:
    duration = task.duration or 2
    meta = state.task_class(task.class_id) if task.class_id else None
    days = costs.class_days(meta, all_days) if meta is not None else list(all_days)
    days = [d for d in days if d >= now_day]
    if only_days is not None:
        days = [d for d in days if only_days[0] <= d <= only_days[1]]
    blocked: set[int] = set()
    if meta is not None:
        for k in meta.excluded_slots:
            blocked.update((2 * k - 1, 2 * k))
    embed_ok = may_embed(state, task)
    lo, hi, lower, upper = _order_bounds(task, siblings)
    step = 2 if settings.align_pairs else 1
    starts = [
        start
        for start in range(1, S - duration + 2, step)
        if not blocked.intersection(range(start, start + duration))
    ]
    placements: list[Placement] = []
    n_allowed = n_free = 0
    for day in days:
        for start in starts:
            end = start + duration - 1
            if gidx(day, start) < now_g:
                continue
            n_allowed += 1
            host = site(day, start, end)
            if host is TAKEN or (host is not None and not embed_ok):
                continue
            n_free += 1
            if not (gidx(day, start) > lo and gidx(day, end) < hi):
                continue
            placements.append(Placement(day, start, end, host))
    price = costs.pricer(task)
    ref = refs.get(task.state_id)
    ref_index = None
    if ref is not None and len(ref) == 1:
        for i, p in enumerate(placements):
            if (p.day, p.start, p.end) == ref[0].key():
                ref_index = i
                break
    return VarTask(
        task=task,
        duration=duration,
        key=task_key(task),
        placements=placements,
        costs=[price(p.day, p.start, p.end) for p in placements],
        ref=ref,
        ref_index=ref_index,
        n_days=len(days),
        n_allowed=n_allowed,
        n_free=n_free,
        lower=lower,
        upper=upper,
    )
