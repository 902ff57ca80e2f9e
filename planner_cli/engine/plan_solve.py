"""Plan-and-Solve (planning.md, seed 004): the model writes a whole plan, the executor runs it.

Rounds: context (rules, tool catalogue, instruction, overview, class constraints) → a Plan
validated against the current state (instructor re-asks with the errors, at most
`max_retries`) → execution → compressed observations → the next plan or done, at most
`max_rounds`. A plan file is validated against the state and run as round 1 without a model.
Step ids of round n > 1 are labelled `r<n>.<id>` in the preview's `by`, so they stay unique.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from planner_cli.engine.executor import StepRecord
from planner_cli.engine.run import EngineRun, RunResult, pending_left
from planner_cli.engine.summary import observations
from planner_cli.llm import prompts
from planner_cli.llm.backend import LLMBackend, LLMError, Usage
from planner_cli.model.plan import Plan, PlanInvalid, parse_plan, plan_model, plan_problems


def rejection_lines(error: Exception, model: type[Plan] | None = None) -> list[str]:
    """A rejected answer's problems as `path: message` lines (for events and notes)."""
    if isinstance(error, ValidationError) and model is not None:
        return [
            f"{p.path}: {p.message}" if p.path else p.message for p in plan_problems(error, model)
        ]
    if isinstance(error, PlanInvalid):
        return [f"{p.path}: {p.message}" for p in error.problems]
    return [" ".join(str(error).split())[:500]]


def round_label(round_no: int) -> Any:
    return (lambda sid: sid) if round_no == 1 else (lambda sid: f"r{round_no}.{sid}")


class PlanSolveRun(EngineRun):
    def record_round(self, round_no: int, plan: Plan, usage: Usage) -> list[StepRecord]:
        records = self.execute(plan, round_label(round_no)).steps if plan.steps else []
        self.rounds.append(
            {
                "round": round_no,
                "plan": plan.dump(),
                "steps": [r.to_json() for r in records],
                **usage.to_json(),
            }
        )
        return records

    def run_plan_file(self, data: Any, name: str) -> RunResult:
        """--plan-file: validated against the state after the rough layout, run as round 1."""
        self.lay_out()
        plan = parse_plan(
            data, name, self.state, max_steps=self.settings.max_steps, specs=self.tools.specs
        )
        self.emit("plan.round", round=1, source="plan-file")
        self.emit("plan.validated", round=1, steps=len(plan.steps), done=plan.done)
        self.declared_done = True
        self.model_summary = plan.summary
        self.record_round(1, plan, Usage())
        outcome = "completed" if not self.failed and pending_left(self.state) == 0 else "partial"
        return self.finish(outcome)

    def run_llm(self, backend: LLMBackend) -> RunResult:
        self.lay_out()
        return self.finish(self._rounds(backend))

    def _rounds(self, backend: LLMBackend) -> str:
        settings = self.settings
        model = plan_model(self.tools.specs)
        messages = self.opening_messages("plan-solve")
        for round_no in range(1, settings.max_rounds + 1):

            def rejected(error: Exception, round_no: int = round_no) -> None:
                self.emit("plan.rejected", round=round_no, errors=rejection_lines(error, model))

            completion = self.ask(
                backend,
                messages,
                model,
                round_no=round_no,
                round_event="plan.round",
                context={"state": self.state, "max_steps": settings.max_steps},
                reasks=settings.max_retries,
                on_rejected=rejected,
                failure_note=_failure_note,
            )
            if isinstance(completion, str):
                return completion
            plan = completion.value
            self.emit("plan.validated", round=round_no, steps=len(plan.steps), done=plan.done)
            messages.append(
                {"role": "assistant", "content": json.dumps(plan.dump(), ensure_ascii=False)}
            )
            if plan.done:
                self.declared_done = True
                self.model_summary = plan.summary
                self.record_round(round_no, plan, completion.usage)
                return self.llm_outcome()
            records = self.record_round(round_no, plan, completion.usage)
            lines = observations(records, settings.observation_chars)
            messages.append(
                {"role": "user", "content": prompts.round_message(round_no, lines, self.overview())}
            )
        self.note(f"stopped after {settings.max_rounds} rounds without the model declaring done")
        return "partial"


def _failure_note(round_no: int, exc: LLMError) -> str:
    note = f"round {round_no}: {exc}"
    errors = getattr(exc, "errors", None)
    if errors:
        note += " (last problems: " + " ".join(str(errors[-1]).split())[:300] + ")"
    return note
