"""ReAct refinement (`--mode react`, seed 001): one validated decision per round.

A decision is `{thought, action: tool|finish, tool, args, summary}`; its tool call is checked
exactly like a one-step plan (the tool's argument model, then the state checks), so an invalid
call is re-asked with the same errors. The tool result is the next observation. Three invalid
answers in a row (the first try and instructor's two re-asks) end the run; so does `finish` or
the round limit (default 20). Rounds are recorded as `{round, decision, steps: [one step]}`
with step ids `r<round>`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    create_model,
    model_validator,
)

from planner_cli.engine.plan_solve import rejection_lines
from planner_cli.engine.run import EngineRun, RunResult
from planner_cli.llm import prompts
from planner_cli.llm.backend import LLMBackend
from planner_cli.model.plan import CompactJsonSchema, Plan, plan_model, plan_problems

INVALID_IN_A_ROW = 3


class Decision(BaseModel):
    """One ReAct decision: call one tool (action=tool) or end the run (action=finish)."""

    model_config = ConfigDict(extra="forbid")

    plan_class: ClassVar[type[Plan] | None] = None

    thought: str = Field(description="Your reasoning for this decision, in one or two sentences.")
    action: Literal["tool", "finish"] = Field(
        description='"tool" to call one tool now, "finish" when the instruction is fulfilled or cannot be.'
    )
    tool: str | None = Field(
        default=None, description="With action=tool: the tool to call, a name from the catalogue."
    )
    args: dict[str, Any] = Field(
        default_factory=dict,
        description="With action=tool: the tool's arguments, as in the catalogue.",
    )
    summary: str | None = Field(
        default=None,
        description=(
            "With action=finish: what changed and what could not be done and why, for the user, "
            "in the user's language."
        ),
    )

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        kwargs.setdefault("schema_generator", CompactJsonSchema)
        return super().model_json_schema(*args, **kwargs)

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> Decision:
        if self.action == "finish":
            problems = []
            if not (self.summary or "").strip():
                problems.append("summary: required with action=finish")
            if self.tool is not None:
                problems.append("tool: must be empty with action=finish")
            if problems:
                raise ValueError("\n".join(problems))
            return self
        if not self.tool:
            raise ValueError("tool: required with action=tool")
        model = type(self).plan_class
        if model is None:
            return self
        context = info.context if isinstance(info.context, dict) else {}
        try:
            self.step_plan(context.get("state"), model)
        except ValidationError as exc:
            lines = []
            for problem in plan_problems(exc, model):
                path = problem.path.removeprefix("steps[0].").removeprefix("steps[0]")
                lines.append(f"{path or 'tool'}: {problem.message}")
            raise ValueError("\n".join(lines)) from None
        return self

    def step_plan(self, state: Any, model: type[Plan] | None = None, step_id: str = "r") -> Plan:
        """The tool call as a one-step plan, validated against `state`."""
        model = model or type(self).plan_class
        assert model is not None
        step = {"id": step_id, "tool": self.tool, "args": self.args}
        data = {"goal": self.thought or "react", "steps": [step]}
        return model.model_validate(data, context={"state": state})

    def dump(self) -> dict[str, Any]:
        out: dict[str, Any] = {"thought": self.thought, "action": self.action}
        if self.action == "tool":
            out["tool"] = self.tool
            out["args"] = self.args
        else:
            out["summary"] = self.summary
        return out


def decision_model(specs: Mapping[str, Any]) -> type[Decision]:
    model = plan_model(specs)
    return _decision_model(model, tuple(sorted(specs)))


@cache
def _decision_model(plan_class: type[Plan], names: tuple[str, ...]) -> type[Decision]:
    tool_type: Any = Literal[names] if names else str  # type: ignore[valid-type]
    decision = create_model(  # type: ignore[call-overload]
        "Decision",
        __base__=Decision,
        __module__=__name__,
        __doc__=Decision.__doc__,
        tool=(tool_type | None, Decision.model_fields["tool"]),
    )
    decision.plan_class = plan_class
    return decision  # type: ignore[no-any-return]


class ReactRun(EngineRun):
    def run_llm(self, backend: LLMBackend) -> RunResult:
        self.lay_out()
        return self.finish(self._rounds(backend))

    def _rounds(self, backend: LLMBackend) -> str:
        settings = self.settings
        model = decision_model(self.tools.specs)
        messages = self.opening_messages("react")
        for round_no in range(1, settings.max_rounds + 1):

            def rejected(error: Exception, round_no: int = round_no) -> None:
                self.emit("plan.rejected", round=round_no, errors=rejection_lines(error))

            completion = self.ask(
                backend,
                messages,
                model,
                round_no=round_no,
                round_event="react.round",
                context={"state": self.state},
                reasks=INVALID_IN_A_ROW - 1,
                on_rejected=rejected,
                failure_note=lambda n, exc: f"round {n}: {exc}",
            )
            if isinstance(completion, str):
                return completion
            decision = completion.value
            messages.append(
                {"role": "assistant", "content": json.dumps(decision.dump(), ensure_ascii=False)}
            )
            entry: dict[str, Any] = {"round": round_no, "decision": decision.dump(), "steps": []}
            if decision.action == "finish":
                self.declared_done = True
                self.model_summary = decision.summary
                self.rounds.append({**entry, **completion.usage.to_json()})
                self.emit("react.done", round=round_no, text=decision.summary or "")
                return self.llm_outcome()
            plan = decision.step_plan(self.state, model.plan_class, step_id=f"r{round_no}")
            (record,) = self.execute(plan, lambda sid: sid).steps
            self.rounds.append({**entry, "steps": [record.to_json()], **completion.usage.to_json()})
            self.emit(
                "react.tool_call",
                round=round_no,
                tool=record.tool,
                args=record.args,
                status=record.status,
                text=record.result,
            )
            messages.append(
                {
                    "role": "user",
                    "content": prompts.observation_message(
                        record.tool,
                        record.status,
                        _cut(record.result, settings.react_observation_chars),
                    ),
                }
            )
        self.note(f"stopped after {settings.max_rounds} rounds without the model finishing")
        return "partial"


def _cut(text: str, budget: int) -> str:
    return text if len(text) <= budget else text[: max(0, budget - 1)] + "…"
