"""The placed-count model (solver/pooled.py) and the class-order symmetry rule of the layout."""

from __future__ import annotations

from planner_cli.solver.layout import rough_layout
from planner_cli.solver.pooled import pool
from planner_cli.solver.problem import build_problem
from planner_cli.solver.settings import SolverSettings
from planner_cli.tools.common import order_violation

from .builders import QUIET, course, item, meta, slots_of, state


def _problem(st):  # type: ignore[no-untyped-def]
    variable = sorted(t.state_id for t in st.tasks if t.is_pending)
    return build_problem(st, variable, SolverSettings())


def test_segments_are_runs_of_interchangeable_chain_tasks() -> None:
    tasks = [
        item(10, 7, order=1),
        item(11, 7, order=2),
        item(12, 7, order=3, duration=1),
        item(13, 7, order=4),
        item(14, 8, order=1),  # alone in its class: no chain
    ]
    pooled = pool(_problem(state(2, tasks, [meta(7), meta(8)])))
    assert pooled.members == [[0, 1], [2], [3], [4]]
    assert pooled.sizes == [2, 1, 1, 1]
    assert pooled.problem.chains == [[0, 1, 2]]


def test_a_segment_hands_its_blocks_out_in_time_order() -> None:
    pooled = pool(_problem(state(1, [item(10, 7, order=1), item(11, 7, order=2)], [meta(7)])))
    placements = pooled.problem.tasks[0].placements
    late, early = (next(k for k, pl in enumerate(placements) if pl.start == s) for s in (9, 3))
    assert pooled.assignment([[late, early]]) == {0: early, 1: late}
    assert pooled.assignment([[late]]) == {0: late}  # the earlier task takes the one block


def test_the_largest_placeable_set_despite_the_order() -> None:
    # free: 1-2, 5-8 and 11-12 of one day. In class order the 4-section task (order 2) must sit
    # between two 2-section ones: 1-2, 5-8, 11-12 places all three, which only the order-aware
    # count finds (any order-free count says 3 as well, but fills 5-8 with two short tasks)
    courses = [course(1, [(1, 3, 4), (1, 9, 10)])]
    tasks = [item(10, 7, order=1), item(11, 7, order=2, duration=4), item(12, 7, order=3)]
    result = rough_layout(state(1, courses + tasks, [meta(7)]), settings=QUIET, lang="en")
    assert result.pending == []
    assert [slots_of(result.state, t) for t in (10, 11, 12)] == [
        [(1, 1, 2)],
        [(1, 5, 8)],
        [(1, 11, 12)],
    ]
    assert result.metrics["solver"]["status"] == "OPTIMAL"


def test_when_a_class_does_not_fit_its_earlier_tasks_are_placed() -> None:
    # room for two of three identical tasks: class order decides, not the state ids
    courses = [course(1, [(1, 5, 12)])]
    tasks = [item(12, 7, order=1), item(11, 7, order=2), item(10, 7, order=3)]
    result = rough_layout(state(1, courses + tasks, [meta(7)]), settings=QUIET, lang="en")
    assert [p["state_id"] for p in result.pending] == [10]
    assert order_violation(result.state, [11, 12], "en") is None


def test_tasks_that_differ_are_not_forced_in_class_order() -> None:
    # only section 1 is free: the first task (2 sections) cannot use it, the second (1) can
    courses = [course(1, [(1, 2, 12)])]
    tasks = [item(11, 7, order=1), item(10, 7, order=2, duration=1)]
    result = rough_layout(state(1, courses + tasks, [meta(7)]), settings=QUIET, lang="en")
    assert [p["state_id"] for p in result.pending] == [11]
    assert slots_of(result.state, 10) == [(1, 1, 1)]
