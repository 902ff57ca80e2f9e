"""`planner plan --session ID`: a conversation continues from the last state and history."""

from __future__ import annotations

import json
import shutil

from tests.cli.conftest import FIXTURES

PLAN = FIXTURES / "plans" / "week_vocab_mornings.json"


def run(planner, export, out, *extra):
    return planner("plan", export, "-o", out, "--no-rough", "--store", "sqlite", *extra)


def test_second_run_continues_from_the_first_runs_state(planner, tmp_path):
    export = tmp_path / "week.json"
    shutil.copy(FIXTURES / "exports" / "week.json", export)
    first, second = tmp_path / "p1.json", tmp_path / "p2.json"
    r1 = run(planner, export, first, "--plan-file", PLAN, "--session", "alice")
    assert r1.code == 0, r1.err
    r2 = run(planner, export, second, "--llm", "none", "--session", "alice")
    assert r2.code in (0, 3), r2.err
    p1, p2 = json.loads(first.read_text()), json.loads(second.read_text())
    assert p2["state"] == p1["state"]  # continued, not reloaded from the export
    assert p2["original_state"] == p1["original_state"]  # still relative to the export
    assert p2["input"] == p1["input"]
    assert {(c["state_id"], c["by"]) for c in p2["changes"]} == {
        (c["state_id"], c["by"]) for c in p1["changes"]
    }
    assert p1["changes"]


def test_session_is_listed_with_its_turns_and_can_be_deleted(planner, tmp_path):
    export = tmp_path / "week.json"
    shutil.copy(FIXTURES / "exports" / "week.json", export)
    for i in range(6):
        assert run(
            planner, export, tmp_path / f"p{i}.json", "--llm", "none", "--session", "bob"
        ).code in (0, 3)
    from planner_cli.store import open_store

    with open_store("sqlite") as store:
        snapshot = store.load("bob")
    assert snapshot is not None and len(snapshot.conversation.turns) == 6
    assert snapshot.compaction["plan"].watermark == 2  # older turns summarized, last 4 kept
    assert "bob" in planner("session", "list").out
    assert planner("session", "delete", "bob").code == 0
    with open_store("sqlite") as store:
        assert store.load("bob") is None


def test_a_changed_input_is_refused_for_an_existing_session(planner, tmp_path):
    export = tmp_path / "week.json"
    shutil.copy(FIXTURES / "exports" / "week.json", export)
    assert run(
        planner, export, tmp_path / "p1.json", "--llm", "none", "--session", "carol"
    ).code in (0, 3)
    export.write_text(export.read_text().replace("高等数学", "高等数学A"))
    result = run(planner, export, tmp_path / "p2.json", "--llm", "none", "--session", "carol")
    assert result.code == 1 and "another version" in result.err
    assert not (tmp_path / "p2.json").exists()


def test_without_session_nothing_is_stored(planner, tmp_path):
    assert run(
        planner, FIXTURES / "exports" / "week.json", tmp_path / "p.json", "--llm", "none"
    ).code in (0, 3)
    assert planner("session", "list").out.strip() == "no sessions"
