"""Every validation rule of formats.md §1: a valid case and a failing one naming the field."""

from __future__ import annotations

import pytest

from planner_cli.errors import InputError
from planner_cli.io.loader import parse_export
from tests.helpers_export import export


def problems(data) -> list[str]:
    with pytest.raises(InputError) as exc:
        parse_export(data, "x.yaml")
    return [f"{p.path}: {p.message}" for p in exc.value.problems]


def test_base_export_is_valid():
    assert parse_export(export(), "x.yaml").semester.start_date == "2026-09-07"


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (
            lambda d: d["schedules"].append(
                {"event_id": 101, "week": 6, "day_of_week": 1, "section": 13}
            ),
            "schedules[6].section: must be between 1 and 12 (got 13)",
        ),
        (
            lambda d: d["schedules"].append(
                {"event_id": 101, "week": 6, "day_of_week": 8, "section": 1}
            ),
            "schedules[6].day_of_week: must be between 1 and 7 (got 8)",
        ),
        (
            lambda d: d["schedules"].append(
                {"event_id": 999, "week": 6, "day_of_week": 1, "section": 1}
            ),
            "schedules[6].event_id: unknown schedule event id 999",
        ),
        (
            lambda d: d["schedules"].append(
                {"event_id": 101, "week": 5, "day_of_week": 1, "section": 2}
            ),
            "schedules[6]: duplicate cell week 5 day_of_week 1 section 2 (also schedules[0])",
        ),
        (
            lambda d: d["schedules"].append(
                {"event_id": 101, "week": 21, "day_of_week": 1, "section": 2}
            ),
            "schedules[6].week: week 21 is outside the semester (1-20)",
        ),
        (
            lambda d: d["schedules"].append(
                {"event_id": 101, "week": 6, "day_of_week": 1, "section_from": 5, "section_to": 3}
            ),
            "schedules[6]: section_from 5 must not be greater than section_to 3",
        ),
        (
            lambda d: d["schedules"].append({"event_id": 101, "week": 6, "day_of_week": 1}),
            "schedules[6]: section (or section_from and section_to) is required",
        ),
        (
            lambda d: d["semester"].update(start_date="2026-09-08"),
            "semester.start_date: must be a Monday, the first day of teaching week 1 (got 2026-09-08)",
        ),
        (
            lambda d: d["semester"].update(start_date="2026-9-7"),
            "semester.start_date: must be a date written YYYY-MM-DD (got '2026-9-7')",
        ),
        (
            lambda d: d["task_classes"][0].update(start_date="2026-10-12"),
            "task_classes[0]: start_date 2026-10-12 must not be after end_date 2026-10-11",
        ),
        (
            lambda d: d["task_classes"][0].update(strategy="fast"),
            "task_classes[0].strategy: Input should be 'steady' or 'rapid' (got 'fast')",
        ),
        (
            lambda d: d["task_classes"][0].update(excluded_slots=[7]),
            "task_classes[0].excluded_slots[0]: must be between 1 and 6 (got 7)",
        ),
        (
            lambda d: d["task_classes"][0].update(excluded_days_of_week=[0]),
            "task_classes[0].excluded_days_of_week[0]: must be between 1 and 7 (got 0)",
        ),
        (
            lambda d: d["task_items"][1].update(duration=0),
            "task_items[1].duration: must be between 1 and 12 (got 0)",
        ),
        (
            lambda d: d["task_items"][1].update(duration=13),
            "task_items[1].duration: must be between 1 and 12 (got 13)",
        ),
        (
            lambda d: d["task_items"][1].update(category_id=99),
            "task_items[1].category_id: unknown task class id 99",
        ),
        (
            lambda d: d["task_items"].append(dict(d["task_items"][0])),
            "task_items[5].id: duplicate id 201",
        ),
        (
            lambda d: d["schedule_events"][2].update(rel_id=999),
            "schedule_events[2].rel_id: unknown task item id 999",
        ),
        (lambda d: d.update(colour="red"), "colour: unknown field (not allowed here)"),
        (lambda d: d.update(version=2), "version: Input should be 1 (got 2)"),
        (lambda d: d.pop("semester"), "semester: required field is missing"),
    ],
)
def test_each_rule_names_the_field(mutate, expected):
    data = export()
    mutate(data)
    assert expected in problems(data)


def test_every_problem_is_listed():
    data = export()
    data["schedules"][0]["section_to"] = 13
    data["task_items"][1]["duration"] = 0
    found = problems(data)
    assert len(found) == 2


def test_compact_row_reports_a_problem_once():
    data = export()
    data["schedules"].append(
        {"event_id": 999, "week": 6, "day_of_week": 1, "section_from": 1, "section_to": 4}
    )
    assert problems(data) == ["schedules[6].event_id: unknown schedule event id 999"]
