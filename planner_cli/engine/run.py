"""What both engines share: settings, the result, the rough layout first, budgets and outcomes.

Outcome rules (formats.md §3, where the spec leaves room): `completed` when the model declared
the work done, no task in scope is pending and the last executed round (or the last ReAct tool
call) did not fail; `fallback` when the LLM was unusable (unreachable, time-out, never a valid
answer) before any of its plans ran — the rough layout is all the preview holds; `partial`
otherwise, including an LLM that fails after some rounds ran (their changes are kept) and a
budget (`--max-llm-calls`, `--max-tokens`) that stops the run, even before any plan ran or by
leaving an invalid answer no re-ask: the user's limit, not an unusable LLM. A plan file run is
`completed` when every step succeeded and nothing is pending.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from planner_cli.engine.events import Events
from planner_cli.engine.executor import Execution, StepRecord, ToolRunner, execute
from planner_cli.errors import LLMError
from planner_cli.llm.backend import Completion, LLMBackend, LLMInvalid, Usage
from planner_cli.model.plan import Plan
from planner_cli.model.state import ScheduleState
from planner_cli.tools.common import ToolContext, ToolResult
from planner_cli.tools.messages import Lang

EXIT_CODES = {"completed": 0, "partial": 3, "fallback": 4}


@dataclass
class RunSettings:
    mode: str = "plan-solve"
    max_rounds: int = 5
    lang: Lang = "zh"
    rough: bool = True
    max_steps: int = 40
    max_retries: int = 2
    max_llm_calls: int | None = None
    max_tokens: int | None = None
    observation_chars: int = 600  # per step of a plan round
    react_observation_chars: int = 2000  # per ReAct tool result
    overview_chars: int = 16000
    solver: dict[str, Any] = field(default_factory=dict)
    # the rough layout already ran outside the engine (batch with --now/--solver): its record;
    # the engine then does not lay out again (it knows no `now` and would fill the past)
    prelaid: dict[str, Any] | None = None
    now_g: int | None = None  # batch --now: no step may touch what starts before it

    def tool_context(self) -> ToolContext:
        return ToolContext(lang=self.lang, solver=self.solver)


@dataclass
class RunResult:
    """Everything the preview needs, plus the conversation for a session to continue."""

    state: ScheduleState
    by: dict[int, str]
    run: dict[str, Any]
    outcome: str
    summary: str
    history: list[dict[str, Any]]
    exit_code: int


class Tools:
    """The tool door of a run: the registry's tools (or test doubles) with one ToolContext."""

    def __init__(
        self,
        ctx: ToolContext,
        specs: Mapping[str, Any] | None = None,
        runner: ToolRunner | None = None,
        now_g: int | None = None,
    ) -> None:
        from planner_cli.engine.guard import protect_facts
        from planner_cli.tools.registry import registry, run_tool

        self.ctx = ctx
        self.specs = dict(specs) if specs is not None else registry()
        # facts never change; with a `now`, neither does the past
        self.runner: ToolRunner = protect_facts(runner or run_tool, now_g)

    def run(
        self, name: str, state: ScheduleState, args: dict[str, Any] | None = None
    ) -> ToolResult:
        return self.runner(name, state, dict(args or {}), self.ctx)

    def has(self, name: str) -> bool:
        return name in self.specs

    def kinds(self) -> dict[str, str]:
        return {name: spec.kind for name, spec in self.specs.items()}


