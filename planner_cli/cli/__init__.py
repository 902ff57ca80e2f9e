"""The `planner` command: a typer app whose commands live in this package, one module a group.

Commands only parse options, call one function, print and choose the exit code (spec/cli.md).
`main` turns PlannerError into `error: …` lines and its exit code; anything else is an internal
error (exit 1) whose traceback is shown only with `--debug`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import sys
from importlib import import_module

import typer

from planner_cli.errors import PlannerError, UsageError

app = typer.Typer(
    name="planner",
    help="Plan-and-Solve batch optimizer for student timetables.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_COMMAND_MODULES = ("core", "layout", "plan", "render", "apply", "session", "batch", "evaluate")


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks of errors."),
) -> None:
    """Plan-and-Solve batch optimizer for student timetables."""


def debug_enabled(argv: list[str] | None = None) -> bool:
    return "--debug" in (sys.argv if argv is None else argv)


def fail(message: str, code: int = 1) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


TIMESTAMP = typer.Option(
    False, "--timestamp", help="Record the time of writing in the preview (not byte-stable)."
)


def positive(value: float | None) -> float | None:
    """Option callback: a number > 0 (a usage error, exit 2, otherwise)."""
    if value is not None and not value > 0:
        raise typer.BadParameter(f"expected a number > 0 (got {value:g})")
    return value


def parse_ids(text: str | None, option: str = "--task-class") -> list[int] | None:
    """`10,12` → [10, 12]; None stays None."""
    if text is None:
        return None
    try:
        ids = [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise UsageError(f"{option}: expected comma-separated integer ids (got {text!r})") from None
    if not ids:
        raise UsageError(f"{option}: expected at least one id")
    return ids


def parse_window(text: str | None) -> tuple[dt.date, dt.date] | None:
    """`2026-10-05..2026-10-18` → the two dates (a CLI-given planning window)."""
    if text is None:
        return None
    try:
        first, last = (dt.date.fromisoformat(p) for p in text.split(".."))
    except ValueError:
        raise UsageError(
            f"--window: expected START..END dates like 2026-10-05..2026-10-18 (got {text!r})"
        ) from None
    if first > last:
        raise UsageError("--window: start must not be after end")
    return first, last


def _register_commands() -> None:
    for name in _COMMAND_MODULES:
        try:
            import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise


_register_commands()


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    args = sys.argv[1:] if argv is None else argv
    debug = debug_enabled(args)
    try:
        code = app(args=args, prog_name="planner", standalone_mode=False)
    except PlannerError as exc:
        if debug:
            raise
        for line in exc.lines():
            typer.echo(line, err=True)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("error: aborted", err=True)
        sys.exit(1)
    except Exception as exc:  # click usage errors first, then our own bugs
        import click

        # typer >= 0.20 raises its vendored copy of click's exceptions (typer._click)
        modules = [click.exceptions]
        with contextlib.suppress(ImportError):
            from typer._click import exceptions as typer_click_exceptions

            modules.append(typer_click_exceptions)
        if isinstance(exc, tuple(m.UsageError for m in modules)):
            # one `error:` line like every other error, then where to look
            typer.echo(f"error: {exc.format_message()}", err=True)  # type: ignore[attr-defined]
            context = getattr(exc, "ctx", None)
            if context is not None:
                typer.echo(f"try '{context.command_path} --help'", err=True)
            sys.exit(2)
        if isinstance(exc, tuple(m.ClickException for m in modules)):
            exc.show()  # type: ignore[attr-defined]
            sys.exit(exc.exit_code)  # type: ignore[attr-defined]
        if debug:
            raise
        typer.echo(
            f"error: internal error: {type(exc).__name__}: {exc}"
            " (run `planner --debug COMMAND …` for details)",
            err=True,
        )
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
