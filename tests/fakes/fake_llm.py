"""An in-process LLM backend for engine tests: scripted answers validated like the real one.

Each call takes answers from the script until one validates against the response model (with
the run's context), reporting each invalid one through `on_rejected`, at most `max_retries`
re-asks; `UNAVAILABLE` in the script makes the call fail as an unreachable endpoint would.
Every call's messages are kept, so tests can read what the model was shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from planner_cli.llm.backend import Completion, LLMInvalid, LLMUnavailable, Usage

UNAVAILABLE = object()


class ScriptedLLM:
    name = "fake"
    model: str | None = "scripted"

    def __init__(self, *answers: Any, tokens: tuple[int, int] = (100, 20)) -> None:
        self.answers = list(answers)
        self.tokens = tokens
        self.calls: list[list[dict[str, Any]]] = []

    def complete(
        self,
        messages: list[dict[str, Any]],
        response_model: Any,
        *,
        context: dict[str, Any],
        max_retries: int,
        emit: Callable[..., None],
        on_rejected: Callable[[Exception], None],
    ) -> Completion[Any]:
        usage = Usage()
        errors: list[str] = []
        for _ in range(max_retries + 1):
            self.calls.append([dict(m) for m in messages])
            if not self.answers:
                raise LLMUnavailable("script exhausted", usage)
            item = self.answers.pop(0)
            if item is UNAVAILABLE:
                raise LLMUnavailable("cannot connect to the LLM endpoint", usage)
            usage.calls += 1
            usage.prompt_tokens += self.tokens[0]
            usage.completion_tokens += self.tokens[1]
            emit("llm.call", n=usage.calls)
            try:
                value = response_model.model_validate(item, context=context)
            except ValidationError as exc:
                on_rejected(exc)
                errors.append(str(exc))
                continue
            return Completion(value=value, usage=usage)
        raise LLMInvalid(f"no valid answer after {len(errors)} attempt(s)", errors, usage)
