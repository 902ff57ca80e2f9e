"""Eval test helpers: suites written into a temp dir, previews made with the greedy layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.conftest import FIXTURES, planner  # noqa: F401  (the in-process CLI runner)

EXPORTS = FIXTURES / "exports"


def write_suite(
    folder: Path, cases: list[dict[str, Any]], name: str = "suite.yaml", **defaults: Any
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    document = {
        "kind": "planner-eval-suite",
        "version": 1,
        "name": "test",
        "defaults": {"solver": "greedy", **defaults},
        "cases": cases,
    }
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def suite_dir(tmp_path) -> Path:
    return tmp_path / "suite"
