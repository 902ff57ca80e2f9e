"""`planner eval`: run a regression suite, print a table, write JUnit/Markdown/JSON (spec/cli.md).

Exit 0 when every case passes its checks and nothing regressed against `--baseline`; 3 when a
check failed or a metric regressed beyond configs/eval.yaml; 1 for an invalid suite or baseline.
"""

from __future__ import annotations

import typer

from planner_cli.cli import app
from planner_cli.errors import UsageError


@app.command("eval")
def evaluate(
    suite: str = typer.Argument(..., help="A suite YAML file or a directory of them."),
    llm: str = typer.Option(
        "replay", "--llm", help="replay (each case's cassette, offline) or openai (live)."
    ),
    record: bool = typer.Option(
        False, "--record", help="With --llm openai: rewrite the cases' cassettes."
    ),
    baseline: str | None = typer.Option(
        None, "--baseline", help="Compare metrics with this baseline; regressions exit 3."
    ),
    update_baseline: bool = typer.Option(
        False, "--update-baseline", help="Rewrite the --baseline file from this run."
    ),
    junit: str | None = typer.Option(None, "--junit", help="Write JUnit XML here."),
    report: str | None = typer.Option(None, "--report", help="Write a Markdown report here."),
    json_file: str | None = typer.Option(None, "--json", help="Write the results as JSON here."),
    case: list[str] = typer.Option([], "--case", help="Run only this case id (repeatable)."),
    config: str | None = typer.Option(None, "--config", help="A settings file (YAML)."),
) -> None:
    """Evaluate planning quality on a suite of cases (CI regression gate)."""
    from planner_cli.evaluate import run_suite
    from planner_cli.io.files import atomic_write, dumps
    from planner_cli.settings import load_settings

    if llm not in ("replay", "openai"):
        raise UsageError(f"--llm: expected replay or openai (got {llm!r})")
    if record and llm != "openai":
        raise UsageError(
            "--record needs --llm openai (cassettes are recorded from a live endpoint)"
        )
    if update_baseline and baseline is None:
        raise UsageError("--update-baseline needs --baseline FILE (the file to rewrite)")
    settings = load_settings(config)
    result = run_suite(
        suite,
        settings,
        llm=llm,
        record=record,
        baseline=baseline,
        update_baseline=update_baseline,
        only=case or None,
    )
    typer.echo(result.table())
    if junit:
        atomic_write(junit, result.junit())
    if report:
        atomic_write(report, result.markdown())
    if json_file:
        atomic_write(json_file, dumps(result.json()))
    raise typer.Exit(result.exit_code)
