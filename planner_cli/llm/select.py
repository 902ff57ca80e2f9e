"""Choosing the LLM backend of a run from `--llm` (openai[:PROFILE] | replay:FILE | none).

`openai` without an API key (or base URL, or a local profile) is "no LLM configured" and yields
no backend when it is only the settings' default; named with `--llm openai` it is a
configuration error (exit 1), since the user asked for an LLM run. `replay:FILE` builds the openai backend over the cassette's recorded answers with
the endpoint settings the cassette was recorded with, so requests hash the same. With
`record`, the openai backend's HTTP exchanges are kept for `save_recording`. A request the
cassette has no answer for is an input error naming the cassette (exit 1, nothing written):
the cassette is stale, the LLM is not unusable, so it must not pass for a fallback.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner_cli.errors import ConfigError, InputError, Problem, UsageError
from planner_cli.llm.openai_backend import Endpoint, OpenAIBackend, resolve_endpoint
from planner_cli.llm.replay import Cassette, Recorder, Replayer

REPLAY_URL = "http://replay.invalid/v1"


@dataclass
class Selected:
    """The backend (None: no LLM), the label for the preview, and what must stay secret."""

    backend: OpenAIBackend | None
    label: str
    model: str | None = None
    endpoint: Endpoint | None = None
    recorder: Recorder | None = None
    secrets: list[str] = field(default_factory=list)


def select_backend(
    spec: str | None,
    llm_settings: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    record: str | None = None,
) -> Selected:
    explicit = spec is not None
    spec = spec or str(llm_settings.get("backend") or "openai")
    secrets = [env["OPENAI_API_KEY"]] if env.get("OPENAI_API_KEY") else []
    if record and not (spec == "openai" or spec.startswith("openai:")):
        raise UsageError("--record works with --llm openai only")
    if spec == "none":
        return Selected(None, "none", secrets=secrets)
    if spec.startswith("replay:"):
        return _replay(spec[len("replay:") :], llm_settings, secrets)
    if spec == "openai" or spec.startswith("openai:"):
        profile = spec.split(":", 1)[1] if ":" in spec else None
        endpoint = resolve_endpoint(llm_settings, env, profile)
        if endpoint is None:
            if explicit:  # asked for by name: a configuration error, not a silent no-LLM run
                raise ConfigError(
                    f"--llm {spec}: no endpoint configured; set OPENAI_API_KEY (and OPENAI_BASE_URL"
                    " for other servers) or choose a profile of configs/llm.yaml, or use --llm none"
                )
            return Selected(None, "none", secrets=secrets)
        secrets = sorted({*secrets, endpoint.api_key})
        recorder = None
        transport = None
        if record:
            import httpx2

            recorder = Recorder(httpx2.HTTPTransport())
            transport = recorder
        backend = OpenAIBackend(endpoint, transport=transport)
        return Selected(backend, "openai", endpoint.model, endpoint, recorder, secrets)
    raise UsageError(f"--llm: expected openai, openai:PROFILE, replay:FILE or none (got {spec!r})")


def _replay(path: str, llm_settings: Mapping[str, Any], secrets: list[str]) -> Selected:
    if not Path(path).is_file():
        raise InputError(path, [Problem("", "cassette file not found")])
    cassette = Cassette.load(path)
    recorded = cassette.meta.get("endpoint") or {}
    endpoint = Endpoint(
        profile=str(recorded.get("profile") or "replay"),
        base_url=REPLAY_URL,
        model=str(recorded.get("model") or "replay"),
        mode=str(recorded.get("mode") or "tools"),
        extra_body=dict(recorded.get("extra_body") or {}),
        temperature=recorded.get("temperature", 0.0),
        api_key="replay",
        transport_retries=int(recorded.get("transport_retries", 2)),
        timeout_s=float(llm_settings.get("timeout_s", 120)),
    )
    replayer = Replayer(cassette)

    def miss() -> InputError | None:
        """A request the cassette has no answer for: stale input, not an unusable LLM."""
        if not replayer.misses:
            return None
        text = (
            f"no recorded answer for request {replayer.misses[-1][:12]}: the prompt, the input "
            "or the tools changed since it was recorded; record it again with --llm openai --record"
        )
        return InputError(path, [Problem("", text)])

    backend = OpenAIBackend(endpoint, transport=replayer, name="replay", miss_hint=miss)
    return Selected(backend, "replay", endpoint.model, endpoint, None, secrets)


def save_recording(selected: Selected, path: str, run_meta: dict[str, Any]) -> None:
    """Write the recorded exchanges as a cassette (no headers, so no API key)."""
    if selected.recorder is None or selected.endpoint is None:
        return
    meta = {"endpoint": selected.endpoint.meta(), "run": run_meta}
    secrets = [s for s in selected.secrets if len(s) >= 4]
    # a server that echoes the key (an error text, a model quoting it) must not leak it into a
    # cassette that gets committed; such an answer then replays with *** in its place
    Cassette(_mask(meta, secrets), _mask(selected.recorder.interactions, secrets)).save(path)


def _mask(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, "***")
        return value
    if isinstance(value, dict):
        return {k: _mask(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v, secrets) for v in value]
    return value
