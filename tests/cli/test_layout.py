"""`planner layout`: preview written, changes by rough_layout, exit 3 with pending tasks."""

from __future__ import annotations

import json

from .conftest import FIXTURES


def test_layout_writes_a_preview(planner, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "p.json"
    result = planner("layout", FIXTURES / "exports" / "week.json", "-o", out, "--lang", "en")
    assert result.code == 0, result.err
    assert "0 pending" in result.out
    preview = json.loads(out.read_text(encoding="utf-8"))
    assert preview["kind"] == "schedule-preview"
    assert preview["changes"] and {c["by"] for c in preview["changes"]} == {"rough_layout"}
    assert preview["metrics"]["pending"] == 0
    assert preview["metrics"]["solver"]["status"] == "OPTIMAL"
    assert "solve_s" not in json.dumps(preview)
    again = tmp_path / "q.json"
    planner("layout", FIXTURES / "exports" / "week.json", "-o", again, "--lang", "en")
    assert again.read_bytes() == out.read_bytes()


def test_layout_exit_3_lists_pending_reasons(planner, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "p.json"
    result = planner(
        "layout",
        FIXTURES / "exports" / "tight.json",
        "-o",
        out,
        "--lang",
        "en",
        "--solver",
        "greedy",
    )
    assert result.code == 3
    assert "pending [" in result.out and "capacity" in result.out
    preview = json.loads(out.read_text(encoding="utf-8"))
    assert preview["run"]["outcome"] == "partial"
    assert preview["metrics"]["solver"]["status"] == "GREEDY"


def test_layout_usage_errors(planner, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "p.json"
    week = FIXTURES / "exports" / "week.json"
    assert planner("layout", week, "-o", out, "--solver", "magic").code == 2
    assert planner("layout", week, "-o", out, "--now", "soon").code == 2
    # out-of-range solver options are usage errors too (exit 2), named in one line
    for option, value in [("--workers", "0"), ("--workers", "65"), ("--seed", "-1")]:
        result = planner("layout", week, "-o", out, option, value)
        assert result.code == 2 and f"'{option}'" in result.err.splitlines()[0]
    for value in ("0", "-2"):
        result = planner("layout", week, "-o", out, "--time-limit", value)
        assert result.code == 2 and "expected a number > 0" in result.err
    assert not out.exists()


def test_timestamp_only_on_request(planner, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """formats.md §3: no wall-clock value unless --timestamp; with it, only the timestamp
    differs, and the stamped preview still chains into other commands."""
    import re

    week = FIXTURES / "exports" / "week.json"
    plain, stamped = tmp_path / "plain.json", tmp_path / "stamped.json"
    assert planner("layout", week, "-o", plain).code == 0
    assert planner("layout", week, "-o", stamped, "--timestamp").code == 0
    a = json.loads(plain.read_text(encoding="utf-8"))
    b = json.loads(stamped.read_text(encoding="utf-8"))
    assert "timestamp" not in a
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", b.pop("timestamp"))
    assert a == b
    assert planner("diff", stamped).code == 0
    tool_out = tmp_path / "tool.json"
    result = planner("tool", stamped, "get_overview", "-o", tool_out, "--timestamp")
    assert result.code == 0 and "timestamp" in json.loads(tool_out.read_text(encoding="utf-8"))
