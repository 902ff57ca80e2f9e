"""`planner apply`, `diff`, `show` and `session` through the real entry point: outputs, exit codes."""

from __future__ import annotations

import json
import shutil

import icalendar
import pytest

from tests.cli.conftest import FIXTURES

TINY = FIXTURES / "exports" / "tiny.yaml"
S0 = FIXTURES / "states" / "s0.json"
PLACE = json.dumps({"task_id": 4, "day": 4, "slot_start": 3})  # tiny: 第二章随机变量 → Thu §3-4


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.yaml"
    shutil.copy(TINY, path)
    return path


def item(planner, export, item_id):
    result = planner("state", export)
    assert result.code == 0, result.err
    return [t for t in json.loads(result.out)["tasks"] if t.get("source_id") == item_id]


# -- apply ------------------------------------------------------------------------------------


def test_apply_in_place_writes_the_change_and_a_bak(planner, tiny, tmp_path):
    preview = tmp_path / "p.json"
    assert planner("tool", tiny, "place", PLACE, "-o", preview).code == 0
    original = tiny.read_bytes()
    result = planner("apply", preview, "--export", tiny)
    assert result.code == 0, result.err
    assert "task event created: 151 for item 202" in result.out
    assert f"applied 1 changes (1 place) to {tiny} (previous version in {tiny}.bak)" in result.out
    assert (tmp_path / "tiny.yaml.bak").read_bytes() == original
    shown = planner("state", tiny)
    tasks = json.loads(shown.out)["tasks"]
    placed = [t for t in tasks if t["source"] == "event" and t["source_id"] == 151]
    assert placed and placed[0]["slots"] == [{"day": 4, "slot_start": 3, "slot_end": 4}]


