"""The solver-independent scorer: the objective of spec/solver.md computed from any state.

Every preview's `metrics` comes from here, so greedy, CP-SAT and LLM-edited states compare on
one scale; the CP-SAT model reproduces exactly these terms (a test checks equality). Study work
= every non-course task (guests included); `day_load` is study sections per window day;
`context_switches` counts touching study blocks of different classes (a break in between costs
nothing); the stability term is present only when a stability weight is given.
"""

from __future__ import annotations

import math
from typing import Any

from planner_cli.model.state import ScheduleState
from planner_cli.solver.problem import CostModel, S, cell_of, is_study, task_key
from planner_cli.solver.settings import SolverSettings, coerce_settings

TERM_ORDER = (
    "unplaced",
    "steady_spread",
    "rapid_finish",
    "late_section",
    "day_over_mean",
    "long_run",
    "context_switch",
    "stability",
)


def study_cells(state: ScheduleState) -> dict[int, str]:
    """cell → key of the (lowest-id) study task on it."""
    out: dict[int, str] = {}
    for task in sorted(state.tasks, key=lambda x: x.state_id):
        if not is_study(task):
            continue
        for slot in task.slots:
            for section in range(slot.slot_start, slot.slot_end + 1):
                out.setdefault(cell_of(slot.day, section), task_key(task))
    return out


def long_runs(cells: dict[int, str], days: int, limit: int) -> int:
    """Σ over runs of consecutive study sections of max(0, length - limit)."""
    total = 0
    for day in range(1, days + 1):
        run = 0
        for section in range(1, S + 1):
            run = run + 1 if cell_of(day, section) in cells else 0
            if run > limit:
                total += 1
    return total


def context_switches(cells: dict[int, str], days: int) -> int:
    """Touching study sections of different classes (a break in between costs nothing)."""
    total = 0
    for day in range(1, days + 1):
        for section in range(1, S):
            a = cells.get(cell_of(day, section))
            b = cells.get(cell_of(day, section + 1))
            if a is not None and b is not None and a != b:
                total += 1
    return total


def _hard_violations(state: ScheduleState) -> int:
    try:
        from planner_cli.tools.invariants import state_violations  # type: ignore[import-not-found]
    except ImportError:
        return _count_overlaps(state)
    return len(state_violations(state))


def _count_overlaps(state: ScheduleState) -> int:
    """Pairs of overlapping placed tasks that are neither guests nor water courses."""
    blocks = [
        (slot.day, slot.slot_start, slot.slot_end, task.state_id)
        for task in state.tasks
        if not task.is_guest and not task.can_embed
        for slot in task.slots
    ]
    blocks.sort()
    count = 0
    for i, (day, _start, end, tid) in enumerate(blocks):
        for day2, start2, _end2, tid2 in blocks[i + 1 :]:
            if day2 != day or start2 > end:
                break
            if tid2 != tid:
                count += 1
    return count


def term_values(
    state: ScheduleState,
    settings: SolverSettings,
    original: ScheduleState | None = None,
    stability: int | None = None,
) -> dict[str, int]:
    """Raw (unweighted) value of every objective term."""
    costs = CostModel(state, settings)
    steady = rapid = late = 0
    total_study = 0
    day_load = [0] * state.window.total_days
    for task in state.tasks:
        if not is_study(task):
            continue
        total_study += task.slot_sections if task.slots else task.duration
        for slot in task.slots:
            if 1 <= slot.day <= len(day_load):
                day_load[slot.day - 1] += slot.length
        if not task.slots:
            continue
        price = costs.pricer(task)
        first = min(task.slots, key=lambda s: s.key())
        st, ra, _ = price(first.day, first.slot_start, first.slot_end)
        steady += st
        rapid += ra
        for slot in task.slots:
            late += price(slot.day, slot.slot_start, slot.slot_end)[2]
    days = state.window.total_days
    mean = math.ceil(total_study / days) if days else 0
    cells = study_cells(state)
    values = {
        "unplaced": sum(1 for task in state.tasks if task.is_pending),
        "steady_spread": steady,
        "rapid_finish": rapid,
        "late_section": late,
        "day_over_mean": sum(max(0, load - mean) for load in day_load),
        "long_run": long_runs(cells, days, settings.max_consecutive_study_sections),
        "context_switch": context_switches(cells, days),
    }
    if stability is not None:
        values["stability"] = _moved_suggestions(state, original) if original is not None else 0
    return values


def _moved_suggestions(state: ScheduleState, original: ScheduleState) -> int:
    """Tasks that had a suggested position in `original` and sit elsewhere (or nowhere) now."""
    count = 0
    for old in original.tasks:
        if not old.is_suggested:
            continue
        new = state.task(old.state_id)
        if new is None or [s.key() for s in new.slots] != [s.key() for s in old.slots]:
            count += 1
    return count


def _moved(state: ScheduleState, original: ScheduleState) -> int:
    count = 0
    for old in original.tasks:
        new = state.task(old.state_id)
        if (
            new is not None
            and old.slots
            and new.slots
            and [s.key() for s in new.slots] != [s.key() for s in old.slots]
        ):
            count += 1
    return count


def score(
    state: ScheduleState,
    original: ScheduleState | None = None,
    settings: SolverSettings | dict[str, Any] | None = None,
    stability: int | None = None,
) -> dict[str, Any]:
    """The metrics of `state`: pending, hard violations, per-term costs and the total objective."""
    s = coerce_settings(settings)
    values = term_values(state, s, original, stability)
    weights = s.weights.model_dump()
    if stability is not None:
        weights["stability"] = stability
    terms = {
        name: {"value": values[name], "weight": weights[name], "cost": values[name] * weights[name]}
        for name in TERM_ORDER
        if name in values
    }
    day_load = [0] * state.window.total_days
    for task in state.tasks:
        if is_study(task):
            for slot in task.slots:
                if 1 <= slot.day <= len(day_load):
                    day_load[slot.day - 1] += slot.length
    out: dict[str, Any] = {
        "pending": values["unplaced"],
        "hard_violations": _hard_violations(state),
        "objective": sum(term["cost"] for term in terms.values()),
        "terms": terms,
        "day_load": day_load,
        "context_switches": values["context_switch"],
    }
    if original is not None:
        out["moved"] = _moved(state, original)
    return out


def objective_key(metrics: dict[str, Any]) -> tuple[int, int]:
    """Lexicographic comparison: fewer pending tasks first, then the total objective."""
    return (metrics["pending"], metrics["objective"])
