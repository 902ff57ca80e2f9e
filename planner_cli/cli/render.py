"""`planner show` (week grid, Markdown, JSON, HTML, iCalendar) and `planner diff`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from planner_cli.cli import app, parse_ids, parse_window
from planner_cli.errors import UsageError

FORMATS = ("text", "md", "json", "html", "ics")
_SUFFIXES = {".md": "md", ".markdown": "md", ".json": "json", ".html": "html", ".htm": "html"}
_SUFFIXES[".ics"] = "ics"


def _lang(value: str | None, default: Any = "zh") -> Any:
    lang = value or default
    if lang not in ("zh", "en"):
        raise UsageError(f"--lang: expected zh or en (got {lang!r})")
    return lang


@app.command()
def show(
    file: str = typer.Argument(..., help="An export, state or preview (JSON or YAML)."),
    fmt: str | None = typer.Option(
        None,
        "--format",
        "-f",
        help="text (week grid), md, json (the state), html or ics; default: from -o's suffix,"
        " else text.",
    ),
    output: str | None = typer.Option(None, "-o", "--output", help="Write here, not to stdout."),
    lang: str = typer.Option("zh", "--lang", help="Language of headings: zh or en."),
    title: str | None = typer.Option(None, "--title", help="Title of the HTML/Markdown/ICS."),
    task_class: str | None = typer.Option(
        None, "--task-class", help="Comma-separated task class ids (scope of pending work)."
    ),
    window: str | None = typer.Option(
        None, "--window", help="START..END dates, when the export gives no window."
    ),
    config: str | None = typer.Option(None, "--config", help="A settings file (YAML)."),
) -> None:
    """Render a schedule: a week grid, Markdown, JSON, an HTML timetable or an iCalendar file."""
    from planner_cli.io.files import atomic_write, dumps
    from planner_cli.io.loader import load_any

    if fmt is None:
        fmt = _SUFFIXES.get(Path(output).suffix.lower(), "text") if output else "text"
    if fmt not in FORMATS:
        raise UsageError(f"--format: expected one of {', '.join(FORMATS)} (got {fmt!r})")
    the_lang = _lang(lang)
    loaded = load_any(file, parse_ids(task_class), parse_window(window))
    state = loaded.state
    name = title or Path(file).stem
    if fmt == "json":
        out = dumps(state.dump())
    elif fmt == "text":
        from planner_cli.render.text import render_text

        out = render_text(state, the_lang)
    elif fmt == "md":
        from planner_cli.render.markdown import render_markdown

        out = render_markdown(state, the_lang, title=name)
    else:
        from planner_cli.render.grid import section_times
        from planner_cli.settings import load_settings

        times = section_times(load_settings(config)["sections"])
        if fmt == "html":
            from planner_cli.render.html import render_html

            out = render_html(state, the_lang, title=name, times=times)
        else:
            from planner_cli.render.ics import render_ics

            out = render_ics(state, times, name=file, calendar_name=name)
    if output:
        atomic_write(output, out)
    else:
        typer.echo(out, nl=False)


@app.command()
def diff(
    preview: str = typer.Argument(..., help="A preview file."),
    as_json: bool = typer.Option(False, "--json", help="Print the changes as JSON."),
    lang: str | None = typer.Option(
        None, "--lang", help="zh or en (default: the preview's settings.lang, else zh)."
    ),
) -> None:
    """List the preview's changes, one per line: old → new position and the step that made it."""
    from planner_cli.io.apply import read_preview
    from planner_cli.io.preview import compute_changes
    from planner_cli.render.diff import render_diff

    data, original, final = read_preview(preview)
    changes = data.get("changes")
    if not isinstance(changes, list):
        changes = compute_changes(original, final)
    if as_json:
        typer.echo(json.dumps(changes, ensure_ascii=False, sort_keys=True, indent=2))
        return
    settings = data.get("settings")
    if not isinstance(settings, dict):
        settings = {}
    the_lang = _lang(lang, settings.get("lang") or "zh")
    typer.echo(render_diff(changes, original, final, the_lang), nl=False)
