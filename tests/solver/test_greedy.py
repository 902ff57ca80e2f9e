"""The greedy cursor layout: seed-origin §6.18 spacing examples and our documented decisions."""

from __future__ import annotations

import pytest

from planner_cli.solver.layout import rough_layout

from .builders import course, item, meta, slots_of, state


def one_day(strategy: str, n: int = 2, **kw: object) -> list:
    st = state(
        1, [item(10 + i, 7, order=i + 1) for i in range(n)], [meta(7, strategy=strategy, **kw)]
    )
    result = rough_layout(st, solver="greedy")
    return [slots_of(result.state, 10 + i) for i in range(n)], result


def test_steady_leaves_equal_gaps() -> None:
    placed, _ = one_day("steady")
    assert placed == [[(1, 3, 4)], [(1, 7, 8)]]


def test_rapid_packs_early() -> None:
    placed, _ = one_day("rapid")
    assert placed == [[(1, 1, 2)], [(1, 3, 4)]]


def test_steady_with_an_excluded_block() -> None:
    placed, _ = one_day("steady", excluded_slots=[1])
    assert placed == [[(1, 5, 6)], [(1, 9, 10)]]


def test_time_not_enough_places_what_fits_and_leaves_the_rest_pending() -> None:
    placed, result = one_day("steady", n=7)
    assert placed[:6] == [
        [(1, 1, 2)],
        [(1, 3, 4)],
        [(1, 5, 6)],
        [(1, 7, 8)],
        [(1, 9, 10)],
        [(1, 11, 12)],
    ]
    assert placed[6] == []
    assert [p["state_id"] for p in result.pending] == [16]
    assert result.pending[0]["reason_code"] == "capacity"


@pytest.mark.parametrize(("allow", "second"), [(True, (1, 3, 4)), (False, (1, 5, 6))])
def test_water_course_used_only_when_the_class_allows_filler(allow: bool, second: tuple) -> None:
    st = state(
        1,
        [course(1, [(1, 3, 4)], can_embed=True), item(10, 7, 1), item(11, 7, 2)],
        [meta(7, strategy="rapid", allow_filler_course=allow)],
    )
    result = rough_layout(st, solver="greedy")
    assert slots_of(result.state, 10) == [(1, 1, 2)]
    assert slots_of(result.state, 11) == [second]
    guest = result.state.task(11)
    host = result.state.task(1)
    assert guest is not None and host is not None
    if allow:
        assert guest.embed_host == 1 and host.embedded_by == [11]
    else:
        assert guest.embed_host is None and host.embedded_by == []


def test_greedy_skips_excluded_weekdays_and_respects_a_placed_sibling() -> None:
    # day 1 (Monday) excluded; the placed sibling of order 3 sits on day 2 §5-6
    st = state(
        3,
        [item(10, 7, 1), item(11, 7, 2), item(12, 7, 3, slots=[(2, 5, 6)])],
        [meta(7, strategy="rapid", excluded_days_of_week=[1])],
    )
    result = rough_layout(st, solver="greedy")
    assert slots_of(result.state, 10) == [(2, 1, 2)]
    assert slots_of(result.state, 11) == [(2, 3, 4)]


def test_greedy_uses_the_task_duration() -> None:
    st = state(1, [item(10, 7, 1, duration=3)], [meta(7, strategy="rapid")])
    result = rough_layout(st, solver="greedy")
    assert slots_of(result.state, 10) == [(1, 1, 3)]
