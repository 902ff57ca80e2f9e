"""Rough layout orchestration: scope, `now`, greedy baseline, CP-SAT, fallback, reasons, metrics.

Decisions: `now` is the start of a section (WEEK:DAY means the start of that day); a suggested
task in scope whose block starts before now is re-laid out after now, placed past work stays;
`stability=None` lays out pending tasks only (suggestions are fixed occupancy), a number also
re-lays out the scope's suggestions at that cost per moved task. Wall-clock timings are kept
out of `metrics` (previews stay byte-identical) and returned in `timings`.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from planner_cli.errors import UsageError
from planner_cli.model.state import ScheduleState, Slot
from planner_cli.solver.greedy import greedy_layout
from planner_cli.solver.problem import (
    Placement,
    Problem,
    S,
    VarTask,
    build_problem,
    cell_of,
    first_g,
    gidx,
)
from planner_cli.solver.score import objective_key, score
from planner_cli.solver.settings import SolverSettings, coerce_settings
from planner_cli.tools.common import order_violation, relocate
from planner_cli.tools.messages import Lang, t

SolverName = Literal["cpsat", "greedy"]


@dataclass(frozen=True)
class Now:
    """A moment: positions with g < `g` are in the past (g = (day-1)*12 + section)."""

    g: int
    text: str


@dataclass
class LayoutResult:
    state: ScheduleState
    placed: list[int]
    pending: list[dict[str, Any]]
    metrics: dict[str, Any]
    changed: list[int] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


_NOW_RE = re.compile(r"^\s*(\d+):(\d+)(?::(\d+))?\s*$")


def parse_now(text: str, state: ScheduleState) -> Now:
    """`WEEK:DAY[:SECTION]` or an ISO date → a moment of the window (clamped to its ends)."""
    match = _NOW_RE.match(text)
    section = 1
    if match:
        week, dow = int(match.group(1)), int(match.group(2))
        if match.group(3) is not None:
            section = int(match.group(3))
        if not 1 <= dow <= 7 or week < 1 or not 1 <= section <= S:
            raise UsageError(f"--now: week ≥ 1, day 1..7 and section 1..12 expected (got {text!r})")
    else:
        try:
            date = dt.date.fromisoformat(text.strip())
        except ValueError:
            raise UsageError(
                f"--now: expected WEEK:DAY[:SECTION] or a date like 2026-10-07 (got {text!r})"
            ) from None
        if state.semester is None:
            raise UsageError(
                "--now: a date needs semester.start_date in the state; use WEEK:DAY[:SECTION]"
            )
        days = (date - dt.date.fromisoformat(state.semester.start_date)).days
        week, dow = days // 7 + 1, days % 7 + 1
    mapping = sorted(state.window.day_mapping, key=lambda d: d.day_index)
    moment = (week, dow)
    day = state.day_of(week, dow)
    if day is not None:
        return Now(gidx(day, section), text)
    if not mapping or moment < (mapping[0].week, mapping[0].day_of_week):
        return Now(1, text)
    if moment > (mapping[-1].week, mapping[-1].day_of_week):
        return Now(gidx(state.window.total_days, S) + 1, text)
    # inside the span but not a window day (gaps): the next window day after it
    for d in mapping:
        if (d.week, d.day_of_week) > moment:
            return Now(gidx(d.day_index, 1), text)
    return Now(gidx(state.window.total_days, S) + 1, text)


def _in_scope(state: ScheduleState, class_id: int, scope: set[int] | None) -> bool:
    if scope is not None and class_id not in scope:
        return False
    meta = state.task_class(class_id) if class_id else None
    return meta is None or meta.mode == "auto"


def rough_layout(
    state: ScheduleState,
    scope_class_ids: list[int] | None = None,
    task_ids: list[int] | None = None,
    solver: SolverName = "cpsat",
    settings: SolverSettings | dict[str, Any] | None = None,
    now: Now | str | None = None,
    stability: int | None = None,
    lang: Lang = "zh",
) -> LayoutResult:
    """Lay out the scope's pending tasks (and, with `now`/`stability`, its suggestions)."""
    s = coerce_settings(settings)
    if isinstance(now, str):
        now = parse_now(now, state)
    now_g = now.g if now is not None else 1
    scope = set(scope_class_ids) if scope_class_ids is not None else None
    requested = list(scope_class_ids or [])
    if solver not in ("cpsat", "greedy"):
        raise UsageError(f"unknown solver {solver!r} (cpsat or greedy)")

    variable: list[int] = []
    refs: dict[int, list[Slot]] = {}
    skipped: list[tuple[int, str]] = []
    if task_ids is not None:
        for task_id in task_ids:
            task = state.task(task_id)
            if task is None:
                raise UsageError(f"task {task_id} does not exist")
            if not (task.is_pending or task.is_suggested):
                raise UsageError(
                    f"task {task_id} is {task.label}; only pending and suggested tasks are laid out"
                )
            variable.append(task_id)
    else:
        for task in state.tasks:
            if task.is_course or task.source != "task_item":
                continue
            if not _in_scope(state, task.class_id, scope):
                if task.is_pending and scope is not None and task.class_id in scope:
                    skipped.append((task.state_id, "manual"))
                continue
            if (
                task.is_pending
                or task.is_suggested
                and (stability is not None or first_g(task.slots) < now_g)
            ):
                variable.append(task.state_id)
    variable = sorted(set(variable))

    # the working state: every variable task pending, its previous position kept as a reference
    moves: dict[int, list[Slot]] = {}
    for task_id in variable:
        task = state.task(task_id)
        assert task is not None
        if task.slots:
            refs[task_id] = list(task.slots)
            moves[task_id] = []
    work, conflict = relocate(state, moves)
    assert conflict is None
    for task_id in variable:
        task = work.task(task_id)
        assert task is not None
        old = state.task(task_id)
        assert old is not None
        task.duration = old.duration or old.slot_sections or 2
        task.status = "pending"

    started = time.perf_counter()
    problem = build_problem(work, variable, s, now_g, refs)
    hint = greedy_layout(problem, requested)
    greedy_state = _apply(work, problem, hint)
    build_s = time.perf_counter() - started
    greedy_metrics = score(greedy_state, state, s, stability)
    timings = {"build_s": build_s}

    if solver == "greedy":
        final, assignment = greedy_state, hint
        info: dict[str, Any] = {
            "name": "greedy",
            "status": "GREEDY",
            "objective": greedy_metrics["objective"],
        }
    else:
        from planner_cli.solver.decompose import DECOMPOSE_ABOVE, SLICE_DAYS, solve_by_slices
        from planner_cli.solver.model import solve_cpsat

        size = sum(len(vt.placements) for vt in problem.tasks)
        if size > DECOMPOSE_ABOVE and problem.days > SLICE_DAYS:
            outcome = solve_by_slices(work, problem, hint, stability, refs)
        else:
            outcome = solve_cpsat(problem, hint, stability)
        timings["model_build_s"] = outcome.build_s
        timings["solve_s"] = outcome.solve_s
        for name, wall, det in outcome.phase_times:
            timings[f"{name}_s"] = wall
            timings[f"{name}_dtime"] = det
        cp_state = _apply(work, problem, outcome.assignment)
        cp_metrics = score(cp_state, state, s, stability)
        # the layout's true cost: a FEASIBLE incumbent's auxiliaries (switches, runs, excess)
        # may sit above their values, so the model's own objective can be higher
        objective = cp_metrics["objective"]
        info = {
            "name": "cpsat",
            "status": outcome.status,
            "objective": objective,
            "model_objective": outcome.objective,
            "bound": outcome.bound,
            "gap": _gap(
                objective,
                outcome.bound,
                s.weights.unplaced * cp_metrics["pending"] if outcome.placed_proven else 0,
            ),
            "placed_proven": outcome.placed_proven,
            "phases": outcome.phases,
            "greedy_objective": greedy_metrics["objective"],
            "greedy_pending": greedy_metrics["pending"],
        }
        if outcome.tie_break is not None:
            info["tie_break"] = outcome.tie_break
        if outcome.status == "UNKNOWN" or objective_key(cp_metrics) > objective_key(greedy_metrics):
            final, assignment = greedy_state, hint
            info["status"] = "GREEDY_FALLBACK"
            info["objective"] = greedy_metrics["objective"]
        else:
            final, assignment = cp_state, outcome.assignment

    placed = sorted(problem.tasks[i].id for i in assignment)
    violation = order_violation(final, placed, "en")
    if violation is not None:  # pragma: no cover - the model forbids it; a bug if it happens
        raise RuntimeError(f"layout broke the class order: {violation}")
    occupancy = _Final.of(final)
    pending: list[dict[str, Any]] = [
        {
            "state_id": vt.id,
            "name": vt.task.name,
            "reason_code": code,
            "reason": reason,
        }
        for i, vt in enumerate(problem.tasks)
        if i not in assignment
        for code, reason in [explain(problem, vt, final, lang, occupancy)]
    ]
    for task_id, code in skipped:
        task = state.task(task_id)
        assert task is not None
        pending.append(
            {
                "state_id": task_id,
                "name": task.name,
                "reason_code": code,
                "reason": t(lang, "reason_manual"),
            }
        )
    pending.sort(key=lambda p: int(p["state_id"]))
    metrics = score(final, state, s, stability)
    metrics["solver"] = info
    changed = [
        task_id
        for task_id in variable
        if [x.key() for x in _slots(final, task_id)] != [x.key() for x in refs.get(task_id, [])]
    ]
    return LayoutResult(final, placed, pending, metrics, changed, timings)


