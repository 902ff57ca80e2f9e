"""`planner plan --session ID`: continue a conversation from a stored snapshot, then save it.

A session remembers the state after the last run, the original state (the diff base, so every
preview of the session is relative to the export), which step made each change, the input it
was started on, and the conversation; older turns are compacted into a summary with a
watermark (stage "plan"). Decision: a session is bound to the bytes of its input; running it
on a changed file is refused (start a new session or delete the old one) rather than silently
mixing two versions of a timetable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planner_cli.errors import PlannerError
from planner_cli.io.loader import Loaded
from planner_cli.store import (
    Conversation,
    SessionStore,
    Snapshot,
    Turn,
    compact_snapshot,
    context_turns,
)

STAGE = "plan"
KEEP_LAST_TURNS = 4


class SessionMismatchError(PlannerError):
    pass


@dataclass
class Resumed:
    loaded: Loaded
    history: list[dict[str, Any]]
    snapshot: Snapshot | None


def resume(store: SessionStore, session_id: str, loaded: Loaded) -> Resumed:
    """The input to plan on: the session's last state when it exists, else `loaded` itself."""
    snapshot = store.load(session_id)
    if snapshot is None or snapshot.state is None:
        return Resumed(loaded, [], None)
    source = snapshot.runtime.get("input") or {}
    if source.get("sha256") != loaded.sha256:
        raise SessionMismatchError(
            f"session {session_id!r} was started on another version of {source.get('path') or 'its input'};"
            f" use a new session id or `planner session delete {session_id}`"
        )
    by = {int(k): str(v) for k, v in (snapshot.runtime.get("by") or {}).items()}
    continued = Loaded(
        path=str(source.get("path") or loaded.path),
        kind=str(source.get("kind") or loaded.kind),
        sha256=loaded.sha256,
        state=snapshot.state,
        export=loaded.export,
        original=snapshot.original_state or loaded.base,
        prior_by=by,
    )
    summary, turns = context_turns(snapshot, STAGE)
    history: list[dict[str, Any]] = []
    if summary:
        history.append({"instruction": "(earlier requests, summarized)", "summary": summary})
    history += [
        {"instruction": t.instruction, "summary": t.summary, "outcome": t.outcome} for t in turns
    ]
    return Resumed(continued, history, snapshot)


def save_turn(
    store: SessionStore,
    session_id: str,
    resumed: Resumed,
    preview: dict[str, Any],
    outcome: str,
    lang: str,
) -> Snapshot:
    """Store the run's result as the session's new snapshot (compacting old turns)."""
    from planner_cli.model.state import ScheduleState

    previous = resumed.snapshot or Snapshot()
    rounds = (preview.get("run") or {}).get("rounds") or []
    last_plan = rounds[-1].get("plan") if rounds else None
    turns = [
        *previous.conversation.turns,
        Turn(
            instruction=preview.get("instruction") or "",
            plan=last_plan if isinstance(last_plan, dict) else None,
            summary=preview.get("summary") or "",
            outcome=outcome,
        ),
    ]
    snapshot = Snapshot(
        runtime={
            "input": preview["input"],
            "by": {str(c["state_id"]): c["by"] for c in preview.get("changes") or []},
            "turns": len(turns),
            "outcome": outcome,
        },
        conversation=Conversation(turns=turns),
        state=ScheduleState.model_validate(preview["state"]),
        original_state=ScheduleState.model_validate(preview["original_state"]),
        compaction=previous.compaction,
    )
    snapshot = compact_snapshot(snapshot, STAGE, KEEP_LAST_TURNS, "en" if lang == "en" else "zh")
    store.save(session_id, snapshot)
    return snapshot
