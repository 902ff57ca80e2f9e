"""`planner apply PREVIEW --export FILE`: write an accepted preview into its export."""

from __future__ import annotations

import typer

from planner_cli.cli import app


@app.command()
def apply(
    preview: str = typer.Argument(..., help="The preview file to apply."),
    export: str = typer.Option(
        ..., "--export", help="The export the preview was made from (JSON or YAML)."
    ),
    output: str | None = typer.Option(
        None,
        "-o",
        "--output",
        help="Write the updated export here instead of in place (in place keeps FILE.bak).",
    ),
    force: bool = typer.Option(
        False, "--force", help="Apply even when the export changed since the preview was made."
    ),
) -> None:
    """Write the preview's changes into the export (refuses a stale preview: exit 5)."""
    from planner_cli.io.apply import apply_file

    result = apply_file(preview, export, output, force)
    target = output or export
    if not result.changes:
        if output:
            typer.echo(f"no changes; wrote {target} unchanged")
        else:
            typer.echo(f"no changes; {export} left as it is")
        return
    for line in result.log:
        typer.echo(line)
    counts = {"place": 0, "move": 0, "unplace": 0}
    for change in result.changes:
        counts[change["type"]] += 1
    summary = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
    backup = "" if output else f" (previous version in {export}.bak)"
    typer.echo(f"applied {len(result.changes)} changes ({summary}) to {target}{backup}")
