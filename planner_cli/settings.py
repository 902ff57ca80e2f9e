"""Settings: shipped defaults in configs/*.yaml, then a user config, then PLANNER_* variables.

Command-line options override the result (each command applies its own). Environment variables
address nested keys with double underscores: `PLANNER_SOLVER__TIME_LIMIT_S=5` sets
`solver.time_limit_s`; values are parsed as YAML scalars; an unknown section
(`PLANNER_SOLVR__…`) is a configuration error, like an unknown section in a settings file. `PLANNER_MODEL` is a shorthand for
`llm.model`. The planner home directory (sessions, caches) is `PLANNER_HOME`, else
`~/.planner`.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planner_cli.errors import ConfigError, InputError
from planner_cli.io.files import parse_text, read_data

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
SECTIONS = ("sections", "solver", "llm", "eval", "batch")


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _read_mapping(path: Path) -> dict[str, Any]:
    try:
        data = read_data(path)
    except InputError as exc:
        raise ConfigError(
            "; ".join(p.render(exc.file)[len("error: ") :] for p in exc.problems)
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a settings file must be a mapping")
    return data


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, raw in sorted(env.items()):
        if not name.startswith("PLANNER_") or name in ("PLANNER_HOME",):
            continue
        if name == "PLANNER_MODEL":
            out = _merge(out, {"llm": {"model": raw}})
            continue
        parts = name[len("PLANNER_") :].lower().split("__")
        if len(parts) < 2:
            continue
        if parts[0] not in SECTIONS:  # a typo would otherwise be silently ignored
            raise ConfigError(
                f"{name}: unknown settings section {parts[0]!r} (known: {', '.join(SECTIONS)})"
            )
        try:
            value = parse_text(raw, name, as_yaml=True)
        except InputError:
            value = raw
        node: dict[str, Any] = {}
        cursor = node
        for part in parts[:-1]:
            cursor = cursor.setdefault(part, {})
        cursor[parts[-1]] = value
        out = _merge(out, node)
    return out


def load_settings(
    config: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    config_dir: Path = CONFIG_DIR,
) -> dict[str, Any]:
    """Merged settings; every section of SECTIONS is present (possibly empty)."""
    settings: dict[str, Any] = {section: {} for section in SECTIONS}
    for section in SECTIONS:
        path = config_dir / f"{section}.yaml"
        if path.exists():
            settings[section] = _merge(settings[section], _read_mapping(path))
    if config is not None:
        user = _read_mapping(Path(config))
        unknown = sorted(set(user) - set(SECTIONS))
        if unknown:
            raise ConfigError(
                f"{config}: unknown settings section {unknown[0]!r} (known: {', '.join(SECTIONS)})"
            )
        settings = _merge(settings, user)
    return _merge(settings, _from_env(os.environ if env is None else env))


def planner_home(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    return Path(env.get("PLANNER_HOME") or Path.home() / ".planner")
