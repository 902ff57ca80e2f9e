"""Run events (planning.md "Events"): JSON lines to a file, readable lines with -v, a TTY progress line.

Every event is `{"seq", "stage", …fields}`; no wall-clock values, so two identical runs write
identical event files. Secrets handed to the sink (the API key) are masked in every string.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

STAGES = (
    "rough_layout.start",
    "rough_layout.done",
    "plan.round",
    "plan.validated",
    "plan.rejected",
    "step.start",
    "step.result",
    "react.round",
    "react.tool_call",
    "react.done",
    "llm.call",
    "llm.error",
    "llm.reasoning",
    "run.note",
    "preview.done",
)
MASK = "***"


def redact(value: Any, secrets: Iterable[str]) -> Any:
    """`value` with every secret replaced by *** in every string, at any depth."""
    secrets = [s for s in secrets if s and len(s) >= 4]
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, MASK)
        return value
    if isinstance(value, dict):
        return {redact(k, secrets): redact(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v, secrets) for v in value]
    return value


def _readable(event: dict[str, Any]) -> str:
    stage = event["stage"]
    fields = {k: v for k, v in event.items() if k not in ("seq", "stage")}
    text = fields.pop("text", None)
    parts = []
    for key, value in fields.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"{key}={shown}")
    line = f"[{stage}] " + " ".join(parts)
    if text:
        line += ("\n  " if parts else "") + str(text).replace("\n", "\n  ")
    return line.rstrip()


class Events:
    """The sink every engine stage reports to. All outputs are optional."""

    def __init__(
        self,
        jsonl: TextIO | None = None,
        verbose: TextIO | None = None,
        progress: TextIO | None = None,
        secrets: Iterable[str] = (),
    ) -> None:
        self.jsonl = jsonl
        self.verbose = verbose
        self.progress = progress
        self.secrets = [s for s in secrets if s]
        self.history: list[dict[str, Any]] = []
        self._progress_shown = False

    def emit(self, stage: str, **fields: Any) -> None:
        event = redact({"seq": len(self.history) + 1, "stage": stage, **fields}, self.secrets)
        self.history.append(event)
        if self.jsonl is not None:
            self.jsonl.write(json.dumps(event, ensure_ascii=False, sort_keys=True) + "\n")
            self.jsonl.flush()
        if self.verbose is not None:
            self.verbose.write(_readable(event) + "\n")
            self.verbose.flush()
        elif self.progress is not None:
            self._show_progress(event)

    def _show_progress(self, event: dict[str, Any]) -> None:
        assert self.progress is not None
        stage = event["stage"]
        if stage == "llm.reasoning":
            return
        label = " ".join(
            str(event[k]) for k in ("round", "id", "tool", "status") if event.get(k) is not None
        )
        line = f"{stage} {label}".strip()[:78]
        self.progress.write("\r\033[K" + line)
        self._progress_shown = True
        if stage == "preview.done":
            self.progress.write("\n")
            self._progress_shown = False
        self.progress.flush()

    def close(self) -> None:
        if self._progress_shown and self.progress is not None:
            self.progress.write("\n")
            self.progress.flush()
            self._progress_shown = False

    def stages(self) -> list[str]:
        return [e["stage"] for e in self.history]
