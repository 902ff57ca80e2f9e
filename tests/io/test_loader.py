"""Export → state (formats.md §1, seed-origin §1.6 with our fixes) and the reverse expansion."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from planner_cli.errors import InputError
from planner_cli.io.loader import (
    default_duration,
    export_to_state,
    load_any,
    parse_export,
    state_rows,
)
from tests.helpers_export import export

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def state_of(data=None, **kw):
    return export_to_state(parse_export(data or export(), "x"), **kw)


def test_window_from_explicit_window_maps_days():
    state = state_of()
    assert state.window.total_days == 7
    assert [(d.day_index, d.week, d.day_of_week) for d in state.window.day_mapping][:2] == [
        (1, 5, 1),
        (2, 5, 2),
    ]


def test_window_from_class_dates_when_none_given():
    data = export()
    del data["window"]
    data["task_classes"][1]["end_date"] = "2026-10-14"
    state = state_of(data)
    assert state.window.total_days == 10
    assert state.window.day_mapping[-1].week == 6 and state.window.day_mapping[-1].day_of_week == 3


def test_window_from_scope_only_uses_scoped_classes():
    data = export()
    del data["window"]
    data["task_classes"][1].update(start_date="2026-10-01", end_date="2026-10-20")
    assert state_of(data, scope=[10]).window.total_days == 7
    assert state_of(data).window.total_days == 20


def test_cli_window_used_when_nothing_else():
    data = export(task_classes=[], task_items=[], schedule_events=[], schedules=[])
    del data["window"]
    with pytest.raises(InputError, match="no planning window"):
        state_of(data)
    state = state_of(data, cli_window=(dt.date(2026, 10, 5), dt.date(2026, 10, 6)))
    assert state.window.total_days == 2


def test_stable_ids_events_first_then_items_by_class_order():
    state = state_of()
    ids = {(t.source, t.source_id): t.state_id for t in state.tasks}
    # 3 events → 1..3; items not represented by a task event, sorted (class, order, id) → 4..
    assert ids[("event", 101)] == 1 and ids[("event", 102)] == 2 and ids[("event", 150)] == 3
    assert ids[("task_item", 202)] == 4
    assert ids[("task_item", 203)] == 5
    assert ids[("task_item", 204)] == 6
    assert ids[("task_item", 301)] == 7


def test_ids_do_not_depend_on_input_order():
    data = export()
    data["schedule_events"].reverse()
    data["task_items"].reverse()
    a = {(t.source, t.source_id): t.state_id for t in state_of().tasks}
    b = {(t.source, t.source_id): t.state_id for t in state_of(data).tasks}
    assert a == b


def test_section_rows_compress_into_runs():
    state = state_of()
    course = state.task(1)
    assert [s.key() for s in course.slots] == [(1, 1, 2), (3, 3, 4)]
    assert course.locked and course.is_existing and course.category == "课程"


def test_task_event_keeps_class_name_id_and_order():
    event = state_of().task(3)
    assert event.source == "event" and event.category == "概率论"
    assert event.task_class_id == 10 and event.task_order == 1 and not event.locked


def test_guest_gets_only_its_occurrence_and_links_are_mutual():
    state = state_of()
    host, guest = state.task(2), state.task(5)
    assert [s.key() for s in host.slots] == [(2, 3, 4), (4, 3, 4)]
    assert [s.key() for s in guest.slots] == [(2, 3, 4)]
    assert guest.embed_host == 2 and host.embedded_by == [5]
    assert guest.is_existing


def test_pending_duration_rules():
    state = state_of()
    assert state.task(4).duration == 8 // 4  # total_slots // items of the class
    assert state.task(7).duration == 1  # explicit duration wins
    assert default_duration(3, 0) == 2
    assert default_duration(10, 5) == 1


def test_scope_drops_out_of_scope_pending_items_only():
    state = state_of(scope=[11])
    names = {t.name for t in state.tasks}
    assert "单词 1" in names and "第二章" not in names
    assert "第三章" in names  # placed work stays as occupancy
    assert [c.id for c in state.task_classes] == [11]


def test_unknown_scope_class_is_an_error():
    with pytest.raises(InputError, match="unknown task class id 99"):
        state_of(scope=[99])


def test_applied_item_outside_window_is_skipped():
    data = export()
    data["task_items"][2]["embedded_time"] = {
        "week": 9,
        "day_of_week": 1,
        "section_from": 1,
        "section_to": 2,
    }
    data["schedules"][2].pop("embedded_task_id")
    state = state_of(data)
    assert all(t.source_id != 203 for t in state.tasks)


def test_state_rows_round_trip_the_export_rows_in_window():
    parsed = parse_export(export(), "x")
    state = export_to_state(parsed)
    expected = sorted(
        (
            {
                "event_id": row.event_id,
                "week": row.week,
                "day_of_week": row.day_of_week,
                "section": s,
            }
            | ({"embedded_task_id": row.embedded_task_id} if row.embedded_task_id else {})
            for _, row, s in parsed.cells()
        ),
        key=lambda r: (r["week"], r["day_of_week"], r["section"], r["event_id"]),
    )
    assert state_rows(state) == expected


@pytest.mark.parametrize(
    "name",
    sorted(p.name for p in (FIXTURES / "exports").glob("*.*") if p.suffix in (".json", ".yaml")),
)
def test_every_fixture_export_loads_and_round_trips(name):
    loaded = load_any(FIXTURES / "exports" / name)
    assert loaded.kind == "smartflow-export" and loaded.sha256
    export_rows = {
        (row.event_id, row.week, row.day_of_week, s, row.embedded_task_id)
        for _, row, s in loaded.export.cells()
        if loaded.state.day_of(row.week, row.day_of_week) is not None
    }
    rows = {
        (r["event_id"], r["week"], r["day_of_week"], r["section"], r.get("embedded_task_id"))
        for r in state_rows(loaded.state)
    }
    assert rows == export_rows


def test_seed_state_json_without_kind_loads(tmp_path):
    data = (FIXTURES / "states" / "s0.json").read_text()
    import json

    raw = json.loads(data)
    raw.pop("kind", None)
    raw.pop("version", None)
    p = tmp_path / "bare.json"
    p.write_text(json.dumps(raw))
    loaded = load_any(p)
    assert loaded.kind == "schedule-state" and len(loaded.state.tasks) == 7


def test_seed_int_embedded_by_is_accepted(tmp_path):
    import json

    raw = json.loads((FIXTURES / "states" / "s0.json").read_text())
    raw["tasks"][1]["embedded_by"] = 0
    p = tmp_path / "s.json"
    p.write_text(json.dumps(raw))
    assert load_any(p).state.task(2).embedded_by == []


def test_state_slot_outside_window_is_reported(tmp_path):
    import json

    raw = json.loads((FIXTURES / "states" / "s0.json").read_text())
    raw["tasks"][0]["slots"][0]["day"] = 9
    p = tmp_path / "s.json"
    p.write_text(json.dumps(raw))
    with pytest.raises(InputError) as exc:
        load_any(p)
    assert exc.value.lines() == [
        f"error: {p}: tasks[0].slots[0].day: day 9 is outside the window (1-7)"
    ]


def test_yaml_fixture_keeps_time_like_strings():
    loaded = load_any(FIXTURES / "exports" / "comments.yaml")
    locations = {e.location for e in loaded.export.schedule_events}
    assert "12:30" in locations
