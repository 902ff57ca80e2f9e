"""`planner validate`, `state`, `tool`: outputs and exit codes of spec/cli.md."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import FIXTURES

BROKEN = FIXTURES / "broken"
EXPECTED_PATHS = {
    "section_13.yaml": "schedules[3].section: must be between 1 and 12 (got 13)",
    "dow_8.yaml": "day_of_week: must be between 1 and 7 (got 8)",
    "duplicate_cell.yaml": "duplicate cell",
    "unknown_event.yaml": "event_id: unknown schedule event id",
    "week_out_of_semester.yaml": "week: week 21 is outside the semester (1-20)",
    "start_not_monday.yaml": "semester.start_date: must be a Monday",
    "class_dates_inverted.yaml": "task_classes[0]: start_date",
    "unknown_class.yaml": "category_id: unknown task class id",
    "duration_0.yaml": "duration: must be between 1 and 12 (got 0)",
    "duration_13.yaml": "duration: must be between 1 and 12 (got 13)",
    "bad_strategy.yaml": "strategy:",
    "excluded_slot_7.yaml": "must be between 1 and 6 (got 7)",
    "missing_kind_and_keys.json": "kind: not a planner document",
    "wrong_version.yaml": "version:",
    "yaml_tag.yaml": "is not allowed",
    "billion_laughs.yaml": "alias expansion exceeds",
    "not_yaml.yaml": "invalid YAML at line",
    "truncated.json": "invalid JSON at line",
    "extra_field.yaml": "colour: unknown field",
    "compact_row_inverted.yaml": "section_from 5 must not be greater than section_to 3",
    "no_window.yaml": "window: no planning window",
}


def test_every_broken_fixture_is_covered():
    assert sorted(EXPECTED_PATHS) == sorted(
        p.name for p in BROKEN.iterdir() if p.name != "README.md"
    )


@pytest.mark.parametrize("name", sorted(EXPECTED_PATHS))
def test_validate_broken_gives_one_clean_line_and_exit_1(planner, name):
    result = planner("validate", BROKEN / name)
    assert result.code == 1
    lines = result.err.strip().splitlines()
    assert lines and all(line.startswith(f"error: {BROKEN / name}: ") for line in lines)
    assert EXPECTED_PATHS[name] in result.err
    assert "Traceback" not in result.err


@pytest.mark.parametrize("name", sorted(EXPECTED_PATHS))
def test_state_on_broken_input_writes_nothing(planner, tmp_path, name):
    out = tmp_path / "state.json"
    result = planner("state", BROKEN / name, "-o", out)
    assert result.code == 1 and not out.exists()


def test_validate_all_good_fixtures(planner):
    files = sorted((FIXTURES / "exports").glob("*.json")) + sorted(
        (FIXTURES / "exports").glob("*.yaml")
    )
    result = planner("validate", *files, FIXTURES / "states" / "s0.json")
    assert result.code == 0, result.err
    assert result.out.count("ok: ") == len(files) + 1


def test_state_writes_a_state_file(planner, tmp_path):
    out = tmp_path / "s.json"
    assert planner("state", FIXTURES / "exports" / "week.json", "-o", out).code == 0
    data = json.loads(out.read_text())
    assert data["kind"] == "schedule-state" and data["window"]["total_days"] == 7


def test_state_scope_option_and_usage_error(planner):
    assert planner("state", FIXTURES / "exports" / "week.json", "--task-class", "x,y").code == 2


def test_tool_read_prints_text_and_exits_0(planner):
    result = planner("tool", FIXTURES / "states" / "s0.json", "get_task_info", '{"task_id": 1}')
    assert result.code == 0
    assert result.out.startswith("[1]高等数学")


def test_tool_refusal_exits_3_and_prints_message(planner):
    result = planner(
        "tool",
        FIXTURES / "states" / "s0.json",
        "place",
        '{"task_id": 3, "day": 2, "slot_start": 7}',
    )
    assert result.code == 3
    assert "放置失败：[3]线代1 不是待安排任务，无法放置。" in result.out


def test_tool_english(planner):
    result = planner(
        "tool",
        FIXTURES / "states" / "s0.json",
        "place",
        '{"task_id": 3, "day": 2, "slot_start": 7}',
        "--lang",
        "en",
    )
    assert result.code == 3 and "放置失败" not in result.out


def test_tool_writes_preview_with_change(planner, tmp_path):
    out = tmp_path / "p.json"
    result = planner(
        "tool",
        FIXTURES / "states" / "s0.json",
        "place",
        '{"task_id": 4, "day": 2, "slot_start": 3}',
        "-o",
        out,
    )
    assert result.code == 0, result.out + result.err
    preview = json.loads(out.read_text())
    assert preview["kind"] == "schedule-preview" and len(preview["input"]["sha256"]) == 64
    (change,) = preview["changes"]
    assert change["type"] == "place" and change["state_id"] == 4 and change["by"] == "tool:place"
    assert change["embed_host"] == {"state_id": 2, "event_id": 502}
    assert preview["original_state"] != preview["state"]


def test_tool_refused_write_preview_keeps_state(planner, tmp_path):
    out = tmp_path / "p.json"
    assert (
        planner(
            "tool",
            FIXTURES / "states" / "s0.json",
            "place",
            '{"task_id": 3, "day": 2, "slot_start": 7}',
            "-o",
            out,
        ).code
        == 3
    )
    preview = json.loads(out.read_text())
    assert preview["changes"] == [] and preview["state"] == preview["original_state"]


def test_tool_json_tool_prints_only_json(planner):
    result = planner(
        "tool", FIXTURES / "states" / "s0.json", "query_available_slots", '{"span": 2, "day": 2}'
    )
    assert result.code == 0
    assert json.loads(result.out)["count"] == 9


def test_tool_bad_args_json_is_exit_1(planner):
    result = planner("tool", FIXTURES / "states" / "s0.json", "place", "{oops")
    assert result.code == 1 and result.err.startswith("error: ARGS_JSON: invalid JSON")


def test_tool_unknown_name_is_usage_error(planner):
    result = planner("tool", FIXTURES / "states" / "s0.json", "teleport")
    assert result.code == 2 and "unknown tool 'teleport'" in result.err


def test_debug_shows_the_exception_instead_of_a_line(planner):
    from planner_cli.cli import main
    from planner_cli.errors import InputError

    assert "Traceback" not in planner("state", BROKEN / "section_13.yaml").err
    with pytest.raises(InputError):
        main(["--debug", "state", str(BROKEN / "section_13.yaml")])


def test_python_dash_m_entry_point():
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "planner_cli", "--help"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and "validate" in proc.stdout


def test_tool_on_a_preview_continues_it(planner, tmp_path):
    first, second = tmp_path / "p1.json", tmp_path / "p2.json"
    s0 = FIXTURES / "states" / "s0.json"
    assert (
        planner("tool", s0, "place", '{"task_id": 4, "day": 2, "slot_start": 3}', "-o", first).code
        == 0
    )
    assert (
        planner(
            "tool", first, "move", '{"task_id": 6, "new_day": 5, "new_slot_start": 9}', "-o", second
        ).code
        == 0
    )
    p1, p2 = json.loads(first.read_text()), json.loads(second.read_text())
    assert p2["input"] == p1["input"] and p2["original_state"] == p1["original_state"]
    assert {(c["state_id"], c["by"]) for c in p2["changes"]} == {
        (4, "tool:place"),
        (6, "tool:move"),
    }


def test_usage_errors_are_one_error_line_and_exit_2(planner):
    result = planner("state")
    assert result.code == 2
    assert result.err.splitlines()[0].startswith("error: Missing argument")
    assert "Traceback" not in result.err and "Usage:" not in result.err


def test_settings_file_errors_have_one_prefix(planner, tmp_path):
    result = planner(
        "tool", FIXTURES / "states" / "s0.json", "get_overview", "--config", tmp_path / "none.yaml"
    )
    assert result.code == 1
    assert result.err == f"error: {tmp_path / 'none.yaml'}: file not found\n"


def test_an_unknown_settings_section_in_the_environment_is_an_error(planner, monkeypatch):
    monkeypatch.setenv("PLANNER_SOLVR__TIME_LIMIT_S", "5")
    result = planner("tool", FIXTURES / "states" / "s0.json", "get_overview")
    assert result.code == 1
    assert result.err == (
        "error: PLANNER_SOLVR__TIME_LIMIT_S: unknown settings section 'solvr'"
        " (known: sections, solver, llm, eval, batch)\n"
    )
    monkeypatch.delenv("PLANNER_SOLVR__TIME_LIMIT_S")
    monkeypatch.setenv("PLANNER_SOLVER__TIME_LIMIT_S", "5")  # a known section still works
    assert planner("tool", FIXTURES / "states" / "s0.json", "get_overview").code == 0
