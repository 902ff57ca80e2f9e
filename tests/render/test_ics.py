"""iCalendar export: real datetimes from the semester and section times, stable UIDs."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import icalendar
import pytest

from planner_cli.errors import ConfigError, InputError
from planner_cli.render.grid import section_times
from planner_cli.render.ics import render_ics
from planner_cli.settings import load_settings
from planner_cli.tools.common import ToolContext
from planner_cli.tools.registry import run_tool
from tests.render.helpers import s0, s0_with_guest

SH = ZoneInfo("Asia/Shanghai")


def times():
    return section_times(load_settings()["sections"])


def events(text: str) -> dict[str, icalendar.Event]:
    cal = icalendar.Calendar.from_ical(text)
    return {str(e["uid"]): e for e in cal.walk("VEVENT")}


def test_events_have_the_real_dates_and_section_times():
    evs = events(render_ics(s0_with_guest(), times()))
    math = evs["event-501-w12-d1-s1@planner-cli.invalid"]
    assert math.decoded("dtstart") == dt.datetime(2026, 11, 23, 8, 0, tzinfo=SH)
    assert math.decoded("dtend") == dt.datetime(2026, 11, 23, 9, 40, tzinfo=SH)
    assert str(math["summary"]) == "高等数学"
    assert str(math["status"]) == "CONFIRMED"
    guest = evs["item-9002@planner-cli.invalid"]
    assert guest.decoded("dtstart") == dt.datetime(2026, 11, 24, 10, 0, tzinfo=SH)
    assert guest.decoded("dtend") == dt.datetime(2026, 11, 24, 11, 40, tzinfo=SH)
    assert str(guest["status"]) == "TENTATIVE"
    assert "嵌入 思政" in str(guest["description"])
    assert len(evs) == 6  # 6 placed blocks; pending 杂项 has none
    assert dt.datetime(2026, 11, 24, 8, 55, tzinfo=SH) not in {
        e.decoded("dtstart") for e in evs.values()
    }


def test_the_same_state_gives_the_same_bytes_without_wall_clock():
    first = render_ics(s0(), times())
    assert render_ics(s0(), times()) == first
    assert "DTSTAMP:20260907T000000Z" in first
    assert "BEGIN:VTIMEZONE" in first and "TZID:Asia/Shanghai" in first


def test_uids_are_stable_so_a_reexport_updates_a_moved_task():
    before = events(render_ics(s0(), times()))
    moved = run_tool("move", s0(), {"task_id": 6, "new_day": 5, "new_slot_start": 9}, ToolContext())
    assert moved.ok, moved.text
    after = events(render_ics(moved.state, times()))
    assert set(after) == set(before)
    uid = "item-9004@planner-cli.invalid"
    assert before[uid].decoded("dtstart") == dt.datetime(2026, 11, 26, 8, 0, tzinfo=SH)
    assert after[uid].decoded("dtstart") == dt.datetime(2026, 11, 27, 18, 30, tzinfo=SH)


def test_a_state_without_semester_is_refused():
    state = s0()
    state.semester = None
    with pytest.raises(InputError, match="semester.start_date"):
        render_ics(state, times())


def test_section_times_are_validated():
    good = load_settings()["sections"]
    assert section_times(good).start(12) == dt.time(21, 0)
    bad = {"timezone": "Asia/Shanghai", "times": dict(good["times"])}
    bad["times"][3] = {"start": "10:60", "end": "11:40"}
    with pytest.raises(ConfigError, match=r"sections.times.3.start: expected a time"):
        section_times(bad)
    del bad["times"][3]
    with pytest.raises(ConfigError, match="section 3 has no start"):
        section_times(bad)
    with pytest.raises(ConfigError, match="unknown time zone"):
        render_ics(s0(), section_times({**good, "timezone": "Mars/Olympus"}))
