"""Shared helpers of the hardening suite: an in-process `planner` runner usable inside hypothesis
examples (no function-scoped fixtures), document writers and the "clean outcome" checks."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner_cli.cli import app, main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
CLEAN_CODES = {0, 1, 2, 3, 4}
DEEP = "__DEEP_NESTING__"  # replaced by a deeply nested list when a document is written


@dataclass
class Run:
    code: int
    out: str
    err: str


def run_cli(*args: Any, env: dict[str, str] | None = None) -> Run:
    """Run the real entry point in-process with captured stdout/stderr and extra environment."""
    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in env or {}}
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main([str(a) for a in args])
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return Run(code, out.getvalue(), err.getvalue())


def has_command(name: str) -> bool:
    """Whether `planner NAME` exists yet (layout and plan land with other work)."""
    names = {c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands}
    return name in names


def write_doc(path: Path, data: Any, fmt: str, deep: int = 0, ascii_only: bool = False) -> Path:
    """Write `data` as JSON (NaN allowed, as a careless exporter would; `ascii_only` escapes
    non-ASCII, so a lone surrogate becomes a `\\ud800` escape) or YAML; a DEEP marker string
    becomes a list nested `deep` levels."""
    if fmt == "json":
        text = json.dumps(data, ensure_ascii=ascii_only, allow_nan=True)
        marker = json.dumps(DEEP)
    else:
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
        marker = DEEP
    if deep:
        text = text.replace(marker, "[" * deep + "]" * deep)
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return path


def assert_clean(result: Run, outputs: list[Path] = ()) -> None:  # type: ignore[assignment]
    """The product's promise for any input: a known exit code, `error:` lines instead of a
    traceback, no internal error, and no partial output."""
    assert result.code in CLEAN_CODES, (result.code, result.err[-2000:])
    assert "Traceback" not in result.err and "Traceback" not in result.out
    assert "internal error" not in result.err, result.err[-2000:]
    for out in outputs:
        if result.code == 1:
            assert not out.exists(), f"exit 1 but {out.name} was written"
        elif out.exists():
            check = run_cli("validate", out)
            assert check.code == 0, check.err[-2000:]
    for out in outputs:
        leftovers = [p.name for p in out.parent.glob(f".{out.name}.*.tmp")]
        assert not leftovers, f"temp files left behind: {leftovers}"


def python_cmd(*args: str) -> list[str]:
    return [sys.executable, *args]


def spawn(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(args, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def home(tmp_path, monkeypatch):
    """PLANNER_HOME in a temp dir, and no LLM settings leaking in from the developer's shell."""
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PLANNER_MODEL", "PLANNER_STORE"):
        monkeypatch.delenv(key, raising=False)
    path = tmp_path / "home"
    monkeypatch.setenv("PLANNER_HOME", str(path))
    # small solver budgets keep every rough layout of the suite well under a second
    monkeypatch.setenv("PLANNER_SOLVER__TIME_LIMIT_S", "2")
    monkeypatch.setenv("PLANNER_SOLVER__MAX_DETERMINISTIC_TIME", "0.3")
    return path
