"""Each objective term moves the CP-SAT layout the right way (the term on vs off), and the
scorer computes exactly the objective the solver optimised."""

from __future__ import annotations

import pytest

from planner_cli.solver.layout import rough_layout
from planner_cli.solver.model import _Builder
from planner_cli.solver.problem import build_problem
from planner_cli.solver.score import score
from planner_cli.solver.settings import SolverSettings

from .builders import course, item, meta, quiet, slots_of, state


def cpsat(st, settings, **kw):  # type: ignore[no-untyped-def]
    return rough_layout(st, solver="cpsat", settings=settings, lang="en", **kw)


def test_tie_break_alone_packs_earliest_first() -> None:
    st = state(3, [item(10, 7), item(11, 7)], [meta(7)])
    result = cpsat(st, quiet())
    assert slots_of(result.state, 10) == [(1, 1, 2)]
    assert slots_of(result.state, 11) == [(1, 3, 4)]


def test_steady_spread_puts_tasks_on_their_ideal_days() -> None:
    st = state(5, [item(10, 7, 1), item(11, 7, 2)], [meta(7, strategy="steady")])
    off = cpsat(st, quiet())
    on = cpsat(st, quiet(steady_spread=3))
    assert [slots_of(off.state, t)[0][0] for t in (10, 11)] == [1, 1]
    # ideal days of 2 tasks over 5 days: days[5 // 4] = 2 and days[15 // 4] = 4
    assert [slots_of(on.state, t)[0][0] for t in (10, 11)] == [2, 4]


def test_rapid_finish_pulls_work_to_the_first_days() -> None:
    # the only free block of day 1 is late; the late penalty alone would move it to day 2
    tasks = [course(1, [(1, 1, 8), (2, 3, 12)]), item(10, 7)]
    st = state(2, tasks, [meta(7, strategy="rapid", subject_type="quantitative")])
    late_only = cpsat(st, quiet(late_section=1))
    both = cpsat(st, quiet(late_section=1, rapid_finish=10))
    assert slots_of(late_only.state, 10) == [(2, 1, 2)]
    assert slots_of(both.state, 10) == [(1, 9, 10)]


def test_late_sections_cost_for_quantitative_classes() -> None:
    tasks = [course(1, [(1, 1, 8)]), item(10, 7)]
    st = state(2, tasks, [meta(7, subject_type="quantitative")])
    assert slots_of(cpsat(st, quiet()).state, 10) == [(1, 9, 10)]
    assert slots_of(cpsat(st, quiet(late_section=1)).state, 10) == [(2, 1, 2)]
    memory = state(2, tasks, [meta(7, subject_type="memory")])
    assert slots_of(cpsat(memory, quiet(late_section=1)).state, 10) == [(1, 9, 10)]


def test_day_over_mean_moves_work_off_a_busy_day() -> None:
    busy = item(9, 8, slots=[(1, 1, 6)], status="existing").model_copy(update={"duration": 0})
    st = state(2, [busy, item(10, 7)], [meta(7), meta(8)])
    assert slots_of(cpsat(st, quiet()).state, 10)[0][0] == 1
    assert slots_of(cpsat(st, quiet(day_over_mean=2)).state, 10)[0][0] == 2


# both formulations of long runs and context switches (solver/model.py)
RUN_SWITCH_MODELS = ["day_paths", "boundaries"]


@pytest.mark.parametrize("model", RUN_SWITCH_MODELS)
def test_long_runs_are_broken_up(model: str) -> None:
    study = [
        item(8, 8, slots=[(1, 1, 2)], status="existing").model_copy(update={"duration": 0}),
        item(9, 8, slots=[(1, 5, 6)], status="existing").model_copy(update={"duration": 0}),
    ]
    tasks = [course(1, [(1, 7, 8), (1, 11, 12)]), *study, item(10, 8)]
    st = state(1, tasks, [meta(8)])
    pick = {"run_switch_model": model}
    assert slots_of(cpsat(st, quiet() | pick).state, 10) == [(1, 3, 4)]
    assert slots_of(cpsat(st, quiet(long_run=4) | pick).state, 10) == [(1, 9, 10)]