def test_apply_refuses_a_stale_preview_with_exit_5_and_force_applies(planner, tiny, tmp_path):
    preview = tmp_path / "p.json"
    planner("tool", tiny, "place", PLACE, "-o", preview)
    tiny.write_text(tiny.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    before = tiny.read_bytes()
    result = planner("apply", preview, "--export", tiny)
    assert result.code == 5
    assert result.err.startswith(f"error: {tiny}: refusing to apply {preview}")
    assert "--force" in result.err and "Traceback" not in result.err
    assert tiny.read_bytes() == before
    assert not (tmp_path / "tiny.yaml.bak").exists()
    forced = planner("apply", preview, "--export", tiny, "--force")
    assert forced.code == 0, forced.err


def test_apply_to_another_output_keeps_the_export(planner, tiny, tmp_path):
    preview = tmp_path / "p.json"
    planner("tool", tiny, "place", PLACE, "-o", preview)
    before = tiny.read_bytes()
    result = planner("apply", preview, "--export", tiny, "-o", tmp_path / "new.json")
    assert result.code == 0, result.err
    assert tiny.read_bytes() == before
    data = json.loads((tmp_path / "new.json").read_text(encoding="utf-8"))
    assert {
        "id": 151,
        "name": "第二章随机变量",
        "type": "task",
        "can_be_embedded": False,
        "rel_id": 202,
    } in data["schedule_events"]


def test_apply_needs_a_preview(planner, tiny):
    result = planner("apply", tiny, "--export", tiny)
    assert result.code == 1
    assert "expected a preview" in result.err


def test_apply_without_export_is_a_usage_error(planner, tmp_path):
    assert planner("apply", tmp_path / "p.json").code == 2


# -- diff -------------------------------------------------------------------------------------


def test_diff_lines_have_old_and_new_day_labels_and_the_step(planner, tmp_path):
    preview = tmp_path / "p.json"
    move = json.dumps({"task_id": 6, "new_day": 5, "new_slot_start": 9})
    assert planner("tool", S0, "move", move, "-o", preview).code == 0
    result = planner("diff", preview)
    assert result.code == 0
    assert result.out == (
        "移动 [6]英语1：第4天(星期4)第1-2节 → 第5天(星期5)第9-10节  由 tool:move\n"
    )
    en = planner("diff", preview, "--lang", "en")
    assert (
        en.out
        == "move [6]英语1: day 4 (Thu) sections 1-2 → day 5 (Fri) sections 9-10  by tool:move\n"
    )
    as_json = json.loads(planner("diff", preview, "--json").out)
    assert [(c["type"], c["state_id"], c["by"]) for c in as_json] == [("move", 6, "tool:move")]


def test_diff_shows_placements_into_water_courses(planner, tmp_path):
    preview = tmp_path / "p.json"
    place = json.dumps({"task_id": 4, "day": 2, "slot_start": 3})
    planner("tool", S0, "place", place, "-o", preview)
    assert planner("diff", preview).out == (
        "放置 [4]线代2：未安排 → 第2天(星期2)第3-4节（嵌入 [2]思政）  由 tool:place\n"
    )


def test_diff_of_an_unchanged_preview(planner, tmp_path):
    preview = tmp_path / "p.json"
    planner("tool", S0, "get_overview", "-o", preview)
    assert planner("diff", preview).out == "没有变更。\n"


# -- show -------------------------------------------------------------------------------------


def test_show_text_is_the_week_grid(planner):
    result = planner("show", S0)
    assert result.code == 0
    assert "第12周  2026-11-23 – 2026-11-29" in result.out
    assert "*线代1" in result.out


def test_show_formats(planner, tmp_path):
    md = planner("show", S0, "--format", "md")
    assert "| 节 | 周一 11-23 |" in md.out
    as_json = planner("show", S0, "-f", "json")
    assert json.loads(as_json.out) == json.loads(planner("state", S0).out)
    assert planner("show", S0, "-o", tmp_path / "t.html").code == 0
    page = (tmp_path / "t.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and 'data-date="2026-11-23"' in page
    ics = planner("show", S0, "--format", "ics")
    cal = icalendar.Calendar.from_ical(ics.out)
    assert len(cal.walk("VEVENT")) == 5


def test_show_of_a_preview_renders_its_final_state(planner, tiny, tmp_path):
    preview = tmp_path / "p.json"
    planner("tool", tiny, "place", PLACE, "-o", preview)
    assert "*第二章随机" in planner("show", preview).out


def test_show_rejects_an_unknown_format(planner):
    result = planner("show", S0, "--format", "pdf")
    assert result.code == 2
    assert "--format: expected one of text, md, json, html, ics" in result.err


def test_show_ics_of_a_state_without_semester_fails_cleanly(planner, tmp_path):
    data = json.loads(S0.read_text(encoding="utf-8"))
    del data["semester"]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = planner("show", path, "-f", "ics")
    assert result.code == 1
    assert "semester.start_date" in result.err and "Traceback" not in result.err


# -- session ----------------------------------------------------------------------------------


def test_session_list_show_delete(planner, tmp_path):
    from planner_cli.io.loader import load_any
    from planner_cli.store import Conversation, Snapshot, Turn, open_store

    assert planner("session", "list").out == "no sessions\n"
    state = load_any(S0).state
    with open_store(None) as store:  # PLANNER_HOME is the test's temp dir
        store.save(
            "alice",
            Snapshot(
                conversation=Conversation(
                    turns=[Turn(instruction="周末空出来", outcome="completed")]
                ),
                state=state,
                original_state=state,
            ),
        )
    listed = planner("session", "list")
    assert listed.code == 0 and "alice" in listed.out
    shown = planner("session", "show", "alice")
    assert shown.code == 0
    assert "session alice: 1 turns" in shown.out
    assert "1. 周末空出来 [completed]" in shown.out
    assert "state: 7 tasks (3 suggested, 2 pending) in a 7-day window" in shown.out
    assert (
        json.loads(planner("session", "show", "alice", "--json").out)["kind"] == "planner-session"
    )
    assert planner("session", "delete", "alice").out == "deleted session alice\n"
    assert planner("session", "delete", "alice").code == 0
    missing = planner("session", "show", "alice")
    assert missing.code == 1
    assert "error: session 'alice' not found" in missing.err


def test_session_with_a_bad_store_url(planner):
    result = planner("session", "list", "--store", "mongodb://x")
    assert result.code == 1
    assert "unknown session store 'mongodb'" in result.err


def test_diff_speaks_the_previews_language_unless_told(planner, tmp_path):
    preview = tmp_path / "p.json"
    move = json.dumps({"task_id": 6, "new_day": 5, "new_slot_start": 9})
    assert planner("tool", S0, "move", move, "--lang", "en", "-o", preview).code == 0
    assert planner("diff", preview).out.startswith("move [6]英语1: day 4 (Thu) sections 1-2")
    assert planner("diff", preview, "--lang", "zh").out.startswith("移动 [6]英语1：第4天(星期4)")


def test_diff_needs_a_preview(planner):
    result = planner("diff", S0)
    assert result.code == 1
    assert "expected a preview" in result.err
