"""Run the real `planner` entry point in-process: exit code, stdout and stderr."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from planner_cli.cli import main

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def planner(capsys, monkeypatch, tmp_path):
    """`planner(*args)` → Result; PLANNER_HOME points at a temp dir."""
    monkeypatch.setenv("PLANNER_HOME", str(tmp_path / "home"))

    def run(*args: str) -> Result:
        capsys.readouterr()
        try:
            main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        else:  # pragma: no cover - main always exits
            code = 0
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run
