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
    assert not out.exists()
