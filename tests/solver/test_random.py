"""Random small instances: both solvers keep every hard rule, CP-SAT is never worse than greedy,
and the scorer agrees with the objective CP-SAT reports."""

from __future__ import annotations

import random

import pytest

from planner_cli.model.state import ScheduleState
from planner_cli.solver.layout import rough_layout
from planner_cli.solver.problem import CostModel
from planner_cli.solver.settings import SolverSettings
from planner_cli.tools.common import order_violation
from planner_cli.tools.invariants import state_violations

from .builders import course, date, item, meta, state


def random_state(seed: int) -> ScheduleState:
    rng = random.Random(seed)
    days = rng.randint(2, 6)
    tasks = []
    used: set[tuple[int, int]] = set()
    for i in range(rng.randint(1, 4)):
        day = rng.randint(1, days)
        start = rng.choice((1, 3, 5, 7, 9))
        if (day, start) in used:
            continue
        used.add((day, start))
        tasks.append(course(i + 1, [(day, start, start + 1)], can_embed=rng.random() < 0.4))
    classes = []
    sid = 20
    for c in range(rng.randint(1, 3)):
        first = rng.randint(1, days)
        classes.append(
            meta(
                10 + c,
                strategy=rng.choice(("steady", "rapid", "")),
                start_date=date(first),
                end_date=date(rng.randint(first, days)),
                excluded_slots=rng.sample(range(1, 7), rng.randint(0, 2)),
                allow_filler_course=rng.random() < 0.5,
                subject_type=rng.choice(("quantitative", "memory")),
            )
        )
        for k in range(rng.randint(1, 5)):
            tasks.append(item(sid, 10 + c, order=k + 1, duration=rng.choice((1, 2, 2, 3))))
            sid += 1
    return state(days, tasks, classes)


@pytest.mark.parametrize("seed", range(12))
def test_random_instances_keep_the_rules(seed: int) -> None:
    st = random_state(seed)
    greedy = rough_layout(st, solver="greedy")
    cp = rough_layout(st, settings={"time_limit_s": 5, "max_deterministic_time": 2})
    for result in (greedy, cp):
        assert state_violations(result.state) == []
        assert order_violation(result.state, result.placed, "en") is None
        costs = CostModel(result.state, SolverSettings())
        for task_id in result.placed:
            task = result.state.task(task_id)
            assert (
                task is not None and len(task.slots) == 1 and task.slots[0].length == task.duration
            )
            meta_ = result.state.task_class(task.class_id)
            assert meta_ is not None
            assert task.slots[0].day in costs.class_days(
                meta_, list(range(1, st.window.total_days + 1))
            )
            blocked = {s for k in meta_.excluded_slots for s in (2 * k - 1, 2 * k)}
            assert not blocked & set(range(task.slots[0].slot_start, task.slots[0].slot_end + 1))
        assert len(result.placed) + len(result.pending) == sum(1 for t in st.tasks if t.is_pending)
    assert (cp.metrics["pending"], cp.metrics["objective"]) <= (
        greedy.metrics["pending"],
        greedy.metrics["objective"],
    )
    if cp.metrics["solver"]["status"] != "GREEDY_FALLBACK":
        assert cp.metrics["solver"]["objective"] == cp.metrics["objective"]