def rough_layout(
    state: ScheduleState, tools: Tools, emit: Callable[..., None], notes: list[str]
) -> tuple[ScheduleState, dict[int, str], dict[str, Any]]:
    """Run `rough_layout` on the pending tasks in scope (seed flow: rough layout before the LLM).

    Returns the new state, `by` for the tasks it placed, and its record for the preview.
    """
    pending = sum(1 for t in state.tasks if t.is_pending)
    if pending == 0:
        return state, {}, {"status": "skipped", "result": "no pending tasks"}
    emit("rough_layout.start", pending=pending)
    if not tools.has("rough_layout"):
        note = "rough_layout is not available (no solver tool registered); skipped"
        notes.append(note)
        emit("rough_layout.done", status="skipped", text=note)
        return state, {}, {"status": "skipped", "result": note}
    try:
        result = tools.run("rough_layout", state, {})
    except Exception as exc:  # the solver is an adapter: its bug must not lose the run
        note = f"rough_layout raised {type(exc).__name__}: {exc}; skipped"
        notes.append(note)
        emit("rough_layout.done", status="failed", text=note)
        return state, {}, {"status": "failed", "result": note}
    status = "success" if result.ok else "failed"
    emit("rough_layout.done", status=status, placed=len(result.changed), text=result.text)
    record = {"status": status, "result": result.text, "changed": len(result.changed)}
    if not result.ok:
        return state, {}, record
    return result.state, {i: "rough_layout" for i in result.changed}, record


def overview(state: ScheduleState, tools: Tools, budget: int) -> str:
    """The get_overview text; past `budget` characters it is cut at a line boundary (its lines
    stay intact, so the model can still read them) with a note saying how to see the rest."""
    text = tools.run("get_overview", state, {}).text
    if len(text) <= budget:
        return text
    kept: list[str] = []
    used = 0
    for line in text.splitlines():
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    cut = len(text.splitlines()) - len(kept)
    return "\n".join(kept) + f"\n… ({cut} more lines cut; use list_tasks or query_range for them)"


class Budget:
    """--max-llm-calls and --max-tokens: checked before every LLM call."""

    def __init__(self, max_calls: int | None, max_tokens: int | None, usage: Usage) -> None:
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.usage = usage

    def exhausted(self) -> str | None:
        if self.max_calls is not None and self.usage.calls >= self.max_calls:
            return f"budget: --max-llm-calls {self.max_calls} reached"
        if self.max_tokens is not None and self.usage.tokens >= self.max_tokens:
            return f"budget: --max-tokens {self.max_tokens} reached ({self.usage.tokens} used)"
        return None

    def retries(self, wanted: int) -> int:
        """Re-asks allowed for the next call without passing the call budget."""
        if self.max_calls is None:
            return wanted
        return max(0, min(wanted, self.max_calls - self.usage.calls - 1))


def pending_left(state: ScheduleState) -> int:
    return sum(1 for t in state.tasks if t.is_pending)


