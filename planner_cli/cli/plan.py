"""`planner plan`: the full Plan-and-Solve (or ReAct) run on one input, written as a preview.

Exit codes (spec/cli.md): 0 completed (or no LLM and nothing left to do), 3 partial, 4 fallback
(the LLM was unusable; the preview holds the rough layout), 1 errors (nothing written).
`--events FILE` gets JSON lines; `-v` prints readable events on stderr; on a terminal without
`-v` a one-line progress display runs on stderr.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import typer

from planner_cli.cli import TIMESTAMP, app, parse_ids, parse_window

MODE_HELP = "plan-solve (the model writes whole plans) or react (one tool call per round)."
LLM_HELP = (
    "openai (settings and OPENAI_API_KEY / OPENAI_BASE_URL / PLANNER_MODEL), openai:PROFILE "
    "(a profile of configs/llm.yaml), replay:FILE (a recorded cassette, offline) or none "
    "(rough layout only). Default: llm.backend of the settings."
)


@app.command()
def plan(
    file: str = typer.Argument(..., help="An export, state or preview."),
    instruction: str | None = typer.Argument(
        None, help='What to change, in plain words, e.g. "把概率论的复习挪到上午，周末空出来".'
    ),
    output: str = typer.Option(..., "-o", "--output", help="The preview file to write."),
    mode: str = typer.Option("plan-solve", "--mode", help=MODE_HELP),
    llm: str | None = typer.Option(None, "--llm", help=LLM_HELP),
    plan_file: str | None = typer.Option(
        None, "--plan-file", help="Run this plan file (kind schedule-plan) as round 1; no LLM."
    ),
    record: str | None = typer.Option(
        None, "--record", help="With --llm openai: write the LLM exchanges to this cassette."
    ),
    max_rounds: int | None = typer.Option(
        None, "--max-rounds", help="Planning rounds (default 5; 20 in react mode)."
    ),
    max_llm_calls: int | None = typer.Option(
        None, "--max-llm-calls", min=1, help="Stop cleanly after this many LLM calls."
    ),
    max_tokens: int | None = typer.Option(
        None,
        "--max-tokens",
        min=1,
        help="Stop cleanly once this many tokens (prompt + answer) are used.",
    ),
    events_file: str | None = typer.Option(
        None, "--events", help="Write the run's events here as JSON lines."
    ),
    no_rough: bool = typer.Option(
        False, "--no-rough", help="Do not run the rough layout before planning."
    ),
    now: str | None = typer.Option(
        None,
        "--now",
        help=(
            "WEEK:DAY[:SECTION] or a date: lapsed suggestions are re-laid out after it,"
            " and no plan step may touch the past."
        ),
    ),
    lang: str = typer.Option(
        "zh", "--lang", help="Language of tool texts and summaries: zh or en."
    ),
    task_class: str | None = typer.Option(
        None, "--task-class", help="Comma-separated task class ids: the scope of pending work."
    ),
    window: str | None = typer.Option(
        None, "--window", help="START..END dates, when the export gives no window."
    ),
    config: str | None = typer.Option(None, "--config", help="A settings file (YAML)."),
    session: str | None = typer.Option(
        None,
        "--session",
        help="Continue this conversation (its last state and history) and save the result to it.",
    ),
    store_url: str | None = typer.Option(
        None,
        "--store",
        help="Session store: sqlite (default, under PLANNER_HOME), sqlite:///FILE or redis://HOST:PORT/DB.",
    ),
    verbose: bool = typer.Option(
        False, "-v", "--verbose", help="Print the run's events on stderr."
    ),
    timestamp: bool = TIMESTAMP,
) -> None:
    """Plan with an LLM (or a plan file) and write the result as a preview."""
    from planner_cli.engine.api import PlanOptions, lay_out_first, plan_preview
    from planner_cli.engine.events import Events, redact
    from planner_cli.io.loader import load_any
    from planner_cli.io.preview import write_preview
    from planner_cli.settings import load_settings

    options = PlanOptions(
        instruction=instruction,
        mode=mode,
        llm=llm,
        plan_file=plan_file,
        record=record,
        max_rounds=max_rounds,
        rough=not no_rough,
        lang=lang,
        max_llm_calls=max_llm_calls,
        max_tokens=max_tokens,
        now=now,
    )
    settings = load_settings(config)
    scope = parse_ids(task_class)
    loaded = load_any(file, scope, parse_window(window))
    with contextlib.ExitStack() as stack:
        jsonl = None
        if events_file:
            Path(events_file).parent.mkdir(parents=True, exist_ok=True)
            jsonl = stack.enter_context(open(events_file, "w", encoding="utf-8"))  # noqa: SIM115
        progress = sys.stderr if sys.stderr.isatty() and not verbose else None
        events = Events(jsonl=jsonl, verbose=sys.stderr if verbose else None, progress=progress)
        stack.callback(events.close)
        store = resumed = None
        if session is not None:
            from planner_cli.sessions import resume, save_turn
            from planner_cli.store import open_store

            store = stack.enter_context(open_store(store_url))
            resumed = resume(store, session, loaded)
            loaded, options.history = resumed.loaded, resumed.history
        if now is not None and options.rough:
            loaded, options.prelaid = lay_out_first(
                loaded,
                now=now,
                solver=None,
                solver_section=settings["solver"],
                scope=scope,
                lang=lang,
            )
        out = plan_preview(loaded, options, settings, events=events)
        write_preview(output, out.preview, timestamp)
        events.emit("preview.done", path=output, outcome=out.result.outcome)
        if store is not None and resumed is not None and session is not None:
            save_turn(store, session, resumed, out.preview, out.result.outcome, lang)
    summary = redact(out.result.summary, out.secrets)
    typer.echo(summary)
    typer.echo(f"preview written to {output} (outcome: {out.result.outcome})")
    raise typer.Exit(out.exit_code)
