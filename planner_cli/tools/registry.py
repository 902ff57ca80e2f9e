"""Tool registry: name → argument model + handler, and `run_tool`, the only way to call a tool.

Argument handling follows seed-origin §2.0: integers accept JSON numbers (floats truncated toward
zero) and never strings (a string counts as missing); integer lists accept lists of numbers (a
list with anything else counts as absent); booleans accept true/false or the strings
"true"/"false". Strict tools (the seed's whitelists) reject unknown keys with the seed's text;
the other tools ignore them. Required arguments are checked in declaration order and reported
with the tool's failure prefix. The same argument models validate plan steps (engine/plan.py).
"""

from __future__ import annotations

import json
import math
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from planner_cli.model.state import ScheduleState
from planner_cli.tools.common import ToolContext, ToolFailure, ToolResult
from planner_cli.tools.messages import Lang, t

ToolKind = Literal["read", "write", "queue"]


def _base_types(annotation: Any) -> set[Any]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        out: set[Any] = set()
        for arg in typing.get_args(annotation):
            out |= _base_types(arg)
        return out
    if origin is typing.Annotated:
        return _base_types(typing.get_args(annotation)[0])
    return {annotation}


def _is_number(value: Any) -> bool:
    # NaN and ±inf (JSON `NaN`, `Infinity`, `1e400`) count as not a number: int() would raise
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and (isinstance(value, int) or math.isfinite(value))
    )


_ABSENT = object()


def _lenient(value: Any, annotation: Any) -> Any:
    kinds = _base_types(annotation)
    if value is None:
        return None
    if int in kinds and not (kinds & {str, list[int], list[str]}):
        return int(value) if _is_number(value) else _ABSENT
    if list[int] in kinds:
        if _is_number(value) and int in kinds:
            return int(value)
        if isinstance(value, list):
            return [int(v) for v in value] if all(_is_number(v) for v in value) else _ABSENT
        return value if str in kinds else _ABSENT
    if bool in kinds:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        return _ABSENT
    return value