@pytest.mark.parametrize("model", RUN_SWITCH_MODELS)
def test_context_switches_leave_a_break_between_classes(model: str) -> None:
    other = item(9, 8, slots=[(1, 1, 2)], status="existing").model_copy(update={"duration": 0})
    st = state(1, [other, item(10, 7)], [meta(7), meta(8)])
    pick = {"run_switch_model": model}
    assert slots_of(cpsat(st, quiet() | pick).state, 10) == [(1, 3, 4)]
    assert slots_of(cpsat(st, quiet(context_switch=1) | pick).state, 10) == [(1, 5, 6)]


def test_stability_keeps_suggestions_in_place() -> None:
    st = state(3, [item(10, 7, slots=[(3, 1, 2)])], [meta(7, strategy="rapid")])
    moved = cpsat(st, quiet(rapid_finish=2), stability=0)
    kept = cpsat(st, quiet(rapid_finish=2), stability=100)
    assert slots_of(moved.state, 10) == [(1, 1, 2)]
    assert slots_of(kept.state, 10) == [(3, 1, 2)]
    assert moved.metrics["terms"]["stability"]["value"] == 1
    assert kept.metrics["terms"]["stability"]["value"] == 0


def test_unplaced_dominates_every_other_term() -> None:
    # placing both tasks forces a late, long, mixed day; still better than leaving one pending
    tasks = [course(1, [(1, 1, 8)]), item(10, 7), item(11, 8)]
    st = state(
        1, tasks, [meta(7, subject_type="quantitative"), meta(8, subject_type="quantitative")]
    )
    result = cpsat(st, quiet(late_section=50, context_switch=50, long_run=50))
    assert result.pending == []


@pytest.mark.parametrize("model", RUN_SWITCH_MODELS)
def test_scorer_equals_the_solver_objective(model: str) -> None:
    tasks = [
        course(1, [(1, 1, 4), (2, 5, 8)]),
        course(2, [(2, 1, 2), (3, 3, 4)], can_embed=True),
        item(9, 8, slots=[(1, 7, 8)], status="existing").model_copy(update={"duration": 0}),
        *[item(10 + i, 7, order=i + 1) for i in range(4)],
        *[item(20 + i, 8, order=i + 2, duration=1 + i % 2) for i in range(3)],
        item(30, 9, slots=[(4, 1, 2)]),
    ]
    classes = [
        meta(7, strategy="steady", subject_type="quantitative"),
        meta(8, strategy="rapid", cognitive_intensity="high", excluded_slots=[6]),
        meta(9, strategy="rapid"),
    ]
    st = state(4, tasks, classes)
    for stability in (None, 7):
        result = rough_layout(
            st, solver="cpsat", stability=stability, settings={"run_switch_model": model}
        )
        info = result.metrics["solver"]
        assert info["status"] == "OPTIMAL"
        assert info["model_objective"] == result.metrics["objective"]
        assert score(result.state, st, None, stability)["objective"] == info["model_objective"]
        assert result.metrics["hard_violations"] == 0
        assert result.metrics["objective"] <= info["greedy_objective"]


def test_no_run_or_switch_model_when_both_weights_are_zero() -> None:
    # measured: a day-path network priced at zero slowed 14 d x 55 t from 0.3 units to unproven
    tasks = [course(1, [(1, 1, 2)]), *[item(10 + i, 7, order=i + 1) for i in range(3)]]
    st = state(2, tasks, [meta(7)])
    variable = sorted(t.state_id for t in st.tasks if t.is_pending)

    def extra_variables(**weights: int) -> int:
        """Model variables beyond the block booleans."""
        settings = SolverSettings.from_dict(quiet(**weights))
        b = _Builder(build_problem(st, variable, settings), all_placed=True, paths=True)
        b.objective()
        return len(b.m.proto.variables) - sum(len(row) for row in b.x)

    assert extra_variables() == 0
    assert extra_variables(context_switch=1) > 0
    assert extra_variables(long_run=1) > 0
