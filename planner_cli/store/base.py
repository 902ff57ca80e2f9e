"""Session snapshots (planning.md "Sessions", seed 003): the Snapshot model and the store contract.

A store saves, loads (hit → Snapshot, miss → None, failure → StoreError), deletes (idempotent)
and lists snapshots, each kept for a TTL (default 24 h). Decision: session ids are 1-128
characters of letters, digits and `._:-`, trimmed, so they are safe as SQLite keys, Redis keys
and file names alike.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planner_cli.errors import StoreError
from planner_cli.model.state import ScheduleState

DEFAULT_TTL_S = 24 * 60 * 60
_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Turn(_Model):
    """One exchange of a conversation: what the user asked, the plan run for it, how it ended."""

    instruction: str
    plan: dict[str, Any] | None = None
    summary: str = ""
    outcome: str | None = None


class Conversation(_Model):
    turns: list[Turn] = Field(default_factory=list)


class StageCompaction(_Model):
    """Turns before `watermark` are replaced by `summary` in the context of one stage."""

    summary: str = ""
    watermark: int = Field(default=0, ge=0)


class Snapshot(_Model):
    """Everything a session needs to continue: run state, conversation, current and base state.

    `runtime` is the engine's run state (owned by the engine); `original_state` is the diff base
    of the preview; `compaction` holds one summary + watermark per stage (e.g. "plan").
    """

    kind: Literal["planner-session"] = "planner-session"
    version: Literal[1] = 1
    runtime: dict[str, Any] = Field(default_factory=dict)
    conversation: Conversation = Field(default_factory=Conversation)
    state: ScheduleState | None = None
    original_state: ScheduleState | None = None
    compaction: dict[str, StageCompaction] = Field(default_factory=dict)

    def to_json(self) -> str:
        return self.model_dump_json(exclude_none=True)

    @classmethod
    def from_json(cls, text: str | bytes, session_id: str) -> Snapshot:
        try:
            return cls.model_validate_json(text)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise StoreError(
                f"session {session_id!r}: the stored snapshot is unreadable"
                f" ({where or 'document'}: {first['msg']}); delete it with"
                f" `planner session delete {session_id}`"
            ) from None


@dataclass(frozen=True)
class SessionInfo:
    """One line of `planner session list`; times are Unix seconds."""

    session_id: str
    saved_at: float
    expires_at: float | None
    size: int


def check_id(session_id: str) -> str:
    """The trimmed session id, or StoreError naming what is allowed."""
    trimmed = session_id.strip() if isinstance(session_id, str) else ""
    if not _ID.match(trimmed):
        raise StoreError(f"invalid session id {session_id!r}: use 1-128 letters, digits or . _ : -")
    return trimmed


def check_ttl(ttl_s: float) -> float:
    if not ttl_s > 0:
        raise StoreError(f"session TTL must be positive (got {ttl_s})")
    return ttl_s


class SessionStore(ABC):
    """The store contract every backend passes (tests/store/test_contract.py)."""

    ttl_s: float = DEFAULT_TTL_S

    @abstractmethod
    def save(self, session_id: str, snapshot: Snapshot, ttl_s: float | None = None) -> None:
        """Write (or overwrite) the snapshot; it expires `ttl_s` (default the store's) later."""

    @abstractmethod
    def load(self, session_id: str) -> Snapshot | None:
        """The snapshot, or None when there is none (or it expired). Failures raise StoreError."""

    @abstractmethod
    def delete(self, session_id: str) -> None:
        """Remove the snapshot; deleting a missing one succeeds."""

    @abstractmethod
    def list(self) -> list[SessionInfo]:
        """The live sessions, sorted by id."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections (a no-op by default)."""

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
