"""`planner batch`: many exports → previews in one output directory (spec/cli.md "batch").

Parses options, resolves settings once in this process (workers get them as data, so local
processes and Dask workers produce the same previews), calls `run_batch`, prints the summary.
"""

from __future__ import annotations

import os

import typer

from planner_cli.cli import app, parse_ids, positive
from planner_cli.errors import ConfigError, UsageError


def _default_workers(configured: object) -> int:
    if isinstance(configured, int) and not isinstance(configured, bool) and configured > 0:
        return configured
    return os.cpu_count() or 1


def _timeout(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"batch.dask_timeout_s: expected a positive number (got {value!r})")
    return float(value)


@app.command()
def batch(
    inputs: list[str] = typer.Argument(
        ..., metavar="INPUT...", help="Exports: files, directories (searched recursively) or globs."
    ),
    out: str = typer.Option(..., "--out", help="Output directory: previews, journal, summary."),
    workers: int | None = typer.Option(
        None, "--workers", help="Local worker processes (default: the CPU count)."
    ),
    dask: str | None = typer.Option(
        None,
        "--dask",
        metavar="ADDRESS",
        help="Run items on an existing Dask scheduler, e.g. tcp://10.0.0.5:8786.",
    ),
    now: str | None = typer.Option(
        None,
        "--now",
        help="WEEK:DAY[:SECTION] or a date: the past is frozen, lapsed suggestions are re-placed.",
    ),
    instruction: str | None = typer.Option(
        None, "--instruction", help="The instruction given to every item (as in `planner plan`)."
    ),
    llm: str | None = typer.Option(
        None, "--llm", help="openai | replay:FILE | none (as in `planner plan`)."
    ),
    plan_file: str | None = typer.Option(
        None, "--plan-file", help="Run this plan file on every item instead of asking an LLM."
    ),
    mode: str = typer.Option("plan-solve", "--mode", help="plan-solve | react."),
    no_rough: bool = typer.Option(
        False, "--no-rough", help="With an instruction: no rough layout before planning."
    ),
    solver: str | None = typer.Option(None, "--solver", help="cpsat | greedy."),
    seed: int | None = typer.Option(None, "--seed", min=0, help="Solver random seed."),
    time_limit: float | None = typer.Option(
        None, "--time-limit", callback=positive, help="Solver time limit per item, seconds."
    ),
    task_class: str | None = typer.Option(
        None, "--task-class", help="Comma-separated task class ids (scope)."
    ),
    lang: str = typer.Option("zh", "--lang", help="Language of tool texts: zh or en."),
    config: str | None = typer.Option(None, "--config", help="A settings file (YAML)."),
    force: bool = typer.Option(
        False, "--force", help="Redo every item, even those the journal says are unchanged."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Reschedule many exports (cron): one preview each, journal, lock, resume; exit = worst item."""
    import json

    from planner_cli.batch import ItemOptions, check_options, run_batch
    from planner_cli.settings import load_settings

    if mode not in ("plan-solve", "react"):
        raise UsageError(f"--mode: expected plan-solve or react (got {mode!r})")
    if solver is not None and solver not in ("cpsat", "greedy"):
        raise UsageError(f"--solver: expected cpsat or greedy (got {solver!r})")
    if lang not in ("zh", "en"):
        raise UsageError(f"--lang: expected zh or en (got {lang!r})")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers: expected a positive number (got {workers})")
    if dask and workers is not None:
        raise UsageError("--workers and --dask exclude each other")
    ids = parse_ids(task_class)
    settings = load_settings(config)
    options = ItemOptions(
        now=now,
        instruction=instruction,
        llm=llm,
        plan_file=plan_file,
        mode=mode,
        solver=solver,
        seed=seed,
        time_limit=time_limit,
        task_class=tuple(ids) if ids else None,
        lang=lang,
        rough=not no_rough,
    )
    check_options(options)
    report = run_batch(
        inputs,
        out,
        options,
        settings,
        workers=workers or _default_workers(settings["batch"].get("workers")),
        dask_address=dask,
        dask_timeout_s=_timeout(settings["batch"].get("dask_timeout_s", 10)),
        force=force,
    )
    for warning in report.warnings:
        typer.echo(warning, err=True)
    if as_json:
        typer.echo(json.dumps(report.summary(), ensure_ascii=False, sort_keys=True, indent=2))
    else:
        typer.echo(report.text())
    raise typer.Exit(report.exit_code)
