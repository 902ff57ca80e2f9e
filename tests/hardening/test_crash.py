"""Crash safety: `python -m planner_cli` killed with SIGKILL during `apply`, `batch` and session
writes never leaves a corrupted export, preview, journal or store, and a rerun recovers.

Kill points are deterministic where it matters: a small start-up hook replaces `os.replace` in
the child so that the K-th rename announces itself (a marker file) and sleeps, just before or
just after it happens; the test then sends SIGKILL. A few kills after a seeded random delay
cover the points in between. Reruns happen in-process (fast) unless they must be separate.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.hardening.conftest import run_cli, write_doc
from tests.helpers_export import export
from tests.store.conftest import redis_url  # noqa: F401  (a real redis-server, or a skip)

HOOK = r"""
import os, runpy, sys, time
at, when, mark = int(os.environ["CRASH_AT"]), os.environ["CRASH_WHEN"], os.environ["CRASH_MARK"]
real, calls = os.replace, [0]

def announce(dst):
    with open(mark, "w") as fh:
        fh.write(str(dst))
    time.sleep(120)

def replace(src, dst, *args, **kwargs):
    calls[0] += 1
    if calls[0] == at and when == "before":
        announce(dst)
    real(src, dst, *args, **kwargs)
    if calls[0] == at and when == "after":
        announce(dst)