def _slots(state: ScheduleState, task_id: int) -> list[Slot]:
    task = state.task(task_id)
    return list(task.slots) if task is not None else []


def _gap(objective: int | None, bound: int | None, settled: int = 0) -> float | None:
    """Relative gap; `settled` (the pending tasks' cost, once their count is proven) is left
    out of the denominator, so the gap is in soft-cost units as spec/solver.md asks."""
    if objective is None or bound is None:
        return None
    return round(max(0, objective - bound) / max(1, abs(objective - settled)), 6)


def _apply(work: ScheduleState, problem: Problem, assignment: dict[int, int]) -> ScheduleState:
    moves = {
        problem.tasks[i].id: [problem.tasks[i].placements[k].slot()] for i, k in assignment.items()
    }
    new, conflict = relocate(work, moves)
    if conflict is not None:  # pragma: no cover - candidates exclude conflicts; a bug if it happens
        raise RuntimeError(
            f"layout produced a conflict: task {conflict.task.state_id} vs {conflict.blocker.state_id}"
        )
    for task_id in moves:
        task = new.task(task_id)
        assert task is not None
        task.status = "suggested"
    return new


@dataclass
class _Final:
    """The final state's occupancy, computed once for all the reasons."""

    cells: set[int]
    used_occurrences: set[tuple[int, int]]
    chains: dict[int, list[tuple[int, int, int]]]  # class → (order, first g, last g) placed

    @classmethod
    def of(cls, state: ScheduleState) -> _Final:
        cells: set[int] = set()
        used: set[tuple[int, int]] = set()
        chains: dict[int, list[tuple[int, int, int]]] = {}
        for task in state.tasks:
            if not task.slots:
                continue
            if task.is_guest and task.embed_host is not None:
                host = state.task(task.embed_host)
                if host is not None:
                    for i, occ in enumerate(host.slots):
                        if any(occ.contains(*s.key()) for s in task.slots):
                            used.add((host.state_id, i))
            else:
                for slot in task.slots:
                    cells.update(
                        range(
                            cell_of(slot.day, slot.slot_start), cell_of(slot.day, slot.slot_end) + 1
                        )
                    )
            if task.in_order_chain:
                first = min(gidx(x.day, x.slot_start) for x in task.slots)
                last = max(gidx(x.day, x.slot_end) for x in task.slots)
                chains.setdefault(task.class_id, []).append((task.task_order, first, last))
        return cls(cells, used, chains)

    def free(self, p: Placement) -> bool:
        if p.host is not None:
            return p.host not in self.used_occurrences
        return not any(c in self.cells for c in p.cells)

    def order_ok(self, vt: VarTask, p: Placement) -> bool:
        if not vt.task.in_order_chain:
            return True
        for order, first, last in self.chains.get(vt.task.class_id, ()):
            if order < vt.task.task_order and not p.g > last:
                return False
            if order > vt.task.task_order and not p.g_end < first:
                return False
        return True


