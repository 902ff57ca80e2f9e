"""ReAct mode on S0 with a scripted model: one validated decision per round."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner_cli.engine.api import run_engine
from planner_cli.engine.events import Events
from planner_cli.engine.react import decision_model
from planner_cli.engine.run import RunSettings
from tests.engine.conftest import make_tools
from tests.fakes.fake_llm import UNAVAILABLE, ScriptedLLM

LOOK = {
    "thought": "先看看周五的空位",
    "action": "tool",
    "tool": "query_available_slots",
    "args": {"day": 5, "after_section": 8},
}
MOVE = {
    "thought": "周五9-10节空着",
    "action": "tool",
    "tool": "move",
    "args": {"task_id": 6, "new_day": 5, "new_slot_start": 9},
}
FINISH = {"thought": "完成", "action": "finish", "summary": "英语1已挪到周五晚上。"}
LOCKED = {
    "thought": "x",
    "action": "tool",
    "tool": "move",
    "args": {"task_id": 1, "new_day": 5, "new_slot_start": 9},
}


def go(state, *answers, **kw):
    settings = RunSettings(mode="react", max_rounds=kw.pop("max_rounds", 20), **kw)
    events = Events()
    llm = ScriptedLLM(*answers)
    result = run_engine(
        state,
        "把英语挪到周五晚上",
        settings=settings,
        events=events,
        backend=llm,
        tools=make_tools(settings),
    )
    return result, events, llm


def test_tool_calls_then_finish(s0):
    result, events, llm = go(s0, LOOK, MOVE, FINISH)
    assert (result.outcome, result.exit_code) == ("completed", 0)
    assert [s.key() for s in result.state.task(6).slots] == [(5, 9, 10)]
    rounds = result.run["rounds"]
    assert [r["round"] for r in rounds] == [1, 2, 3]
    assert rounds[1]["decision"] == {k: MOVE[k] for k in ("thought", "action", "tool", "args")}
    assert rounds[1]["steps"][0]["id"] == "r2" and rounds[1]["steps"][0]["status"] == "success"
    assert rounds[2]["steps"] == [] and rounds[2]["decision"]["summary"] == FINISH["summary"]
    assert result.by[6] == "r2"
    assert events.stages().count("react.tool_call") == 2 and "react.done" in events.stages()
    # each tool result is the next observation
    assert "Result of query_available_slots (success)" in llm.calls[1][-1]["content"]
    assert '"slot_start": 9' in llm.calls[1][-1]["content"]
    assert '"action": "finish"' in llm.calls[0][0]["content"]  # the format is explained


def test_invalid_decision_is_reasked(s0):
    result, events, _ = go(s0, LOCKED, MOVE, FINISH)
    assert result.outcome == "completed"
    (rejected,) = [e for e in events.history if e["stage"] == "plan.rejected"]
    assert "args.task_id: [1]高等数学 is a locked course; it never moves" in rejected["errors"][0]


def test_three_invalid_answers_in_a_row_end_the_run(s0):
    result, _, llm = go(s0, LOCKED, LOCKED, LOCKED, FINISH)
    assert (result.outcome, result.exit_code) == ("fallback", 4)
    assert llm.answers == [FINISH]
    result, _, _ = go(s0, MOVE, LOCKED, LOCKED, LOCKED)
    assert result.outcome == "partial"  # the first move is kept
    assert [s.key() for s in result.state.task(6).slots] == [(5, 9, 10)]


def test_failed_tool_call_is_an_observation(s0):
    conflict = {**MOVE, "args": {"task_id": 6, "new_day": 3, "new_slot_start": 1}}
    result, _, llm = go(s0, conflict, MOVE, FINISH)
    assert result.outcome == "completed"
    assert result.run["rounds"][0]["steps"][0]["status"] == "failed"
    assert "Result of move (failed)" in llm.calls[1][-1]["content"]


def test_round_limit(s0):
    result, _, llm = go(s0, LOOK, LOOK, LOOK, max_rounds=2)
    assert result.outcome == "partial" and len(result.run["rounds"]) == 2
    assert result.run["notes"] == ["stopped after 2 rounds without the model finishing"]


def test_unreachable(s0):
    result, _, _ = go(s0, UNAVAILABLE)
    assert result.outcome == "fallback"


def test_decision_rules(s0):
    model = decision_model(make_tools(RunSettings()).specs)
    ctx = {"state": s0}
    with pytest.raises(ValidationError, match="summary: required with action=finish"):
        model.model_validate({"thought": "x", "action": "finish"}, context=ctx)
    with pytest.raises(ValidationError, match="tool: required with action=tool"):
        model.model_validate({"thought": "x", "action": "tool"}, context=ctx)
    with pytest.raises(ValidationError, match="names unknown step"):
        model.model_validate(
            {
                "thought": "x",
                "action": "tool",
                "tool": "get_task_info",
                "args": {"task_id": {"ref": "s1.x"}},
            },
            context=ctx,
        )
    with pytest.raises(ValidationError, match="args.task_id: required field is missing"):
        model.model_validate(
            {"thought": "x", "action": "tool", "tool": "move", "args": {}}, context=ctx
        )
    with pytest.raises(ValidationError, match="Input should be"):
        model.model_validate({"thought": "x", "action": "tool", "tool": "fly"}, context=ctx)
    ok = model.model_validate(MOVE, context=ctx)
    assert ok.dump() == {k: MOVE[k] for k in ("thought", "action", "tool", "args")}


def test_call_budget_stops_react_cleanly(s0):
    # two calls allowed: one tool call, then an invalid answer the budget leaves no re-ask
    result, _, llm = go(s0, MOVE, LOCKED, FINISH, max_llm_calls=2)
    assert (result.outcome, result.exit_code) == ("partial", 3)
    assert result.run["notes"][-1] == "budget: --max-llm-calls 2 reached"
    assert [s.key() for s in result.state.task(6).slots] == [(5, 9, 10)]
    assert len(llm.answers) == 1


def test_call_budget_cutting_the_first_answer_is_partial_not_fallback(s0):
    result, _, _ = go(s0, LOCKED, MOVE, FINISH, max_llm_calls=1)
    assert (result.outcome, result.exit_code) == ("partial", 3)
    assert result.run["notes"][-1] == "budget: --max-llm-calls 1 reached"