os.replace = replace
sys.argv = ["planner", *sys.argv[1:]]
runpy.run_module("planner_cli", run_name="__main__", alter_sys=True)
"""
WAIT_S = 60.0  # upper bound for a child to reach its kill point (imports on a busy machine)


def child_env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "PLANNER_")) and k != "PYTHONPATH"
    }
    env.update(
        PLANNER_HOME=str(home),
        PLANNER_SOLVER__TIME_LIMIT_S="2",
        PLANNER_SOLVER__MAX_DETERMINISTIC_TIME="0.3",
        **extra,
    )
    return env


def kill_at_rename(args: list[Any], tmp: Path, at: int, when: str, cwd: Path) -> tuple[bool, str]:
    """Run `planner ARGS` in a child; SIGKILL it at the `at`-th os.replace (before/after).
    Returns (killed, the rename target) — killed False when the run ended first."""
    mark = tmp / f"crash-{at}-{when}.mark"
    env = child_env(tmp / "home", CRASH_AT=str(at), CRASH_WHEN=when, CRASH_MARK=str(mark))
    proc = subprocess.Popen(
        [sys.executable, "-c", HOOK, *map(str, args)],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            if mark.exists() and mark.read_text():
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=10)
                return True, mark.read_text()
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                assert "Traceback" not in err, err
                return False, ""
            time.sleep(0.01)
        raise AssertionError("the child never reached its kill point")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stderr:
            proc.stderr.close()


def kill_after(args: list[Any], tmp: Path, delay_s: float, cwd: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "planner_cli", *map(str, args)],
        env=child_env(tmp / "home"),
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        proc.wait(timeout=delay_s)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- apply ----------------------------------------------------------------------------------------


@pytest.fixture
def apply_case(tmp_path, home):
    """An export, a preview of one placement, and the export as a clean apply writes it."""
    src = write_doc(tmp_path / "alice.json", export(), "json")
    preview = tmp_path / "alice.preview.json"
    made = run_cli("tool", src, "place", '{"task_id": 7, "day": 6, "slot_start": 1}', "-o", preview)
    assert made.code == 0, made.err
    clean = tmp_path / "clean"
    clean.mkdir()
    shutil.copy(src, clean / "alice.json")
    done = run_cli("apply", preview, "--export", clean / "alice.json")
    assert done.code == 0, done.err
    return src, preview, src.read_bytes(), (clean / "alice.json").read_bytes()


# in place: rename 1 writes alice.json.bak, rename 2 replaces alice.json
@pytest.mark.parametrize(("at", "when"), [(1, "before"), (1, "after"), (2, "before"), (2, "after")])
def test_apply_killed_at_each_rename(apply_case, tmp_path, at, when):
    src, preview, old, new = apply_case
    killed, target = kill_at_rename(
        ["apply", preview, "--export", src], tmp_path, at, when, tmp_path
    )
    assert killed
    current = src.read_bytes()
    assert current in (old, new), "the export is torn"
    backup = Path(f"{src}.bak")
    assert not backup.exists() or backup.read_bytes() == old
    assert run_cli("validate", src).code == 0
    rerun = run_cli("apply", preview, "--export", src)
    if current == old:  # the first run died before the export changed: apply again works
        assert rerun.code == 0, rerun.err
        assert src.read_bytes() == new
    else:  # it had finished the export: the rerun refuses a stale preview and changes nothing
        assert rerun.code == 5, rerun.err
        assert src.read_bytes() == new
    leftovers = sorted(p.name for p in tmp_path.glob(".alice.json.*.tmp"))
    assert len(leftovers) <= 1  # at most the killed run's own temp file, never read


@pytest.mark.parametrize("seed", range(3))
def test_apply_killed_at_a_random_moment(apply_case, tmp_path, seed):
    src, preview, old, new = apply_case
    kill_after(
        ["apply", preview, "--export", src],
        tmp_path,
        random.Random(seed).uniform(0.05, 1.5),
        tmp_path,
    )
    assert src.read_bytes() in (old, new)
    rerun = run_cli("apply", preview, "--export", src)
    assert rerun.code in (0, 5) and src.read_bytes() == new


# -- batch ------------------------------------------------------------------------------------------

NAMES = ("ann", "bob", "cat")


@pytest.fixture
def batch_case(tmp_path, home):
    inputs = tmp_path / "in"
    inputs.mkdir()
    for n, name in enumerate(NAMES):
        data = export(user_id=n + 1)
        write_doc(inputs / f"{name}.json", data, "json")
    clean = tmp_path / "clean"
    ran = run_cli("batch", inputs, "--out", clean, "--workers", "1", "--solver", "greedy")
    assert ran.code in (0, 3), ran.err
    previews = {name: (clean / f"{name}.preview.json").read_bytes() for name in NAMES}
    return inputs, previews, ran.code


def check_batch_dir(out: Path, previews: dict[str, bytes]) -> None:
    """Every preview present is whole (byte-identical to the clean run's); journal lines parse
    except possibly a torn last one."""
    for name, clean in previews.items():
        path = out / f"{name}.preview.json"
        if path.exists():
            assert path.read_bytes() == clean, f"{path.name} differs from a clean run"


def rerun_batch(inputs: Path, out: Path, previews: dict[str, bytes], code: int) -> dict[str, Any]:
    again = run_cli("batch", inputs, "--out", out, "--workers", "1", "--solver", "greedy")
    assert again.code == code, again.err
    for name, clean in previews.items():
        assert (out / f"{name}.preview.json").read_bytes() == clean
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    # nothing lost, nothing to redo: a third run skips every item and compacts the journal
    third = run_cli("batch", inputs, "--out", out, "--workers", "1", "--solver", "greedy")
    assert third.code == code, third.err
    settled = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert settled["skipped"] == len(NAMES) and settled["ran"] == 0
    done = [
        json.loads(line)
        for line in (out / "journal.jsonl").read_text(encoding="utf-8").splitlines()
        if '"event": "done"' in line
    ]
    assert sorted(r["name"] for r in done) == sorted(NAMES)  # one record each
    for record in done:
        assert record["preview_sha256"] == sha(out / f"{record['name']}.preview.json")
    return summary


# fresh OUT: renames 1-3 are the previews (one per item, in order), 4 is summary.json
@pytest.mark.parametrize(
    ("at", "when"), [(1, "before"), (1, "after"), (2, "after"), (3, "before"), (4, "before")]
)
def test_batch_killed_at_each_rename_resumes(batch_case, tmp_path, at, when):
    inputs, previews, code = batch_case
    out = tmp_path / "out"
    killed, _ = kill_at_rename(
        ["batch", inputs, "--out", out, "--workers", "1", "--solver", "greedy"],
        tmp_path,
        at,
        when,
        tmp_path,
    )
    assert killed
    check_batch_dir(out, previews)
    journal = (
        (out / "journal.jsonl").read_text(encoding="utf-8")
        if (out / "journal.jsonl").exists()
        else ""
    )
    recorded = {json.loads(line)["name"] for line in journal.splitlines() if '"done"' in line}
    summary = rerun_batch(inputs, out, previews, code)
    # resumed: items recorded as done before the kill are skipped, the others redone once
    assert summary["skipped"] == len(recorded) and summary["ran"] == len(NAMES) - len(recorded)


@pytest.mark.parametrize("seed", range(2))
def test_batch_killed_at_a_random_moment_resumes(batch_case, tmp_path, seed):
    inputs, previews, code = batch_case
    out = tmp_path / "out"
    kill_after(
        ["batch", inputs, "--out", out, "--workers", "1", "--solver", "greedy"],
        tmp_path,
        random.Random(seed).uniform(0.5, 3.0),
        tmp_path,
    )
    check_batch_dir(out, previews) if out.exists() else None
    rerun_batch(inputs, out, previews, code)


def test_torn_journal_line_is_ignored_on_rerun(batch_case, tmp_path):
    inputs, previews, code = batch_case
    out = tmp_path / "out"
    assert (
        run_cli("batch", inputs, "--out", out, "--workers", "1", "--solver", "greedy").code == code
    )
    with (out / "journal.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"event": "done", "name": "ann", "input_sha')  # a crash mid-append
    summary = rerun_batch(inputs, out, previews, code)
    assert summary["skipped"] == len(NAMES)


# -- sessions -----------------------------------------------------------------------------------

SAVER = r"""
import os, sys
from planner_cli.io.loader import load_any
from planner_cli.store import open_store
from planner_cli.store.base import Snapshot, Turn, Conversation
state = load_any(sys.argv[2]).state
store = open_store(sys.argv[1])
n = 0
while True:
    n += 1
    turns = [Turn(instruction=f"turn {i} " + "x" * 2000) for i in range(n % 50)]
    snap = Snapshot(runtime={"n": n}, conversation=Conversation(turns=turns), state=state,
                    original_state=state)
    store.save(f"s{n % 3}", snap)
    if n == 3:
        open(sys.argv[3], "w").write("saving")
"""


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request, home):  # type: ignore[no-untyped-def]
    """A session store URL of each backend: a SQLite file, or a fresh database of a real
    redis-server (skipped, with the reason, when redis-server is not installed)."""
    if request.param == "sqlite":
        return f"sqlite:///{home / 'sessions.sqlite3'}"
    import redis

    url = request.getfixturevalue("redis_url")
    redis.Redis.from_url(url).flushdb()
    return url


@pytest.mark.parametrize("seed", range(3))
def test_session_store_killed_mid_save_still_opens_and_loads(home, tmp_path, seed, store_url):
    src = write_doc(tmp_path / "e.json", export(), "json")
    mark = tmp_path / "saving.mark"
    proc = subprocess.Popen(
        [sys.executable, "-c", SAVER, store_url, str(src), str(mark)],
        env=child_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + WAIT_S
        while not mark.exists():
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(random.Random(seed).uniform(0.0, 0.5))  # somewhere inside the save loop
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stderr:
            proc.stderr.close()

    from planner_cli.store import open_store

    if store_url.startswith("sqlite:"):
        with sqlite3.connect(store_url[len("sqlite:///") :]) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with open_store(store_url) as store:
        infos = store.list()
        assert {i.session_id for i in infos} <= {"s0", "s1", "s2"} and infos
        for info in infos:
            snapshot = store.load(info.session_id)
            assert snapshot is not None and snapshot.state is not None
            assert snapshot.runtime["n"] % 3 == int(info.session_id[1:])
        store.save("after-crash", snapshot)  # the store is writable again
    listed = run_cli("session", "list", "--store", store_url)
    assert listed.code == 0 and "after-crash" in listed.out, listed.err


@pytest.mark.parametrize("when", ["before", "after"])
def test_plan_with_session_killed_around_its_preview_resumes(home, tmp_path, when):
    """Rename 1 of `plan -o P --session S` is the preview; the session is saved after it. A kill
    before or after leaves the store as it was after the last finished turn."""
    src = write_doc(tmp_path / "e.json", export(), "json")
    plan = write_doc(
        tmp_path / "plan.json",
        {
            "kind": "schedule-plan",
            "version": 1,
            "goal": "look",
            "steps": [{"id": "s1", "tool": "get_overview", "args": {}}],
        },
        "json",
    )
    out = tmp_path / "p.json"
    args = ["plan", src, "看看", "-o", out, "--plan-file", plan, "--session", "s1"]
    first = run_cli(*args)
    assert first.code in (0, 3), first.err
    out.unlink()
    killed, _ = kill_at_rename(args, tmp_path, 1, when, tmp_path)
    assert killed
    assert out.exists() == (when == "after")
    assert not out.exists() or run_cli("validate", out).code == 0  # whole, never torn

    from planner_cli.store.sqlite import SQLiteStore

    with SQLiteStore(home / "sessions.sqlite3") as store:
        snapshot = store.load("s1")
    assert snapshot is not None and len(snapshot.conversation.turns) == 1
    again = run_cli(*args)
    assert again.code == first.code, again.err
    with SQLiteStore(home / "sessions.sqlite3") as store:
        snapshot = store.load("s1")
    assert snapshot is not None and len(snapshot.conversation.turns) == 2


WORKER_HOOK = r"""
import os, runpy, signal, sys
import planner_cli.batch as batch
real = batch._layout_preview

def dying(loaded, *args, **kwargs):
    if os.environ["CRASH_ITEM"] in loaded.path:
        os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer would
    return real(loaded, *args, **kwargs)

batch._layout_preview = dying
sys.argv = ["planner", *sys.argv[1:]]
runpy.run_module("planner_cli", run_name="__main__", alter_sys=True)
"""


def test_batch_worker_killed_is_one_failed_item_and_a_rerun_recovers(batch_case, tmp_path):
    inputs, previews, code = batch_case
    out = tmp_path / "out"
    args = ["batch", inputs, "--out", out, "--workers", "2", "--solver", "greedy"]
    proc = subprocess.run(
        [sys.executable, "-c", WORKER_HOOK, *map(str, args)],
        env=child_env(tmp_path / "home", CRASH_ITEM="bob"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    died = {f["name"] for f in summary["failures"] if "worker process died" in f["message"]}
    assert "bob" in died  # items in flight with it may be reported the same way
    check_batch_dir(out, previews)
    again = rerun_batch(inputs, out, previews, code)
    assert again["ran"] == len(died)  # only the lost items are redone
