"""The `openai` backend: any OpenAI-compatible endpoint through the openai client and instructor.

Endpoints come from profiles in configs/llm.yaml (base URL, model, instructor mode tools /
json_schema / md_json, extra request body, e.g. turning "thinking" off) overridden by
OPENAI_BASE_URL, OPENAI_API_KEY and PLANNER_MODEL. Transport retries (429, 5xx, connection)
are the client's `max_retries`; schema re-asks are instructor's; nothing else retries. The one
timeout (llm.timeout_s) bounds every request; it is not also passed to instructor, whose
deadline would cut re-asks short depending on the model's speed. Each
completion passes one hook that counts usage, reports reasoning (`reasoning_content`, a
`<think>` block, or text around the JSON) and, in the JSON modes, leaves only the JSON for the
parser. Error messages never carry the API key: they are masked with every other output.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from planner_cli.errors import ConfigError
from planner_cli.llm.backend import (
    Completion,
    Emit,
    LLMInvalid,
    LLMUnavailable,
    M,
    Usage,
)

MODES = {"tools": "TOOLS", "json_schema": "JSON_SCHEMA", "md_json": "MD_JSON", "json": "JSON"}
_THINK = re.compile(r"^\s*<think>(.*?)</think>\s*", re.S)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


@dataclass(frozen=True)
class Endpoint:
    """Everything needed to talk to one endpoint. `api_key` is never printed."""

    profile: str
    base_url: str
    model: str
    mode: str = "tools"
    extra_body: dict[str, Any] = field(default_factory=dict)
    temperature: float | None = 0.0
    api_key: str = field(default="", repr=False)
    transport_retries: int = 2
    timeout_s: float = 120.0

    def meta(self) -> dict[str, Any]:
        """The endpoint settings a cassette keeps so that a replay sends identical requests."""
        return {
            "profile": self.profile,
            "model": self.model,
            "mode": self.mode,
            "extra_body": self.extra_body,
            "temperature": self.temperature,
            "transport_retries": self.transport_retries,
        }


def resolve_endpoint(
    llm: Mapping[str, Any], env: Mapping[str, str], profile: str | None = None
) -> Endpoint | None:
    """The endpoint of the chosen profile, or None when no LLM is configured (no API key, no
    OPENAI_BASE_URL, and a profile without a placeholder key for a local server)."""
    name = profile or str(llm.get("profile") or "openai")
    profiles = llm.get("profiles") or {}
    if name not in profiles:
        known = ", ".join(sorted(profiles)) or "none"
        raise ConfigError(f"llm.profile: unknown profile {name!r} (known: {known})")
    chosen = profiles[name] or {}
    mode = str(chosen.get("mode") or "tools")
    if mode not in MODES:
        raise ConfigError(
            f"llm.profiles.{name}.mode: expected one of {', '.join(MODES)} (got {mode!r})"
        )
    env_url = env.get("OPENAI_BASE_URL") or ""
    api_key = env.get("OPENAI_API_KEY") or str(chosen.get("api_key") or "")
    if not api_key and not env_url:
        return None
    model = llm.get("model") or chosen.get("model")
    if not model:
        raise ConfigError(f"no model for LLM profile {name!r}: set PLANNER_MODEL or llm.model")
    base_url = env_url or chosen.get("base_url")
    if not base_url:
        raise ConfigError(f"no base URL for LLM profile {name!r}: set OPENAI_BASE_URL")
    temperature = llm.get("temperature", 0.0)
    return Endpoint(
        profile=name,
        base_url=str(base_url),
        model=str(model),
        mode=mode,
        extra_body=dict(chosen.get("extra_body") or {}),
        temperature=None if temperature is None else float(temperature),
        api_key=api_key or "not-needed",
        transport_retries=int(llm.get("transport_retries", 2)),
        timeout_s=float(llm.get("timeout_s", 120)),
    )


def _quiet_libraries() -> None:
    # instructor logs failed attempts at ERROR level; without a handler Python would print them
    for name in ("instructor", "openai", "httpx2", "httpcore2"):
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())


def split_reasoning(content: str, mode: str) -> tuple[str, str]:
    """(reasoning, content for the parser): a <think> block, and in the JSON modes any text
    around the JSON document, are reasoning."""
    reasoning = ""
    match = _THINK.match(content)
    if match:
        reasoning = match.group(1).strip()
        content = content[match.end() :]
    if mode == "tools":
        return "\n".join(p for p in (reasoning, content.strip()) if p), content
    if mode == "md_json":
        before = content.split("```", 1)[0].strip() if "```" in content else ""
        return "\n".join(p for p in (reasoning, before) if p), content
    if _is_json(content):
        return reasoning, content
    fences = _FENCE.findall(content)
    if fences and _is_json(fences[-1]):
        before = content[: content.find("```")].strip()
        return "\n".join(p for p in (reasoning, before) if p), fences[-1].strip()
    start = _trailing_json(content)
    if start is None:
        return reasoning, content
    before = content[:start].strip()
    return "\n".join(p for p in (reasoning, before) if p), content[start:].strip()


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _trailing_json(text: str) -> int | None:
    """Where the JSON object that ends the text starts (text before it is prose), or None."""
    decoder = json.JSONDecoder()
    for n, match in enumerate(re.finditer(r"\{", text)):
        if n >= 200:  # an answer is a plan, not a novel of braces
            return None
        try:
            _, end = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if not text[end:].strip():
            return match.start()
    return None


def _describe(cause: BaseException, endpoint: Endpoint) -> str:
    import openai

    if isinstance(cause, openai.APITimeoutError):
        return f"the LLM endpoint did not answer within {endpoint.timeout_s:g} s"
    if isinstance(cause, openai.APIConnectionError):
        return "cannot connect to the LLM endpoint (is the server running and the URL right?)"
    if isinstance(cause, openai.APIStatusError):
        detail = ""
        body = cause.body
        if isinstance(body, dict):
            error = body.get("error", body)
            detail = str(error.get("message") if isinstance(error, dict) else error)
        elif body is not None:
            detail = str(body)
        detail = " ".join(detail.split())[:200]
        return f"the LLM endpoint answered HTTP {cause.status_code}" + (
            f": {detail}" if detail else ""
        )
    if isinstance(cause, json.JSONDecodeError):
        return "the LLM endpoint answered with a body that is not JSON"
    return f"the LLM endpoint gave an unusable answer ({type(cause).__name__}: {cause})"


def _has_choices(completion: Any) -> bool:
    return bool(getattr(completion, "choices", None))


class OpenAIBackend:
    """`complete` = one instructor call with bounded re-asks, usage and reasoning reported."""

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        transport: Any = None,
        name: str = "openai",
        miss_hint: Callable[[], Exception | None] | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.name = name
        self.model: str | None = endpoint.model
        self.transport = transport
        self.miss_hint = miss_hint
        self._client: Any = None

    def close(self) -> None:
        """Release the HTTP connections (the client is created on the first call)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def _instructor(self, mode: str) -> Any:
        import instructor
        import openai

        _quiet_libraries()
        if self._client is None:
            http_client = (
                openai.DefaultHttpxClient(transport=self.transport) if self.transport else None
            )
            self._client = openai.OpenAI(
                api_key=self.endpoint.api_key,
                base_url=self.endpoint.base_url,
                max_retries=self.endpoint.transport_retries,
                timeout=self.endpoint.timeout_s,
                http_client=http_client,
            )
        return instructor.from_openai(self._client, mode=getattr(instructor.Mode, MODES[mode]))

    def complete(
        self,
        messages: list[dict[str, Any]],
        response_model: type[M],
        *,
        context: dict[str, Any],
        max_retries: int,
        emit: Emit,
        on_rejected: Callable[[Exception], None],
    ) -> Completion[M]:
        endpoint = self.endpoint
        client = self._instructor(endpoint.mode)
        usage = Usage()
        reasoning: list[str] = []

        def on_response(response: Any) -> None:
            usage.calls += 1
            counted = getattr(response, "usage", None)
            prompt = int(getattr(counted, "prompt_tokens", 0) or 0)
            completion = int(getattr(counted, "completion_tokens", 0) or 0)
            usage.prompt_tokens += prompt
            usage.completion_tokens += completion
            emit("llm.call", n=usage.calls, prompt_tokens=prompt, completion_tokens=completion)
            choices = getattr(response, "choices", None) or []
            if not choices:
                return
            message = choices[0].message
            extra = getattr(message, "model_extra", None) or {}
            parts = [str(extra[k]) for k in ("reasoning_content", "reasoning") if extra.get(k)]
            if isinstance(message.content, str):
                thought, content = split_reasoning(message.content, endpoint.mode)
                message.content = content
                if thought:
                    parts.append(thought)
            for text in parts:
                reasoning.append(text)
                emit("llm.reasoning", text=text)

        def on_parse_error(error: Exception, *args: Any, **kwargs: Any) -> None:
            on_rejected(error)

        client.on("completion:response", on_response)
        client.on("parse:error", on_parse_error)
        request: dict[str, Any] = {
            "model": endpoint.model,
            "messages": messages,
            "response_model": response_model,
            "context": context,
            "max_retries": max(0, max_retries),
        }
        if endpoint.temperature is not None:
            request["temperature"] = endpoint.temperature
        if endpoint.extra_body:
            request["extra_body"] = endpoint.extra_body
        try:
            value = client.create(**request)
        except Exception as exc:
            raise self._failure(exc, usage) from None
        return Completion(value=value, usage=usage, reasoning=reasoning)

    def _failure(self, exc: Exception, usage: Usage) -> Exception:
        import openai

        cause: BaseException = exc.__cause__ or exc
        attempts = getattr(exc, "failed_attempts", None) or []
        answered = [a for a in attempts if _has_choices(getattr(a, "completion", None))]
        stale = self.miss_hint() if self.miss_hint else None
        if stale is not None:  # a replay without the answer: an input error, not a fallback
            return stale
        if answered and not isinstance(cause, openai.APIError):
            errors = [self._mask(str(a.exception)) for a in answered]
            return LLMInvalid(
                f"no valid answer after {len(answered)} attempt(s)", errors=errors, usage=usage
            )
        return LLMUnavailable(self._mask(_describe(cause, self.endpoint)), usage)

    def _mask(self, text: str) -> str:
        key = self.endpoint.api_key
        return text.replace(key, "***") if key and len(key) >= 4 else text
