"""Preview files (formats.md §3): the persistence diff of two states and the preview document.

`changes` compares the original and final state task by task (state_id): `place` (was not
placed, now has slots), `move` (slots or embed host differ), `unplace` (had slots, now none).
Unlike the original (seed-origin §7.9) "was placed" uses the status predicates. A preview has
no wall-clock data unless the command was given --timestamp, so identical runs give identical
bytes.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from planner_cli import __version__
from planner_cli.io.files import atomic_write, dumps
from planner_cli.io.loader import Loaded
from planner_cli.model.state import ScheduleState, Task
from planner_cli.tools.common import slot_json


def _host(state: ScheduleState, task: Task) -> dict[str, int] | None:
    if task.embed_host is None:
        return None
    host = state.task(task.embed_host)
    return {"state_id": task.embed_host, "event_id": host.source_id if host else 0}


def compute_changes(
    original: ScheduleState,
    final: ScheduleState,
    by: dict[int, str] | None = None,
    default_by: str = "unknown",
) -> list[dict[str, Any]]:
    by = by or {}
    changes: list[dict[str, Any]] = []
    for task in sorted(final.tasks, key=lambda x: x.state_id):
        old = original.task(task.state_id)
        had = bool(old and old.slots)
        has = bool(task.slots)
        old_host = _host(original, old) if old else None
        new_host = _host(final, task)
        if not had and has:
            kind = "place"
        elif had and not has:
            kind = "unplace"
        elif (
            had
            and has
            and (
                [s.key() for s in old.slots] != [s.key() for s in task.slots]  # type: ignore[union-attr]
                or old_host != new_host
            )
        ):
            kind = "move"
        else:
            continue
        changes.append(
            {
                "type": kind,
                "state_id": task.state_id,
                "source": task.source,
                "source_id": task.source_id,
                "name": task.name,
                "from": [slot_json(original, s) for s in old.slots] if old else [],
                "to": [slot_json(final, s) for s in task.slots],
                "embed_host": new_host,
                "from_embed_host": old_host,
                "by": by.get(task.state_id, default_by),
            }
        )
    return changes


def build_preview(
    loaded: Loaded,
    state: ScheduleState,
    *,
    settings: dict[str, Any],
    by: dict[int, str] | None = None,
    default_by: str = "unknown",
    metrics: dict[str, Any] | None = None,
    run: dict[str, Any] | None = None,
    instruction: str | None = None,
    summary: str | None = None,
    generator: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The preview document. `metrics` defaults to the solver-free scorer's figures."""
    original = loaded.base
    # steps of this run label what they changed; earlier changes keep the label of the preview
    # this run continued
    touched = {c["state_id"] for c in compute_changes(loaded.state, state)}
    labels = dict(loaded.prior_by)
    labels.update({sid: (by or {}).get(sid, default_by) for sid in touched})
    if metrics is None:
        from planner_cli.solver.score import score

        metrics = score(state, original)
    preview: dict[str, Any] = {
        "kind": "schedule-preview",
        "version": 1,
        "input": {"path": loaded.path, "kind": loaded.kind, "sha256": loaded.sha256},
        "generator": {"planner": __version__, **(generator or {})},
        "settings": settings,
        "instruction": instruction,
        "original_state": original.dump(),
        "state": state.dump(),
        "changes": compute_changes(original, state, labels, default_by),
        "run": run,
        "metrics": metrics,
        "summary": summary,
    }
    return preview


def write_preview(path: str | Path, preview: dict[str, Any], timestamp: bool = False) -> None:
    """Write atomically; `timestamp` (the commands' --timestamp) adds the UTC time of writing,
    the only wall-clock value a preview may hold."""
    if timestamp:
        now = dt.datetime.now(dt.UTC).replace(microsecond=0)
        preview = {**preview, "timestamp": now.isoformat().replace("+00:00", "Z")}
    atomic_write(path, dumps(preview))