class EngineRun:
    """One run's bookkeeping, shared by both engines: the state as it evolves, which step last
    changed each task, the rounds for the preview, usage, notes, and the final result."""

    def __init__(
        self,
        state: ScheduleState,
        instruction: str | None,
        *,
        settings: RunSettings,
        events: Events,
        tools: Tools | None = None,
        history: list[dict[str, Any]] | None = None,
        original: ScheduleState | None = None,
    ) -> None:
        # what the summary compares with: the input, before a layout made outside the engine
        self.original = original if original is not None else state
        self.state = state
        self.instruction = instruction
        self.settings = settings
        self.events = events
        self.emit = events.emit
        self.tools = tools or Tools(settings.tool_context(), now_g=settings.now_g)
        self.history = list(history or [])
        self.notes: list[str] = []
        self.usage = Usage()
        self.budget = Budget(settings.max_llm_calls, settings.max_tokens, self.usage)
        self.by: dict[int, str] = {}
        self.rounds: list[dict[str, Any]] = []
        self.failed: list[StepRecord] = []  # every failed step, all rounds
        self.last_failed = False  # did the last executed round (or tool call) fail?
        self.executed = False
        self.declared_done = False
        self.model_summary: str | None = None
        self.rough: dict[str, Any] = {"status": "skipped", "result": "--no-rough"}

    def note(self, text: str) -> None:
        self.notes.append(text)
        self.emit("run.note", text=text)

    def lay_out(self) -> None:
        if self.settings.prelaid is not None:
            self.rough = dict(self.settings.prelaid)
        elif self.settings.rough:
            self.state, placed, self.rough = rough_layout(
                self.state, self.tools, self.emit, self.notes
            )
            self.by.update(placed)

    def execute(self, plan: Plan, label: Callable[[str], str]) -> Execution:
        result = execute(
            plan,
            self.state,
            self.tools.ctx,
            runner=self.tools.runner,
            kinds=self.tools.kinds(),
            emit=self.emit,
            label=label,
        )
        self.state = result.state
        self.by.update(result.by)
        self.failed.extend(result.failed)
        self.last_failed = bool(result.failed)
        self.executed = True
        return result

    def overview(self) -> str:
        return overview(self.state, self.tools, self.settings.overview_chars)

    def opening_messages(self, mode: str) -> list[dict[str, Any]]:
        """System prompt (rules, format, catalogue) and the context message of a model run."""
        from planner_cli.llm import prompts

        settings = self.settings
        system = prompts.system_prompt(
            self.tools.specs,
            mode=mode,
            lang=settings.lang,
            max_steps=settings.max_steps if mode == "plan-solve" else 1,
            max_rounds=settings.max_rounds,
        )
        context = prompts.context_message(
            self.instruction,
            self.overview(),
            prompts.class_constraints(self.state),
            self.rough["result"] if settings.rough else None,
            self.history,
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": context}]

    def llm_outcome(self) -> str:
        """After the model's loop ended normally: completed or partial."""
        if self.declared_done and not self.last_failed and pending_left(self.state) == 0:
            return "completed"
        return "partial"

    def unusable(self) -> str:
        """The outcome when the LLM cannot go on: fallback if none of its plans ran."""
        return "partial" if self.executed else "fallback"

    def ask(
        self,
        backend: LLMBackend,
        messages: list[dict[str, Any]],
        model: Any,
        *,
        round_no: int,
        round_event: str,
        context: dict[str, Any],
        reasks: int,
        on_rejected: Callable[[Exception], None],
        failure_note: Callable[[int, LLMError], str],
    ) -> Completion[Any] | str:
        """One LLM call of a round within the budget: the completion, or the run's outcome when
        the run must stop. A budget spent before the call, or one that left an invalid answer
        no re-ask, stops it cleanly (`partial`, with the budget note); any other LLM error is
        an unusable LLM."""
        spent = self.budget.exhausted()
        if spent:
            self.note(spent)
            return "partial"
        self.emit(round_event, round=round_no)
        granted = self.budget.retries(reasks)
        try:
            completion = backend.complete(
                messages,
                model,
                context=context,
                max_retries=granted,
                emit=self.emit,
                on_rejected=on_rejected,
            )
        except LLMError as exc:
            self.usage.add(getattr(exc, "usage", None) or Usage())
            self.emit("llm.error", round=round_no, text=str(exc))
            self.notes.append(failure_note(round_no, exc))
            spent = self.budget.exhausted() if isinstance(exc, LLMInvalid) else None
            if spent and granted < reasks:
                self.note(spent)
                return "partial"
            return self.unusable()
        self.usage.add(completion.usage)
        return completion

    def finish(self, outcome: str) -> RunResult:
        from planner_cli.engine.summary import final_summary, template_summary

        lang = self.settings.lang
        if outcome == "no_llm" and self.instruction:
            self.notes.append("no LLM configured: the instruction was not carried out")
        template = template_summary(
            lang, outcome, self.original, self.state, self.by, self.failed, self.notes
        )
        summary = final_summary(self.model_summary, template)
        run: dict[str, Any] = {"rounds": self.rounds, "outcome": outcome, **self.usage.to_json()}
        run["rough_layout"] = self.rough
        if self.notes:
            run["notes"] = list(self.notes)
        if outcome == "no_llm":
            code = 3 if pending_left(self.state) or self.instruction else 0
        else:
            code = EXIT_CODES[outcome]
        turn = {"instruction": self.instruction or "", "summary": summary, "outcome": outcome}
        return RunResult(
            state=self.state,
            by=dict(self.by),
            run=run,
            outcome=outcome,
            summary=summary,
            history=[*self.history, turn],
            exit_code=code,
        )
