"""Every hard constraint of spec/solver.md: a feasible case and an infeasible one, both solvers."""

from __future__ import annotations

import pytest

from planner_cli.solver.layout import rough_layout
from planner_cli.tools.common import order_violation

from .builders import QUIET, course, date, item, meta, quiet, slots_of, state

SOLVERS = ["cpsat", "greedy"]


def run(st, solver, **kw):  # type: ignore[no-untyped-def]
    return rough_layout(st, solver=solver, settings=kw.pop("settings", QUIET), lang="en", **kw)


def full_day(day: int, except_: tuple[int, int] | None = None) -> list[tuple[int, int, int]]:
    """Course blocks covering a whole day, leaving `except_` free."""
    if except_ is None:
        return [(day, 1, 12)]
    a, b = except_
    out = []
    if a > 1:
        out.append((day, 1, a - 1))
    if b < 12:
        out.append((day, b + 1, 12))
    return out


@pytest.mark.parametrize("solver", SOLVERS)
def test_class_window_inside_the_planning_window(solver: str) -> None:
    st = state(5, [item(10, 7)], [meta(7, start_date=date(3), end_date=date(4))])
    result = run(st, solver)
    assert slots_of(result.state, 10)[0][0] in (3, 4)
    assert result.pending == []


@pytest.mark.parametrize("solver", SOLVERS)
def test_class_window_outside_the_planning_window_stays_pending(solver: str) -> None:
    st = state(5, [item(10, 7)], [meta(7, start_date=date(8), end_date=date(9))])
    result = run(st, solver)
    assert slots_of(result.state, 10) == []
    assert result.pending[0]["reason_code"] == "window"


@pytest.mark.parametrize("solver", SOLVERS)
def test_courses_leave_one_block(solver: str) -> None:
    st = state(1, [course(1, full_day(1, (7, 8))), item(10, 7)], [meta(7)])
    assert slots_of(run(st, solver).state, 10) == [(1, 7, 8)]


@pytest.mark.parametrize("solver", SOLVERS)
def test_courses_leave_nothing(solver: str) -> None:
    st = state(1, [course(1, full_day(1)), item(10, 7)], [meta(7)])
    result = run(st, solver)
    assert slots_of(result.state, 10) == []
    assert result.pending[0]["reason_code"] == "occupied"


@pytest.mark.parametrize("solver", SOLVERS)
def test_embedding_allowed_sets_the_link(solver: str) -> None:
    st = state(
        1,
        [course(1, full_day(1, (3, 4))), course(2, [(1, 3, 4)], can_embed=True), item(10, 7)],
        [meta(7, allow_filler_course=True)],
    )
    result = run(st, solver)
    assert slots_of(result.state, 10) == [(1, 3, 4)]
    assert result.state.task(10).embed_host == 2  # type: ignore[union-attr]
    assert result.state.task(2).embedded_by == [10]  # type: ignore[union-attr]


@pytest.mark.parametrize("solver", SOLVERS)
def test_embedding_disallowed(solver: str) -> None:
    st = state(
        1,
        [course(1, full_day(1, (3, 4))), course(2, [(1, 3, 4)], can_embed=True), item(10, 7)],
        [meta(7, allow_filler_course=False)],
    )
    result = run(st, solver)
    assert slots_of(result.state, 10) == []


@pytest.mark.parametrize("solver", SOLVERS)
def test_embedding_into_an_occupied_occurrence_is_refused(solver: str) -> None:
    host = course(2, [(1, 3, 4)], can_embed=True)
    guest = item(9, 8, slots=[(1, 3, 4)], status="existing")
    guest = guest.model_copy(update={"embed_host": 2, "duration": 0})
    host = host.model_copy(update={"embedded_by": [9]})
    st = state(1, [course(1, full_day(1, (3, 4))), host, guest, item(10, 7)], [meta(7), meta(8)])
    result = run(st, solver)
    assert slots_of(result.state, 10) == []


@pytest.mark.parametrize("solver", SOLVERS)
def test_one_guest_per_occurrence(solver: str) -> None:
    st = state(
        1,
        [
            course(1, full_day(1, (1, 4))),
            course(2, [(1, 1, 4)], can_embed=True),
            item(10, 7),
            item(11, 7),
        ],
        [meta(7)],
    )
    result = run(st, solver)
    placed = [t for t in (10, 11) if slots_of(result.state, t)]
    assert len(placed) == 1


