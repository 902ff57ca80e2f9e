"""The engine's entry points: `run_engine` picks plan file, no LLM, Plan-and-Solve or ReAct;
`plan_preview` is a whole `planner plan` run (options → backend → run → preview document), for
the CLI and for batch/eval items alike.

`history` is the conversation so far (a list of turns `{instruction, summary, outcome}`); the
result's `history` adds this run's turn, which is the seam a session store saves and hands back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from planner_cli.engine.events import Events
from planner_cli.engine.plan_solve import PlanSolveRun
from planner_cli.engine.react import ReactRun
from planner_cli.engine.run import EngineRun, RunResult, RunSettings, Tools
from planner_cli.errors import UsageError
from planner_cli.llm.backend import LLMBackend
from planner_cli.model.state import ScheduleState


def run_engine(
    state: ScheduleState,
    instruction: str | None,
    *,
    settings: RunSettings,
    events: Events,
    backend: LLMBackend | None = None,
    plan_data: Any = None,
    plan_name: str = "plan",
    history: list[dict[str, Any]] | None = None,
    tools: Tools | None = None,
    original: ScheduleState | None = None,
) -> RunResult:
    """Run once. Raises InputError for an invalid plan file; LLM failures become outcomes.
    `original`: the state before a layout made outside the engine (for the summary)."""
    kwargs: dict[str, Any] = {
        "settings": settings,
        "events": events,
        "tools": tools,
        "history": history,
        "original": original,
    }
    if plan_data is not None:
        return PlanSolveRun(state, instruction, **kwargs).run_plan_file(plan_data, plan_name)
    if backend is None:
        run = EngineRun(state, instruction, **kwargs)
        run.lay_out()
        return run.finish("no_llm")
    if settings.mode == "react":
        return ReactRun(state, instruction, **kwargs).run_llm(backend)
    return PlanSolveRun(state, instruction, **kwargs).run_llm(backend)


@dataclass
class PlanOptions:
    """The options of `planner plan` (and of batch/eval items that plan)."""

    instruction: str | None = None
    mode: str = "plan-solve"
    llm: str | None = None  # openai | openai:PROFILE | replay:FILE | none; None: llm.backend
    plan_file: str | None = None
    record: str | None = None
    max_rounds: int | None = None
    rough: bool = True
    lang: str = "zh"
    max_llm_calls: int | None = None
    max_tokens: int | None = None
    history: list[dict[str, Any]] | None = None
    prelaid: dict[str, Any] | None = None  # see RunSettings.prelaid
    now: str | None = None  # batch --now (WEEK:DAY[:SECTION] or a date): the past is frozen


@dataclass
class PlanOutput:
    preview: dict[str, Any]
    result: RunResult
    secrets: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return self.result.exit_code


def run_settings(options: PlanOptions, settings: Mapping[str, Any]) -> RunSettings:
    """RunSettings from configs/llm.yaml (and the user config) overridden by the options."""
    llm = settings.get("llm") or {}
    if options.mode not in ("plan-solve", "react"):
        raise UsageError(f"--mode: expected plan-solve or react (got {options.mode!r})")
    if options.lang not in ("zh", "en"):
        raise UsageError(f"--lang: expected zh or en (got {options.lang!r})")
    rounds = llm.get("max_rounds") or {}
    default_rounds = 5 if options.mode == "plan-solve" else 20
    if options.max_rounds is not None:
        max_rounds = options.max_rounds
    else:
        max_rounds = (
            rounds.get(options.mode, default_rounds) if isinstance(rounds, dict) else int(rounds)
        )
    if max_rounds < 1:
        raise UsageError("--max-rounds: must be at least 1")

    def pick(option: int | None, key: str) -> int | None:
        value = option if option is not None else llm.get(key)
        if value is not None and int(value) < 0:
            raise UsageError(f"--{key.replace('_', '-')}: must not be negative")
        return None if value is None else int(value)

    return RunSettings(
        mode=options.mode,
        max_rounds=int(max_rounds),
        lang=options.lang,  # type: ignore[arg-type]
        rough=options.rough,
        max_steps=int(llm.get("max_steps", 40)),
        max_retries=int(llm.get("max_retries", 2)),
        max_llm_calls=pick(options.max_llm_calls, "max_llm_calls"),
        max_tokens=pick(options.max_tokens, "max_tokens"),
        observation_chars=int(llm.get("observation_chars", 600)),
        react_observation_chars=int(llm.get("react_observation_chars", 2000)),
        overview_chars=int(llm.get("overview_chars", 16000)),
        solver=dict(settings.get("solver") or {}),
        prelaid=options.prelaid,
    )


def lay_out_first(
    loaded: Any,
    *,
    now: str | None,
    solver: str | None,
    solver_section: Mapping[str, Any],
    scope: list[int] | None = None,
    lang: str = "zh",
) -> tuple[Any, dict[str, Any]]:
    """The rough layout before a plan when the engine's own cannot do it: it knows neither a
    `now` nor a solver choice. The engine then continues from this result without laying out
    again (what finds no room after now stays pending instead of landing in the past); the
    preview still diffs against the input and labels these placements `rough_layout`.
    Returns the loaded input with the laid-out state, and the record for `PlanOptions.prelaid`.
    """
    import dataclasses

    from planner_cli.solver.layout import rough_layout

    result = rough_layout(
        loaded.state,
        scope,
        solver="greedy" if solver == "greedy" else "cpsat",
        settings=dict(solver_section),
        now=now,
        lang="en" if lang == "en" else "zh",
    )
    loaded = dataclasses.replace(
        loaded,
        state=result.state,
        original=loaded.base,
        prior_by={**loaded.prior_by, **dict.fromkeys(result.changed, "rough_layout")},
    )
    record = {
        "status": "success",
        "result": f"{len(result.placed)} placed, {len(result.pending)} pending",
        "changed": len(result.changed),
        "now": now,
    }
    return loaded, record


def plan_preview(
    loaded: Any,
    options: PlanOptions,
    settings: Mapping[str, Any],
    *,
    events: Events,
    env: Mapping[str, str] | None = None,
    tools: Tools | None = None,
) -> PlanOutput:
    """One `planner plan` run on a loaded input: the preview document and the run's result.

    Raises PlannerError for bad options, an unreadable cassette or an invalid plan file (nothing
    to write); every LLM failure is an outcome inside the preview instead.
    """
    import os

    from planner_cli.engine.events import redact
    from planner_cli.io.files import read_data
    from planner_cli.io.preview import build_preview
    from planner_cli.llm.select import save_recording, select_backend

    env = os.environ if env is None else env
    run = run_settings(options, settings)
    if options.now is not None:
        from planner_cli.solver.layout import parse_now

        run.now_g = parse_now(options.now, loaded.state).g
    if options.plan_file and options.llm not in (None, "none"):
        raise UsageError("--plan-file runs without an LLM; leave out --llm")
    if options.plan_file and options.record:
        raise UsageError("--record needs --llm openai, not --plan-file")
    plan_data = read_data(options.plan_file) if options.plan_file else None
    selected = select_backend(
        "none" if options.plan_file else options.llm,
        settings.get("llm") or {},
        env,
        record=options.record,
    )
    events.secrets = sorted({*events.secrets, *selected.secrets})
    try:
        result = run_engine(
            loaded.state,
            options.instruction,
            settings=run,
            events=events,
            backend=selected.backend,
            plan_data=plan_data,
            plan_name=options.plan_file or "plan",
            history=options.history,
            tools=tools,
            original=loaded.base if options.prelaid is not None else None,
        )
    finally:
        if selected.backend is not None:
            selected.backend.close()
    if options.record:
        save_recording(
            selected,
            options.record,
            {
                "instruction": options.instruction,
                "input": loaded.path,
                "mode": options.mode,
                "lang": options.lang,
                "rough": options.rough,
            },
        )
    backend_label = "plan-file" if options.plan_file else selected.label
    run_options: dict[str, Any] = {
        "mode": run.mode,
        "max_rounds": run.max_rounds,
        "lang": run.lang,
        "rough": run.rough,
        "llm": backend_label,
    }
    if options.now is not None:
        run_options["now"] = options.now
    preview = build_preview(
        loaded,
        result.state,
        settings=run_options,
        by=result.by,
        default_by="rough_layout",
        run=result.run,
        instruction=options.instruction,
        summary=result.summary,
        generator={"llm": {"backend": backend_label, "model": selected.model}},
    )
    return PlanOutput(redact(preview, selected.secrets), result, selected.secrets)


def layout_preview(
    loaded: Any,
    *,
    scope: list[int] | None,
    solver: str,
    solver_section: Mapping[str, Any],
    now: str | None = None,
    stability: int | None = None,
    lang: str = "zh",
) -> tuple[dict[str, Any], Any]:
    """One `planner layout` run: the preview document and the solver's LayoutResult.

    The same function serves `planner layout` and batch items, so both write identical bytes.
    """
    from importlib.metadata import version

    from planner_cli.io.preview import build_preview
    from planner_cli.solver.layout import rough_layout
    from planner_cli.solver.settings import SolverSettings

    if solver not in ("cpsat", "greedy"):
        raise UsageError(f"--solver: expected cpsat or greedy (got {solver!r})")
    if lang not in ("zh", "en"):
        raise UsageError(f"--lang: expected zh or en (got {lang!r})")
    resolved = SolverSettings.from_dict(dict(solver_section))
    result = rough_layout(
        loaded.state,
        scope_class_ids=scope,
        solver=solver,  # type: ignore[arg-type]
        settings=resolved,
        now=now,
        stability=stability,
        lang=lang,  # type: ignore[arg-type]
    )
    preview = build_preview(
        loaded,
        result.state,
        settings={
            "command": "layout",
            "solver": solver,
            "seed": resolved.random_seed,
            "time_limit_s": resolved.time_limit_s,
            "max_deterministic_time": resolved.max_deterministic_time,
            "workers": resolved.num_workers,
            "task_class": scope,
            "now": now,
            "stability": stability,
            "lang": lang,
        },
        default_by="rough_layout",
        metrics=result.metrics,
        run={"outcome": "partial" if result.pending else "completed", "pending": result.pending},
        generator={"solver": f"ortools {version('ortools')}" if solver == "cpsat" else "greedy"},
    )
    return preview, result