def explain(
    problem: Problem, vt: VarTask, final: ScheduleState, lang: Lang, occupancy: _Final | None = None
) -> tuple[str, str]:
    """Why a task stayed pending: (reason code, text)."""
    occupancy = occupancy or _Final.of(final)
    meta = problem.state.task_class(vt.task.class_id) if vt.task.class_id else None
    start = meta.start_date if meta is not None and meta.start_date else "-"
    end = meta.end_date if meta is not None and meta.end_date else "-"
    if vt.n_days == 0:
        key = "reason_window_now" if problem.now_g > 1 else "reason_window"
        return "window", t(lang, key, start=start, end=end)
    if vt.n_allowed == 0:
        return "exclusions", t(lang, "reason_exclusions", duration=vt.duration)
    if vt.n_free == 0:
        return "occupied", t(lang, "reason_occupied", duration=vt.duration, end=end)
    if not vt.placements:
        return "order", _order_text(vt, lang)
    usable = [p for p in vt.placements if occupancy.free(p)]
    if not usable:
        return "capacity", t(
            lang, "reason_capacity", count=len(vt.placements), duration=vt.duration, end=end
        )
    if not any(occupancy.order_ok(vt, p) for p in usable):
        return "order", _order_text(vt, lang, final)
    caps = problem.settings.caps
    if caps.max_study_sections_per_day is not None or caps.max_class_sections_per_day is not None:
        return "caps", t(lang, "reason_caps")
    return "search", t(lang, "reason_search")


def _order_text(vt: VarTask, lang: Lang, final: ScheduleState | None = None) -> str:
    lower, upper = vt.lower, vt.upper
    if final is not None:
        # the nearest placed siblings in the final state bound it now
        for other in final.tasks:
            if not other.slots or not other.in_order_chain or other.class_id != vt.task.class_id:
                continue
            if other.task_order < vt.task.task_order and (
                lower is None or other.task_order > lower.task_order
            ):
                lower = other
            if other.task_order > vt.task.task_order and (
                upper is None or other.task_order < upper.task_order
            ):
                upper = other
    before = f"[{lower.state_id}]{lower.name}" if lower is not None else "-"
    after = f"[{upper.state_id}]{upper.name}" if upper is not None else "-"
    return t(lang, "reason_order", before=before, after=after)