@pytest.mark.parametrize("solver", SOLVERS)
def test_excluded_slots(solver: str) -> None:
    st = state(1, [item(10, 7)], [meta(7, excluded_slots=[1, 2, 3, 4, 5])])
    assert slots_of(run(st, solver).state, 10) == [(1, 11, 12)]
    st = state(1, [item(10, 7)], [meta(7, excluded_slots=[1, 2, 3, 4, 5, 6])])
    result = run(st, solver)
    assert slots_of(result.state, 10) == []
    assert result.pending[0]["reason_code"] == "exclusions"


@pytest.mark.parametrize("solver", SOLVERS)
def test_excluded_days_of_week(solver: str) -> None:
    st = state(2, [item(10, 7)], [meta(7, excluded_days_of_week=[1])])
    assert slots_of(run(st, solver).state, 10)[0][0] == 2
    st = state(2, [item(10, 7)], [meta(7, excluded_days_of_week=[1, 2])])
    result = run(st, solver)
    assert slots_of(result.state, 10) == []
    assert result.pending[0]["reason_code"] == "window"


@pytest.mark.parametrize("solver", SOLVERS)
def test_order_against_a_placed_sibling(solver: str) -> None:
    st = state(1, [item(10, 7, order=1), item(11, 7, order=2, slots=[(1, 3, 4)])], [meta(7)])
    result = run(st, solver)
    assert slots_of(result.state, 10) == [(1, 1, 2)]
    assert order_violation(result.state, [10], "en") is None


@pytest.mark.parametrize("solver", SOLVERS)
def test_order_leaves_no_room(solver: str) -> None:
    st = state(
        1,
        [course(1, [(1, 1, 2)]), item(10, 7, order=1), item(11, 7, order=2, slots=[(1, 3, 4)])],
        [meta(7)],
    )
    result = run(st, solver)
    assert slots_of(result.state, 10) == []
    assert result.pending[0]["reason_code"] == "order"


def test_order_between_laid_out_tasks() -> None:
    # rapid pulls everything early; order 3 must still come after order 1 and 2
    tasks = [item(10 + i, 7, order=3 - i) for i in range(3)]
    st = state(2, tasks, [meta(7, strategy="rapid")])
    result = run(st, "cpsat", settings=quiet(rapid_finish=5))
    starts = {t: slots_of(result.state, t)[0] for t in (10, 11, 12)}
    assert starts[12] < starts[11] < starts[10]
    assert order_violation(result.state, [10, 11, 12], "en") is None


@pytest.mark.parametrize("solver", SOLVERS)
def test_align_pairs(solver: str) -> None:
    tasks = [course(1, [(1, 1, 1), (1, 4, 12)]), item(10, 7)]
    st = state(1, tasks, [meta(7)])
    assert slots_of(run(st, solver).state, 10) == []
    relaxed = {**QUIET, "align_pairs": False}
    assert slots_of(run(st, solver, settings=relaxed).state, 10) == [(1, 2, 3)]


@pytest.mark.parametrize("solver", SOLVERS)
def test_daily_cap_overall(solver: str) -> None:
    st = state(2, [item(10, 7), item(11, 7)], [meta(7)])
    capped = {**QUIET, "caps": {"max_study_sections_per_day": 2}}
    result = run(st, solver, settings=capped)
    assert sorted(slots_of(result.state, t)[0][0] for t in (10, 11)) == [1, 2]
    one_day = state(1, [item(10, 7), item(11, 7)], [meta(7)])
    result = run(one_day, solver, settings=capped)
    assert len(result.pending) == 1
    assert result.pending[0]["reason_code"] == "caps"


@pytest.mark.parametrize("solver", SOLVERS)
def test_daily_cap_per_class(solver: str) -> None:
    st = state(1, [item(10, 7), item(11, 7), item(12, 8)], [meta(7), meta(8)])
    capped = {**QUIET, "caps": {"max_class_sections_per_day": 2}}
    result = run(st, solver, settings=capped)
    assert [p["state_id"] for p in result.pending] == [11]
    assert slots_of(result.state, 12) != []


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_full_class_window_is_not_escaped(solver: str) -> None:
    # day 1 is free but outside the class window (days 2-3), which courses fill
    tasks = [course(1, [(2, 1, 12), (3, 1, 12)]), item(10, 7)]
    st = state(3, tasks, [meta(7, start_date=date(2), end_date=date(3))])
    result = run(st, solver)
    assert slots_of(result.state, 10) == []
    assert result.pending[0]["reason_code"] == "occupied"
