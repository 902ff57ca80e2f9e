"""`planner session list|show ID|delete ID`: look into and clean the session store."""

from __future__ import annotations

import datetime as dt
import json

import typer

from planner_cli.cli import app
from planner_cli.errors import StoreError

session_app = typer.Typer(
    help="The session store (snapshots kept between `planner plan --session ID` runs).",
    no_args_is_help=True,
)
app.add_typer(session_app, name="session")

STORE_HELP = (
    "Session store: sqlite (default, in the planner home), sqlite:///FILE or redis://HOST:PORT/DB."
)


def _when(seconds: float | None) -> str:
    if seconds is None:
        return "never"
    return dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%d %H:%M:%SZ")


@session_app.command("list")
def list_sessions(
    store: str | None = typer.Option(None, "--store", envvar="PLANNER_STORE", help=STORE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the list as JSON."),
) -> None:
    """List the live sessions (expired ones are gone)."""
    from planner_cli.store import open_store

    with open_store(store) as backend:
        infos = backend.list()
    if as_json:
        rows = [
            {
                "session_id": i.session_id,
                "saved_at": _when(i.saved_at),
                "expires_at": _when(i.expires_at),
                "bytes": i.size,
            }
            for i in infos
        ]
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not infos:
        typer.echo("no sessions")
        return
    width = max(len("session"), *(len(i.session_id) for i in infos))
    typer.echo(f"{'session':<{width}}  {'saved':<20}  {'expires':<20}  bytes")
    for i in infos:
        typer.echo(
            f"{i.session_id:<{width}}  {_when(i.saved_at):<20}  {_when(i.expires_at):<20}  {i.size}"
        )


@session_app.command("show")
def show_session(
    session_id: str = typer.Argument(..., metavar="ID", help="The session id."),
    store: str | None = typer.Option(None, "--store", envvar="PLANNER_STORE", help=STORE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the whole snapshot as JSON."),
) -> None:
    """Show one session: its conversation, compaction and states."""
    from planner_cli.store import open_store

    with open_store(store) as backend:
        snapshot = backend.load(session_id)
    if snapshot is None:
        raise StoreError(f"session {session_id.strip()!r} not found (never saved, or expired)")
    if as_json:
        typer.echo(json.dumps(json.loads(snapshot.to_json()), ensure_ascii=False, indent=2))
        return
    turns = snapshot.conversation.turns
    typer.echo(f"session {session_id.strip()}: {len(turns)} turns")
    for n, turn in enumerate(turns, start=1):
        outcome = f" [{turn.outcome}]" if turn.outcome else ""
        typer.echo(f"  {n}. {turn.instruction}{outcome}")
        if turn.summary:
            typer.echo(f"     {turn.summary}")
    for stage, comp in sorted(snapshot.compaction.items()):
        typer.echo(f"compaction {stage}: turns 1-{comp.watermark} summarised")
    for label, state in (("state", snapshot.state), ("original state", snapshot.original_state)):
        if state is None:
            continue
        pending = sum(1 for t in state.tasks if t.is_pending)
        suggested = sum(1 for t in state.tasks if t.is_suggested)
        typer.echo(
            f"{label}: {len(state.tasks)} tasks ({suggested} suggested, {pending} pending)"
            f" in a {state.window.total_days}-day window"
        )
    if snapshot.runtime:
        typer.echo("runtime: " + json.dumps(snapshot.runtime, ensure_ascii=False, sort_keys=True))


@session_app.command("delete")
def delete_session(
    session_id: str = typer.Argument(..., metavar="ID", help="The session id."),
    store: str | None = typer.Option(None, "--store", envvar="PLANNER_STORE", help=STORE_HELP),
) -> None:
    """Delete a session (deleting one that does not exist succeeds)."""
    from planner_cli.store import open_store

    with open_store(store) as backend:
        existed = backend.load(session_id) is not None
        backend.delete(session_id)
    if existed:
        typer.echo(f"deleted session {session_id.strip()}")
    else:
        typer.echo(f"no session {session_id.strip()}; nothing to delete")
