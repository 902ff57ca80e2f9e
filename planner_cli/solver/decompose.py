"""Large instances: CP-SAT one week at a time (spec/solver.md "decompose large windows").

Above DECOMPOSE_ABOVE candidate blocks (and windows longer than a week) the whole-window model
rarely improves on its start within the default budget, so the window is cut into 7-day slices: each slice re-solves the
tasks that sit (or could sit) in it, restricted to its days, with everything else fixed, warm-
started from the current layout, so no slice makes the layout worse; a second pass uses slices
shifted by half a week. 60 % of the deterministic budget is shared equally among the slices,
whose cost phase probes lightly in presolve (with full probing most slices of a 60-day window
ended UNKNOWN, presolve having used their share); the wall-clock limit stays one safety net
for all of them. The bound reported is a cheap valid one (fixed costs plus
each task's cheapest block, interactions ignored), so the gap is honest but loose.
"""

from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from dataclasses import replace
from typing import Any

from planner_cli.model.state import ScheduleState
from planner_cli.solver.model import SolveOutcome, solve_cpsat
from planner_cli.solver.problem import Problem, build_problem
from planner_cli.solver.score import term_values

SLICE_DAYS = 7
# candidate blocks above which slices beat the whole-window model within the default budget
# (docs/benchmarks.md: 21-30 day instances of 4 400-10 700 blocks improved, 14-day ones not)
DECOMPOSE_ABOVE = 4000
# of max_deterministic_time, shared by the slices: the Python work around 17 slices (their
# problems, models, states) takes 3-4 s of a 60-day run, so the solver's share keeps the
# whole run clear of the wall-clock net (measured: 60 d x 400 t 8.5-11.3 s -> 7.2-8.7 s)
SLICED_BUDGET = 0.6


def lower_bound(problem: Problem) -> int:
    """Fixed costs + per task min(cheapest block, unplaced); every other term is ≥ 0."""
    w = problem.settings.weights
    fixed = term_values(problem.state, problem.settings)
    bound = w.unplaced * (fixed["unplaced"] - len(problem.tasks))
    bound += w.steady_spread * fixed["steady_spread"] + w.rapid_finish * fixed["rapid_finish"]
    bound += w.late_section * fixed["late_section"]
    for vt in problem.tasks:
        cheapest = min(
            (w.steady_spread * a + w.rapid_finish * b + w.late_section * c for a, b, c in vt.costs),
            default=w.unplaced,
        )
        bound += min(cheapest, w.unplaced)
    return max(0, bound)


def _with_positions(
    work: ScheduleState, problem: Problem, assignment: dict[int, int]
) -> ScheduleState:
    """`work` with the assigned blocks written in (conflict-free by construction, so no check).

    A shallow copy: the tasks it changes are new objects, every other task is shared with
    `work` (the slice's problem only reads the state; a deep copy per slice cost about 60 ms on
    60 d × 400 t)."""
    by_id = {task.state_id: task for task in work.tasks}
    changes: dict[int, dict[str, Any]] = {}
    guests: dict[int, list[int]] = {}
    for i, k in assignment.items():
        placement = problem.tasks[i].placements[k]
        task_id = problem.tasks[i].id
        changes[task_id] = {"slots": [placement.slot()], "status": "suggested"}
        if placement.host is not None:
            changes[task_id]["embed_host"] = placement.host[0]
            guests.setdefault(placement.host[0], []).append(task_id)
    for host_id, ids in guests.items():
        embedded = sorted([*by_id[host_id].embedded_by, *ids])
        changes.setdefault(host_id, {})["embedded_by"] = embedded
    tasks = [
        task.model_copy(update=changes[task.state_id]) if task.state_id in changes else task
        for task in work.tasks
    ]
    return work.model_copy(update={"tasks": tasks})


def solve_by_slices(
    work: ScheduleState,
    problem: Problem,
    hint: dict[int, int],
    stability: int | None,
    refs: dict[int, list] | None = None,
) -> SolveOutcome:
    started = time.perf_counter()
    settings = problem.settings
    days = problem.days
    # two passes: weeks, then weeks shifted by half a week (so a task can cross a cut)
    starts = list(range(1, days + 1, SLICE_DAYS))
    starts += [a + SLICE_DAYS // 2 for a in starts if a + SLICE_DAYS // 2 <= days]
    slices = [(a, min(days, a + SLICE_DAYS - 1)) for a in starts]
    share = settings.max_deterministic_time * SLICED_BUDGET / len(slices)
    index = {vt.id: i for i, vt in enumerate(problem.tasks)}
    keys = [
        {(p.day, p.start, p.end): k for k, p in enumerate(vt.placements)} for vt in problem.tasks
    ]
    reach = [sorted({p.day for p in vt.placements}) for vt in problem.tasks]
    current = dict(hint)
    phases: list[dict[str, Any]] = []
    timings: list[tuple[str, float, float]] = []
    build_s = 0.0
    for first, last in slices:
        # the tasks placed in the slice, and the unplaced ones that have a block in it
        chosen = [
            i
            for i, vt in enumerate(problem.tasks)
            if (
                first <= vt.placements[current[i]].day <= last
                if i in current
                else bisect_right(reach[i], last) > bisect_left(reach[i], first)
            )
        ]
        if not chosen:
            continue
        t0 = time.perf_counter()
        fixed = {i: k for i, k in current.items() if i not in set(chosen)}
        sub_state = _with_positions(work, problem, fixed)
        # the deterministic share binds; the wall clock stays one global safety net (an equal
        # wall share per slice could bind first on a busy machine and make runs differ)
        left = settings.time_limit_s - (time.perf_counter() - started)
        sub_settings = settings.model_copy(
            update={"max_deterministic_time": share, "time_limit_s": max(0.01, left)}
        )
        sub = build_problem(
            sub_state,
            [problem.tasks[i].id for i in chosen],
            sub_settings,
            problem.now_g,
            refs,
            only_days=(first, last),
        )
        sub_hint: dict[int, int] = {}
        for j, vt in enumerate(sub.tasks):
            i = index[vt.id]
            if i in current:
                p = problem.tasks[i].placements[current[i]]
                for k, q in enumerate(vt.placements):
                    if (q.day, q.start, q.end) == (p.day, p.start, p.end):
                        sub_hint[j] = k
        build_s += time.perf_counter() - t0
        out = solve_cpsat(replace(sub), sub_hint, stability, light_presolve=True)
        timings += [
            (f"slice{len(phases)}_{name}", wall, det) for name, wall, det in out.phase_times
        ]
        phases.append(
            {"phase": f"slice {first}-{last}", "status": out.status, "tasks": len(chosen)}
        )
        if out.status == "UNKNOWN":
            continue
        for j, vt in enumerate(sub.tasks):
            i = index[vt.id]
            if j in out.assignment:
                q = vt.placements[out.assignment[j]]
                current[i] = keys[i][(q.day, q.start, q.end)]
            else:
                current.pop(i, None)
    return SolveOutcome(
        current,
        "FEASIBLE",
        None,
        lower_bound(problem),
        False,
        None,
        phases,
        build_s,
        time.perf_counter() - started,
        timings,
    )
