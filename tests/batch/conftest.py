"""Batch test helpers: small exports in a temp dir and a fake producer that logs its calls."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from planner_cli.batch import ItemOptions
from tests.helpers_export import export

CALL_LOG = "PLANNER_TEST_CALL_LOG"


def fake_produce(path: str, options: ItemOptions, settings: dict) -> tuple[dict[str, Any], int]:
    """A preview of the unchanged state; exit 3 when the export's user_id is odd. Logs the call."""
    from planner_cli.io.loader import load_any
    from planner_cli.io.preview import build_preview

    log = os.environ.get(CALL_LOG)
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(Path(path).stem + "\n")
    if os.environ.get("PLANNER_TEST_DIE_ON") == Path(path).stem:
        os._exit(9)  # a worker killed mid-item
    if os.environ.get("PLANNER_TEST_SLOW"):
        import time

        time.sleep(float(os.environ["PLANNER_TEST_SLOW"]))  # keeps a run busy long enough to kill
    loaded = load_any(path)
    pending = sum(1 for t in loaded.state.tasks if t.is_pending)
    code = 3 if loaded.export and loaded.export.user_id % 2 else 0
    preview = build_preview(
        loaded,
        loaded.state,
        settings={"now": options.now},
        metrics={"pending": pending},
        run={"outcome": "partial" if code else "completed"},
    )
    return preview, code


def write_exports(folder: Path, count: int, *, odd: bool = False) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"student{i:02d}.json"
        path.write_text(json.dumps(export(user_id=2 * i + (1 if odd else 2))), encoding="utf-8")
        paths.append(path)
    return paths


def calls(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").split() if log.exists() else []


@pytest.fixture
def call_log(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "calls.log"
    monkeypatch.setenv(CALL_LOG, str(path))
    return path


from tests.cli.conftest import planner  # noqa: E402, F401  (the in-process CLI runner)
