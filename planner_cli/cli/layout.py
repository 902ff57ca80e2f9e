"""`planner layout`: rough layout only (CP-SAT or greedy) → a preview; exit 3 when tasks stay pending.

The summary (placed/pending counts, each pending task with its reason, solver status and gap)
goes to stdout; wall-clock timings only with `--timings` and never into the preview.
"""

from __future__ import annotations

import json

import typer

from planner_cli.cli import TIMESTAMP, app, parse_ids, parse_window, positive
from planner_cli.errors import UsageError


@app.command()
def layout(
    file: str = typer.Argument(..., help="An export, state or preview."),
    output: str = typer.Option(..., "-o", "--output", help="Where to write the preview (JSON)."),
    task_class: str | None = typer.Option(
        None,
        "--task-class",
        help="Comma-separated task class ids to lay out (default: all auto classes).",
    ),
    solver: str = typer.Option(
        "cpsat", "--solver", help="cpsat (optimising) or greedy (the original cursor rule)."
    ),
    seed: int | None = typer.Option(
        None, "--seed", min=0, help="CP-SAT random seed (default from settings, 0)."
    ),
    time_limit: float | None = typer.Option(
        None,
        "--time-limit",
        callback=positive,
        help="Wall-clock limit in seconds (default from settings, 10).",
    ),
    workers: int | None = typer.Option(
        None,
        "--workers",
        min=1,
        max=64,
        help="CP-SAT search workers (default 1: bit-identical results).",
    ),
    now: str | None = typer.Option(
        None,
        "--now",
        help="WEEK:DAY[:SECTION] or a date: suggestions that started before it are re-laid out after it.",
    ),
    stability: int | None = typer.Option(
        None, "--stability", help="Also re-lay out suggested tasks, at this cost per moved task."
    ),
    window: str | None = typer.Option(
        None, "--window", help="START..END dates, when the export gives no window."
    ),
    config: str | None = typer.Option(None, "--config", help="A settings file (YAML)."),
    lang: str = typer.Option("zh", "--lang", help="Language of the pending reasons: zh or en."),
    as_json: bool = typer.Option(
        False, "--json", help="Print the metrics and pending list as JSON."
    ),
    timings: bool = typer.Option(
        False, "--timings", help="Also print wall-clock build and solve times."
    ),
    timestamp: bool = TIMESTAMP,
) -> None:
    """Lay out pending study tasks (rough layout only) and write a preview."""
    from planner_cli.engine.api import layout_preview
    from planner_cli.io.loader import load_any
    from planner_cli.io.preview import write_preview
    from planner_cli.settings import load_settings

    if stability is not None and stability < 0:
        raise UsageError("--stability: expected a weight ≥ 0")
    scope = parse_ids(task_class)
    settings = load_settings(config)
    overrides = {"random_seed": seed, "time_limit_s": time_limit, "num_workers": workers}
    section = {**settings["solver"], **{k: v for k, v in overrides.items() if v is not None}}
    loaded = load_any(file, scope, parse_window(window))
    preview, result = layout_preview(
        loaded,
        scope=scope,
        solver=solver,
        solver_section=section,
        now=now,
        stability=stability,
        lang=lang,
    )
    write_preview(output, preview, timestamp)
    info = result.metrics["solver"]
    if as_json:
        typer.echo(
            json.dumps(
                {"metrics": result.metrics, "pending": result.pending},
                ensure_ascii=False,
                sort_keys=True,
            )
        )
    else:
        gap = info.get("gap")
        typer.echo(
            f"laid out {len(result.placed)} tasks, {len(result.pending)} pending; "
            f"solver {info['name']} {info['status']}, objective {result.metrics['objective']}"
            + (f", gap {gap:.2%}" if isinstance(gap, float) else "")
        )
        for item in result.pending:
            typer.echo(f"pending [{item['state_id']}] {item['name']}: {item['reason']}")
        typer.echo(f"preview: {output}")
    if timings:
        typer.echo(
            "timings: "
            + ", ".join(
                f"{k}={v:.3f}s" if k.endswith("_s") else f"{k}={v}"
                for k, v in sorted(result.timings.items())
            ),
            err=True,
        )
    if result.pending:
        raise typer.Exit(3)
