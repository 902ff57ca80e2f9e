"""Message catalogues: every user-visible tool text, in `zh` (the seed's wording) and `en`.

Each module of this package holds `MESSAGES = {key: {"zh": ..., "en": ...}}` for one group of
tools; keys are unique across modules. Texts are `str.format` templates.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any, Literal

Lang = Literal["zh", "en"]

_MODULES = ("common", "read", "write", "queue", "analyze", "layout", "spread")
_CATALOGUE: dict[str, dict[str, str]] | None = None


def _catalogue() -> dict[str, dict[str, str]]:
    global _CATALOGUE
    if _CATALOGUE is None:
        merged: dict[str, dict[str, str]] = {}
        for name in _MODULES:
            try:
                module = import_module(f"{__name__}.{name}")
            except ModuleNotFoundError:
                continue
            for key, texts in module.MESSAGES.items():
                if key in merged:
                    raise RuntimeError(f"duplicate message key {key!r} in messages.{name}")
                merged[key] = texts
        _CATALOGUE = merged
    return _CATALOGUE


def t(lang: Lang, key: str, **values: Any) -> str:
    """The text `key` in `lang`, formatted with `values`."""
    return _catalogue()[key][lang].format(**values)
