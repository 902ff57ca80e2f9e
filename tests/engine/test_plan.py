"""Plan model (formats.md §4): per-tool argument validation, refs, structure and state checks."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import Field

from planner_cli.errors import InputError
from planner_cli.io.loader import load_any
from planner_cli.model.plan import (
    Ref,
    RefError,
    iter_refs,
    natural_key,
    parse_plan,
    plan_model,
    resolve_ref,
    substitute_refs,
)
from planner_cli.tools.registry import ToolArgs

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = Path(__file__).parent / "snapshots" / "plan_schema.json"
CORE_TOOLS = ("get_overview", "list_tasks", "query_available_slots", "place", "move", "swap")


@pytest.fixture
def s0():
    """seed-origin §6 S0: 1 locked course, 2 water course, 3/5/6 suggested, 4/7 pending."""
    return load_any(ROOT / "fixtures" / "states" / "s0.json").state


def problems(data, state=None, **kw) -> list[str]:
    with pytest.raises(InputError) as info:
        parse_plan(data, "plan.json", state, **kw)
    return [f"{p.path}: {p.message}" for p in info.value.problems]


def plan(*steps, **extra):
    return {"kind": "schedule-plan", "version": 1, "goal": "test", "steps": list(steps), **extra}


def step(sid, tool, args=None, deps=()):
    return {"id": sid, "tool": tool, "args": args or {}, "depends_on": list(deps)}


# -- schema ---------------------------------------------------------------------------------


class SnapshotMoveArgs(ToolArgs):
    """Move one suggested task (a stand-in tool: the snapshot covers the plan's own text)."""

    task_id: int = Field(description="state_id of the task.")
    new_day: int = Field(description="Target day index (1..N).")


class SnapshotQueryArgs(ToolArgs):
    """Free blocks (a stand-in read tool)."""

    span: int | None = Field(default=None, description="Block length in sections.")
    day_of_week: list[int] | None = Field(default=None, description="Weekdays to keep.")


SNAPSHOT_SPECS = {
    "move": SimpleNamespace(args=SnapshotMoveArgs, kind="write"),
    "query": SimpleNamespace(args=SnapshotQueryArgs, kind="read"),
}


def test_schema_snapshot():
    """The plan's own prompt text (Plan, Step, Ref, Decision descriptions and the step union),
    over two stand-in tools so that the tools' texts, snapshotted by their owners, do not move
    it. Any change must be deliberate: regenerate with PLANNER_UPDATE_SNAPSHOTS=1."""
    from planner_cli.engine.react import decision_model

    schemas = {
        "plan": plan_model(SNAPSHOT_SPECS).model_json_schema(),
        "decision": decision_model(SNAPSHOT_SPECS).model_json_schema(),
    }
    text = json.dumps(schemas, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    if os.environ.get("PLANNER_UPDATE_SNAPSHOTS"):
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(text, encoding="utf-8")
    assert SNAPSHOT.exists(), "run with PLANNER_UPDATE_SNAPSHOTS=1 to create the snapshot"
    assert text == SNAPSHOT.read_text(encoding="utf-8"), (
        "the plan schema changed; check the prompt text, then regenerate with "
        "PLANNER_UPDATE_SNAPSHOTS=1"
    )


def test_schema_is_a_union_on_tool_with_refs_allowed():
    schema = plan_model().model_json_schema()
    items = schema["properties"]["steps"]["items"]
    assert items["discriminator"]["propertyName"] == "tool"
    for name in CORE_TOOLS:
        assert name in items["discriminator"]["mapping"]
    move_day = schema["$defs"]["MoveArgs"]["properties"]["new_day"]["anyOf"]
    assert {"type": "integer"} in move_day and {"$ref": "#/$defs/Ref"} in move_day
    assert "kind" not in schema["properties"]  # defaults, hidden from the model


# -- arguments --------------------------------------------------------------------------------


def test_valid_plan_keeps_args_as_given(s0):
    data = plan(
        step("s1", "list_tasks", {"category": "线代", "status": "suggested"}),
        step("s2", "query_available_slots", {"span": 2, "day_scope": "workday", "limit": 1}),
        step(
            "s3",
            "move",
            {"task_id": 6, "new_day": {"ref": "s2.slots[0].day"}, "new_slot_start": 9},
            ["s2"],
        ),
    )
    result = parse_plan(data, "p", s0)
    assert [s.tool for s in result.steps] == ["list_tasks", "query_available_slots", "move"]
    assert result.dump()["steps"][2]["args"] == {
        "task_id": 6,
        "new_day": {"ref": "s2.slots[0].day"},
        "new_slot_start": 9,
    }
    assert result.dump()["steps"][1]["args"] == {"span": 2, "day_scope": "workday", "limit": 1}


def test_args_are_checked_by_the_tools_own_model():
    found = problems(
        plan(
            step("s1", "move", {"task_id": "x", "new_day": 1, "new_slot_start": 1}),
            step("s2", "place", {"task_id": 4, "day": 2}),
            step("s3", "get_overview", {"verbose": True}),
        )
    )
    assert (
        "steps[0].args.task_id: Input should be a valid integer, unable to parse string as an integer"
        in found
    )
    assert "steps[1].args.slot_start: required field is missing" in found
    assert "steps[2].args.verbose: unknown field (not allowed here)" in found


def test_unknown_tool_lists_the_known_ones():
    (found,) = problems(plan(step("s1", "teleport", {"task_id": 1})))
    assert found.startswith("steps[0]: unknown tool 'teleport'; known tools: ")
    assert "move" in found and "get_overview" in found


def test_nested_refs_and_list_items_are_accepted(s0):
    data = plan(
        step("s1", "query_available_slots", {"span": 2}),
        step(
            "s2",
            "batch_move",
            {"moves": [{"task_id": 3, "new_day": {"ref": "s1.slots[0].day"}, "new_slot_start": 1}]},
            ["s1"],
        ),
    )
    assert parse_plan(data, "p", s0).steps[1].call_args()["moves"][0]["new_day"] == {
        "ref": "s1.slots[0].day"
    }


def test_bad_ref_syntax_is_rejected():
    (found,) = problems(
        plan(step("s1", "get_task_info", {"task_id": {"ref": "no path"}})),
    )
    assert found.startswith("steps[0].args.task_id.ref: String should match pattern")


# -- structure --------------------------------------------------------------------------------


def test_duplicate_ids_are_rejected():
    found = problems(plan(step("s1", "get_overview"), step("s1", "get_overview")))
    assert found == ["steps[1].id: duplicate step id 's1' (also steps[0])"]


def test_unknown_and_self_dependencies_are_rejected():
    found = problems(
        plan(step("s1", "get_overview", deps=["s9"]), step("s2", "get_overview", deps=["s2"]))
    )
    assert found == [
        "steps[0].depends_on: unknown step 's9'",
        "steps[1].depends_on: a step cannot depend on itself",
    ]


def test_cycles_are_rejected_with_the_cycle():
    found = problems(
        plan(
            step("s1", "get_overview", deps=["s3"]),
            step("s2", "get_overview", deps=["s1"]),
            step("s3", "get_overview", deps=["s2"]),
        )
    )
    assert found == ["steps: dependency cycle: s1 -> s3 -> s2 -> s1"]


def test_acyclic_diamond_passes():
    data = plan(
        step("s1", "get_overview"),
        step("s2", "list_tasks", deps=["s1"]),
        step("s3", "list_tasks", {"status": "pending"}, deps=["s1"]),
        step("s4", "get_overview", deps=["s2", "s3"]),
    )
    assert len(parse_plan(data, "p").steps) == 4


def test_refs_must_point_at_ancestors():
    data = plan(
        step("s1", "query_available_slots", {"span": 2}),
        step("s2", "get_task_info", {"task_id": {"ref": "s1.slots[0].day"}}),
        step("s3", "get_task_info", {"task_id": {"ref": "s9.x"}}),
    )
    found = problems(data)
    assert found == [
        "steps[1].args.task_id: ref 's1.slots[0].day' names step s1, which is not among this "
        "step's dependencies; add 's1' to depends_on",
        "steps[2].args.task_id: ref 's9.x' names unknown step",
    ]
    # a transitive dependency is enough
    data = plan(
        step("s1", "query_available_slots", {"span": 2}),
        step("s2", "get_overview", deps=["s1"]),
        step("s3", "get_task_info", {"task_id": {"ref": "s1.slots[0].day"}}, deps=["s2"]),
    )
    assert parse_plan(data, "p").steps[2].depends_on == ["s2"]


def test_max_steps():
    many = [step(f"s{i}", "get_overview") for i in range(1, 42)]
    assert problems(plan(*many)) == ["steps: at most 40 steps (got 41)"]
    assert len(parse_plan(plan(*many[:40]), "p").steps) == 40
    assert problems(plan(*many[:3]), max_steps=2) == ["steps: at most 2 steps (got 3)"]


def test_done_needs_a_summary_and_no_steps():
    assert parse_plan(plan(done=True, summary="nothing to do"), "p").done
    assert problems(plan(done=True)) == ["summary: required when done is true"]
    assert problems(plan(step("s1", "get_overview"), done=True, summary="x")) == [
        "steps: must be empty when done is true"
    ]
    assert problems(plan()) == [
        "steps: a plan needs at least one step (or done=true with a summary)"
    ]


def test_plan_file_kind_and_version():
    assert problems({"kind": "smartflow-export", "goal": "x", "steps": []}) == [
        "kind: expected 'schedule-plan' (got 'smartflow-export')"
    ]
    assert problems(plan(step("s1", "get_overview"), version=2)) == ["version: expected 1 (got 2)"]
    assert problems(["not", "a", "mapping"]) == [": a plan must be a mapping of fields"]


# -- state checks -------------------------------------------------------------------------------


def test_task_ids_must_exist(s0):
    found = problems(plan(step("s1", "get_task_info", {"task_id": 99})), s0)
    assert found == ["steps[0].args.task_id: task 99 does not exist"]


def test_days_and_sections_in_range(s0):
    found = problems(
        plan(
            step("s1", "move", {"task_id": 6, "new_day": 8, "new_slot_start": 13}),
            step("s2", "query_range", {"day": 0}),
        ),
        s0,
    )
    assert found == [
        "steps[0].args.new_day: day 8 is outside the planning window (1..7)",
        "steps[0].args.new_slot_start: section 13 is outside 1..12",
        "steps[1].args.day: day 0 is outside the planning window (1..7)",
    ]
    data = plan(step("s1", "move", {"task_id": 6, "new_day": 7, "new_slot_start": 11}))
    assert parse_plan(data, "p", s0)


def test_locked_tasks_never_move(s0):
    found = problems(plan(step("s1", "swap", {"task_a": 1, "task_b": 6})), s0)
    assert found == ["steps[0].args.task_a: [1]高等数学 is a locked course; it never moves"]


def test_status_rules_of_write_tools(s0):
    found = problems(
        plan(
            step("s1", "move", {"task_id": 4, "new_day": 2, "new_slot_start": 7}),
            step("s2", "place", {"task_id": 3, "day": 2, "slot_start": 7}),
        ),
        s0,
    )
    assert found == [
        "steps[0].args.task_id: [4]线代2 is pending; place it first (move only moves suggested tasks)",
        "steps[1].args.task_id: [3]线代1 is already placed (suggested); place only places pending tasks",
    ]


def test_status_rules_consider_the_rest_of_the_plan(s0):
    """A pending task placed by the plan may then move; a placed task unplaced may be placed."""
    data = plan(
        step("s1", "place", {"task_id": 4, "day": 2, "slot_start": 7}),
        step("s2", "move", {"task_id": 4, "new_day": 2, "new_slot_start": 9}, ["s1"]),
        step("s3", "unplace", {"task_id": 5}),
        step("s4", "place", {"task_id": 5, "day": 5, "slot_start": 1}, ["s3"]),
    )
    assert len(parse_plan(data, "p", s0).steps) == 4


def test_existing_task_is_a_fact(s0):
    existing = s0.model_copy(deep=True)
    task = existing.task(3)
    task.status = "existing"
    task.duration = 0
    found = problems(
        plan(step("s1", "move", {"task_id": 3, "new_day": 2, "new_slot_start": 7})), existing
    )
    assert found == [
        "steps[0].args.task_id: [3]线代1 is an existing task (a fact of the timetable); move only "
        "moves suggested tasks"
    ]


def test_state_checks_skip_refs(s0):
    data = plan(
        step("s1", "query_available_slots", {"span": 2}),
        step(
            "s2",
            "move",
            {"task_id": 6, "new_day": {"ref": "s1.slots[0].day"}, "new_slot_start": 1},
            ["s1"],
        ),
    )
    assert parse_plan(data, "p", s0)


# -- refs ---------------------------------------------------------------------------------------


def test_resolve_ref_paths():
    results = {"s1": {"slots": [{"day": 3, "slot_start": 5}, {"day": 4, "slot_start": 1}]}}
    assert resolve_ref(Ref(ref="s1.slots[1].day"), results) == 4
    assert resolve_ref(Ref(ref="s1.slots[*].slot_start"), results) == [5, 1]
    with pytest.raises(RefError, match="index 2 is out of range"):
        resolve_ref(Ref(ref="s1.slots[2].day"), results)
    with pytest.raises(RefError, match="has no field 'week'"):
        resolve_ref(Ref(ref="s1.slots[0].week"), results)
    with pytest.raises(RefError, match="step s2 has no result"):
        resolve_ref(Ref(ref="s2.slots[0].day"), results)
    with pytest.raises(RefError, match="is not a list"):
        resolve_ref(Ref(ref="s1.slots[0][0]"), results)


def test_substitute_and_iter_refs():
    args = {"a": {"ref": "s1.x"}, "b": [1, {"ref": "s2.y[0]"}], "c": {"d": 2}}
    assert [p for p, _ in iter_refs(args)] == ["a", "b[1]"]
    values = {"s1.x": 7, "s2.y[0]": 8}
    assert substitute_refs(args, lambda r: values[r.ref]) == {"a": 7, "b": [1, 8], "c": {"d": 2}}


def test_natural_order_of_ids():
    assert sorted(["s10", "s2", "s1", "a3"], key=natural_key) == ["a3", "s1", "s2", "s10"]
