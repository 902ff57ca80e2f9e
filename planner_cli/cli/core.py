"""Commands on single files: `validate`, `state`, `tool`."""

from __future__ import annotations

import json
from typing import Any

import typer

from planner_cli.cli import TIMESTAMP, app, parse_ids, parse_window
from planner_cli.errors import InputError, Problem, UsageError

LANG_HELP = "Language of tool texts: zh (the seed's wording) or en."


def _check_lang(lang: str) -> Any:
    if lang not in ("zh", "en"):
        raise UsageError(f"--lang: expected zh or en (got {lang!r})")
    return lang


def _validate_one(path: str) -> str:
    """Validate one document of any kind; return a one-line description or raise InputError."""
    from planner_cli.io.files import read_data
    from planner_cli.io.loader import detect_kind, export_to_state, parse_export, parse_state

    data = read_data(path)
    kind = detect_kind(data)
    if kind == "smartflow-export":
        export = parse_export(data, path)
        state = export_to_state(export, name=path)
        return f"export, {len(state.tasks)} tasks in a {state.window.total_days}-day window"
    if kind == "schedule-state":
        state = parse_state(data, path)
        return f"state, {len(state.tasks)} tasks in a {state.window.total_days}-day window"
    if kind == "schedule-preview":
        assert isinstance(data, dict)
        parse_state(data.get("original_state"), path, "original_state")
        state = parse_state(data.get("state"), path, "state")
        return f"preview, {len(data.get('changes') or [])} changes"
    if kind == "schedule-plan":
        from planner_cli.model.plan import parse_plan

        plan = parse_plan(data, path)
        return f"plan, {len(plan.steps)} steps"
    raise InputError(
        path, [Problem("kind", "not a planner document (export, state, preview or plan)")]
    )


@app.command()
def validate(
    files: list[str] = typer.Argument(..., help="Exports, states, previews or plans (JSON/YAML)."),
) -> None:
    """Check documents and list every problem with its field path."""
    failed = False
    for path in files:
        try:
            typer.echo(f"ok: {path}: {_validate_one(path)}")
        except InputError as exc:
            failed = True
            for line in exc.lines():
                typer.echo(line, err=True)
    if failed:
        raise typer.Exit(1)


@app.command()
def state(
    file: str = typer.Argument(..., help="An export (or a state/preview) to convert."),
    output: str | None = typer.Option(None, "-o", "--output", help="Write here instead of stdout."),
    task_class: str | None = typer.Option(
        None, "--task-class", help="Comma-separated task class ids: the scope of pending work."
    ),
    window: str | None = typer.Option(
        None, "--window", help="START..END dates, when the export gives no window."
    ),
) -> None:
    """Convert an export into a schedule-state file."""
    from planner_cli.io.files import atomic_write, dumps
    from planner_cli.io.loader import load_any

    loaded = load_any(file, parse_ids(task_class), parse_window(window))
    text = dumps(loaded.state.dump())
    if output:
        atomic_write(output, text)
    else:
        typer.echo(text, nl=False)


@app.command()
def tool(
    file: str = typer.Argument(..., help="An export, state or preview."),
    name: str = typer.Argument(..., help="Tool name, e.g. get_overview, place, move."),
    args_json: str = typer.Argument(
        "{}", metavar="[ARGS_JSON]", help="The tool's arguments as a JSON object."
    ),
    output: str | None = typer.Option(
        None, "-o", "--output", help="Write the resulting state as a preview."
    ),
    lang: str = typer.Option("zh", "--lang", help=LANG_HELP),
    as_json: bool = typer.Option(
        False, "--json", help="Print the tool's structured data instead of its text."
    ),
    task_class: str | None = typer.Option(
        None, "--task-class", help="Comma-separated task class ids (scope)."
    ),
    window: str | None = typer.Option(
        None, "--window", help="START..END dates, when the export gives no window."
    ),
    config: str | None = typer.Option(None, "--config", help="A settings file (YAML)."),
    timestamp: bool = TIMESTAMP,
) -> None:
    """Run one schedule tool and print its text; exit 3 when the tool refuses."""
    from planner_cli.io.loader import load_any
    from planner_cli.io.preview import build_preview, write_preview
    from planner_cli.settings import load_settings
    from planner_cli.tools.common import ToolContext
    from planner_cli.tools.registry import get_spec, registry, run_tool

    ctx_lang = _check_lang(lang)
    try:
        args = json.loads(args_json)
    except json.JSONDecodeError as exc:
        raise InputError("ARGS_JSON", [Problem("", f"invalid JSON: {exc.msg}")]) from None
    if not isinstance(args, dict):
        raise InputError("ARGS_JSON", [Problem("", "the arguments must be a JSON object")])
    if get_spec(name) is None:
        raise UsageError(f"unknown tool {name!r}; available: {', '.join(registry())}")
    settings = load_settings(config)
    loaded = load_any(file, parse_ids(task_class), parse_window(window))
    result = run_tool(
        name, loaded.state, args, ToolContext(lang=ctx_lang, solver=settings["solver"])
    )
    if as_json:
        typer.echo(json.dumps(result.data, ensure_ascii=False, sort_keys=True))
    else:
        typer.echo(result.text)
    if output:
        preview = build_preview(
            loaded,
            result.state,
            settings={"lang": ctx_lang, "tool": name, "args": args},
            default_by=f"tool:{name}",
        )
        write_preview(output, preview, timestamp)
    if not result.ok:
        raise typer.Exit(3)