class ToolArgs(BaseModel):
    """Base of every tool's argument model. Subclasses set `strict = True` for whitelists."""

    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _seed_coercion(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        out: dict[str, Any] = {}
        for key, value in data.items():
            name = key.strip() if isinstance(key, str) else key
            info = cls.model_fields.get(name) if isinstance(name, str) else None
            if info is None:
                out[name] = value
                continue
            if isinstance(value, dict) and set(value) == {"ref"}:
                out[name] = value  # an unresolved plan reference; resolved before the call
                continue
            coerced = _lenient(value, info.annotation)
            if coerced is not _ABSENT:
                out[name] = coerced
        return out

    @classmethod
    def precheck(cls, raw: dict[str, Any], prefix: str, lang: Lang) -> None:
        """Raise ToolFailure for argument shapes the seed reports in its own words (optional)."""


class StrictToolArgs(ToolArgs):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class ToolSpec:
    name: str
    args: type[ToolArgs]
    handler: Callable[[ScheduleState, Any, ToolContext], ToolResult]
    kind: ToolKind
    json_output: bool = False
    prefix_key: str | None = None  # message key of the failure prefix, e.g. "place_prefix"
    # a check the seed makes before validating the arguments: it answers instead (a result)
    # or hands on the arguments it validated
    before_args: (
        Callable[[ScheduleState, dict[str, Any], ToolContext], ToolResult | ToolArgs] | None
    ) = None

    @property
    def strict(self) -> bool:
        return issubclass(self.args, StrictToolArgs)

    @property
    def description(self) -> str:
        return (self.args.__doc__ or "").strip()

    def prefix(self, lang: Lang) -> str:
        return t(lang, self.prefix_key) if self.prefix_key else ""


_REGISTRY: dict[str, ToolSpec] = {}
_LOADED = False  # set once every module of _MODULES was imported
_MODULES = ("read", "write", "queue", "compound", "spread", "analyze", "layout")


def tool(
    name: str,
    args: type[ToolArgs],
    kind: ToolKind,
    json_output: bool = False,
    prefix_key: str | None = None,
    before_args: Callable[[ScheduleState, dict[str, Any], ToolContext], ToolResult | ToolArgs]
    | None = None,
) -> Callable[[Callable[..., ToolResult]], Callable[..., ToolResult]]:
    """Register a handler `(state, args, ctx) -> ToolResult` under `name`."""

    def register(handler: Callable[..., ToolResult]) -> Callable[..., ToolResult]:
        _REGISTRY[name] = ToolSpec(name, args, handler, kind, json_output, prefix_key, before_args)
        return handler

    return register


def registry() -> dict[str, ToolSpec]:
    """Every registered tool, by name (all tool modules are imported on first use)."""
    global _LOADED
    if not _LOADED:
        from importlib import import_module

        for module in _MODULES:
            try:
                import_module(f"planner_cli.tools.{module}")
            except ModuleNotFoundError as exc:
                if exc.name != f"planner_cli.tools.{module}":
                    raise
        _LOADED = True
    return dict(sorted(_REGISTRY.items()))


def get_spec(name: str) -> ToolSpec | None:
    return registry().get(name)


def failure(
    spec: ToolSpec, state: ScheduleState, message: str, data: dict[str, Any] | None = None
) -> ToolResult:
    """A failed call: JSON tools answer `{"tool","success":false,"error"}`; state unchanged."""
    if spec.json_output:
        payload = {"tool": spec.name, "success": False, "error": message}
        return ToolResult(False, json.dumps(payload, ensure_ascii=False), state, data or payload)
    return ToolResult(False, message, state, data or {"error": message})


def parse_args(spec: ToolSpec, raw: dict[str, Any], lang: Lang) -> ToolArgs:
    """Validate raw arguments for `spec`; raise ToolFailure with the seed's texts."""
    prefix = spec.prefix(lang)
    if spec.strict:
        unknown = sorted(
            k.strip()
            for k in raw
            if isinstance(k, str) and k.strip() and k.strip() not in spec.args.model_fields
        )
        if unknown:
            key = "whitelist_day_from" if {"day_from", "day_to"} & set(unknown) else "whitelist"
            raise ToolFailure(prefix + t(lang, key, keys=t(lang, "list_sep").join(unknown)))
        raw = {k: v for k, v in raw.items() if not (isinstance(k, str) and not k.strip())}
    spec.args.precheck(raw, prefix, lang)
    try:
        return spec.args.model_validate(raw)
    except ValidationError as exc:
        errors = exc.errors()
        for name, info in spec.args.model_fields.items():
            if info.is_required() and any(
                e["type"] == "missing" and e["loc"] == (name,) for e in errors
            ):
                raise ToolFailure(t(lang, "missing_arg", prefix=prefix, name=name)) from None
        first = errors[0]
        where = ".".join(str(p) for p in first["loc"])
        detail = f"{where}: {first['msg']}" if where else str(first["msg"])
        raise ToolFailure(t(lang, "invalid_arg", prefix=prefix, detail=detail)) from None


def run_tool(
    name: str,
    state: ScheduleState,
    args: dict[str, Any] | ToolArgs | None = None,
    ctx: ToolContext | None = None,
) -> ToolResult:
    """Run one tool. Deterministic refusals are results (ok=False); bugs raise."""
    ctx = ctx or ToolContext()
    spec = get_spec(name)
    if spec is None:
        names = ", ".join(registry())
        return ToolResult(False, t(ctx.lang, "unknown_tool", name=name, names=names), state)
    if spec.before_args is not None and not isinstance(args, ToolArgs):
        early = spec.before_args(state, dict(args or {}), ctx)
        if isinstance(early, ToolResult):
            return early
        args = early
    try:
        parsed = (
            args if isinstance(args, ToolArgs) else parse_args(spec, dict(args or {}), ctx.lang)
        )
        return spec.handler(state, parsed, ctx)
    except ToolFailure as exc:
        return failure(spec, state, exc.text, exc.data)
