"""The LLM backend interface the engines use, its usage counters and its two failure kinds.

A backend turns messages into one validated response model (re-asking on invalid answers is
the backend's business, bounded by `max_retries`). It raises LLMUnavailable when the endpoint
cannot be used (connection, time-out, HTTP error, a replay cassette without the answer) and
LLMInvalid when no valid answer came within the re-asks; both carry the usage spent so far.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from planner_cli.errors import LLMError

M = TypeVar("M", bound=BaseModel)
Emit = Callable[..., None]


@dataclass
class Usage:
    """LLM calls (completions received) and tokens from the API's usage fields."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict[str, int]:
        return {
            "llm_calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }


@dataclass
class Completion(Generic[M]):
    """A validated answer with what it cost (re-asked answers included) and its reasoning."""

    value: M
    usage: Usage
    reasoning: list[str] = field(default_factory=list)


class LLMUnavailable(LLMError):
    """The endpoint could not be used; the run falls back."""

    def __init__(self, message: str, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage or Usage()


class LLMInvalid(LLMError):
    """Every answer within the re-asks failed validation."""

    def __init__(self, message: str, errors: list[str], usage: Usage | None = None) -> None:
        super().__init__(message)
        self.errors = errors
        self.usage = usage or Usage()


class LLMBackend(Protocol):
    """What the engines call. `name` and `model` go into the preview's generator field."""

    name: str
    model: str | None

    def complete(
        self,
        messages: list[dict[str, Any]],
        response_model: type[M],
        *,
        context: dict[str, Any],
        max_retries: int,
        emit: Emit,
        on_rejected: Callable[[Exception], None],
    ) -> Completion[M]: ...
