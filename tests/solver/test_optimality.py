"""CP-SAT's OPTIMAL is the true optimum: tiny random instances solved by brute force.

Every combination of candidate blocks (or "unplaced") is enumerated, the hard rules are checked
on it (no shared cell or occurrence, class order), and the scorer prices the feasible ones. The
largest placeable count and, for that count, the cheapest objective must be what CP-SAT reports
whenever it says OPTIMAL, including instances where not every task fits and the solver has to
choose which ones to leave pending.
"""

from __future__ import annotations

import itertools
import random

import pytest

from planner_cli.model.state import ScheduleState
from planner_cli.solver.greedy import greedy_layout
from planner_cli.solver.layout import _apply, rough_layout
from planner_cli.solver.problem import build_problem
from planner_cli.solver.score import score
from planner_cli.solver.settings import SolverSettings

from .builders import course, item, meta, state


def tiny_state(seed: int) -> ScheduleState:
    """One or two days with courses leaving little room, two classes of 1-3 ordered tasks."""
    rng = random.Random(seed)
    days = rng.randint(1, 2)
    tasks = []
    for day in range(1, days + 1):
        starts = rng.sample((1, 3, 5, 7, 9, 11), rng.randint(3, 4))
        for i, start in enumerate(sorted(starts)):
            tasks.append(course(10 * day + i, [(day, start, start + 1)], can_embed=i == 0))
    classes = []
    sid = 40
    for c in range(2):
        classes.append(
            meta(
                7 + c,
                strategy=rng.choice(("steady", "rapid")),
                allow_filler_course=rng.random() < 0.5,
                subject_type=rng.choice(("quantitative", "memory")),
            )
        )
        for k in range(rng.randint(1, 3)):
            tasks.append(item(sid, 7 + c, order=k + 1, duration=rng.choice((1, 2, 2))))
            sid += 1
    return state(days, tasks, classes)


def brute_force(st: ScheduleState) -> tuple[int, int]:
    """(fewest pending, lowest objective among layouts with that many pending)."""
    settings = SolverSettings()
    variable = sorted(t.state_id for t in st.tasks if t.is_pending)
    problem = build_problem(st, variable, settings)
    options = [[None, *range(len(vt.placements))] for vt in problem.tasks]
    best: tuple[int, int] | None = None
    for combo in itertools.product(*options):
        assignment = {t: k for t, k in enumerate(combo) if k is not None}
        if not _feasible(problem, assignment):
            continue
        pending = len(problem.tasks) - len(assignment)
        if best is not None and pending > best[0]:
            continue
        objective = score(_apply(st, problem, assignment), st, settings)["objective"]
        best = min(best or (pending, objective), (pending, objective))
    assert best is not None
    return best


def _feasible(problem, assignment) -> bool:  # type: ignore[no-untyped-def]
    cells: set[int] = set()
    hosts: set[tuple[int, int]] = set()
    for t, k in assignment.items():
        pl = problem.tasks[t].placements[k]
        if pl.host is not None:
            if pl.host in hosts:
                return False
            hosts.add(pl.host)
            continue
        if cells & set(pl.cells):
            return False
        cells.update(pl.cells)
    for chain in problem.chains:
        placed = [problem.tasks[t].placements[assignment[t]] for t in chain if t in assignment]
        if any(a.g_end >= b.g for a, b in zip(placed, placed[1:], strict=False)):
            return False
    return True


@pytest.mark.parametrize("model", ["day_paths", "boundaries"])
@pytest.mark.parametrize("seed", range(10))
def test_optimal_means_optimal(seed: int, model: str) -> None:
    st = tiny_state(seed)
    settings = {"time_limit_s": 10, "max_deterministic_time": 5, "run_switch_model": model}
    result = rough_layout(st, settings=settings)
    info = result.metrics["solver"]
    assert info["status"] == "OPTIMAL"
    assert (result.metrics["pending"], result.metrics["objective"]) == brute_force(st)


def test_some_instances_leave_tasks_pending() -> None:
    """The suite covers the hard case: fewer places than tasks, so the set itself is chosen."""
    short = 0
    for seed in range(10):
        st = tiny_state(seed)
        problem = build_problem(
            st, sorted(t.state_id for t in st.tasks if t.is_pending), SolverSettings()
        )
        if brute_force(st)[0] > 0 and len(greedy_layout(problem)) < len(problem.tasks):
            short += 1
    assert short >= 2
