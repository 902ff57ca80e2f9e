"""Batch mechanics with a fake producer: names, discovery, journal, skip, resume, lock, summary."""

from __future__ import annotations

import fcntl
import functools
import io
import json
from pathlib import Path

import pytest

from planner_cli.batch import (
    JOURNAL_NAME,
    LOCK_NAME,
    ItemOptions,
    Journal,
    Progress,
    assign_names,
    discover,
    process_item,
    run_batch,
    safe_stem,
    settings_hash,
    worst_code,
)
from planner_cli.errors import LockError
from tests.batch.conftest import calls, fake_produce, write_exports
from tests.helpers_export import export

RUNNER = functools.partial(process_item, produce=fake_produce)
QUIET = io.StringIO


def run(inputs, out, *, workers=1, options=None, **kw):
    return run_batch(
        [str(i) for i in inputs],
        out,
        options or ItemOptions(),
        {},
        workers=workers,
        runner=RUNNER,
        progress=Progress(0, QUIET(), tty=False),
        **kw,
    )


def done_records(out: Path) -> list[dict]:
    return [r for r in Journal(out).read() if r.get("event") == "done"]


# -- names ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("exports/alice.yaml", "alice"),
        ("张三.json", "张三"),
        ("../../etc/passwd.yaml", "passwd"),
        ("..yaml", "item"),
        ("...", "item"),
        ("a b;rm -rf.json", "a_b_rm_-rf"),
        ("-rf.yaml", "rf"),
        ("back\\slash.yaml", "back_slash"),
    ],
)
def test_safe_stem_never_leaves_the_directory(path, name):
    assert safe_stem(path) == name
    assert "/" not in name and not name.startswith(".")


def test_colliding_names_are_numbered_in_input_order_ignoring_case():
    paths = ["a/alice.yaml", "b/alice.json", "c/ALICE.yml", "alice-2.yaml", "bob.yaml"]
    assert assign_names(paths) == ["alice", "alice-2", "ALICE-3", "alice-2-2", "bob"]


def test_distinct_names_stay_as_they_are():
    assert assign_names(["x/a.yaml", "x/b.yaml"]) == ["a", "b"]


# -- discovery --------------------------------------------------------------------------------


def test_discover_directories_globs_and_missing_paths(tmp_path):
    root = tmp_path / "in"
    write_exports(root / "sub", 2)
    (root / "top.yaml").write_text("kind: smartflow-export\n", encoding="utf-8")
    (root / "notes.txt").write_text("not an export", encoding="utf-8")
    (root / ".hidden.yaml").write_text("{}", encoding="utf-8")
    (root / "old.preview.json").write_text("{}", encoding="utf-8")
    out = root / "out"
    write_exports(out, 1)  # our own output directory is never an input
    paths, warnings = discover(
        [str(root), str(root / "sub" / "*.json"), str(tmp_path / "nope.yaml"), "zzz/*.yaml"],
        out,
    )
    rel = [Path(p).relative_to(tmp_path).as_posix() if Path(p).is_absolute() else p for p in paths]
    assert rel == [
        "in/sub/student00.json",
        "in/sub/student01.json",
        "in/top.yaml",
        "nope.yaml",
    ]
    assert warnings == ["warning: zzz/*.yaml: no file matches this pattern"]


# -- exit codes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("codes", "worst"),
    [([], 0), ([0, 0], 0), ([0, 3], 3), ([3, 4, 0], 4), ([4, 1, 3], 1), ([0, 7], 1)],
)
def test_worst_code_orders_0_3_4_1(codes, worst):
    assert worst_code(codes) == worst


# -- journal, skip, resume ----------------------------------------------------------------------


def test_rerun_skips_unchanged_items_and_keeps_previews(tmp_path, call_log):
    inputs = write_exports(tmp_path / "in", 3)
    out = tmp_path / "out"
    first = run([tmp_path / "in"], out)
    assert first.exit_code == 0 and sorted(calls(call_log)) == [
        "student00",
        "student01",
        "student02",
    ]
    before = {p.name: p.read_bytes() for p in out.glob("*.preview.json")}
    assert sorted(before) == [f"student0{i}.preview.json" for i in range(3)]

    call_log.unlink()
    second = run([tmp_path / "in"], out)
    assert calls(call_log) == []
    assert all(item.skipped for item in second.items) and second.exit_code == 0
    assert {p.name: p.read_bytes() for p in out.glob("*.preview.json")} == before
    assert len(done_records(out)) == 3  # compacted: one line per item

    inputs[1].write_text(json.dumps(export(user_id=100)), encoding="utf-8")
    run([tmp_path / "in"], out)
    assert calls(call_log) == ["student01"]


def test_changed_settings_or_a_tampered_preview_redo_items(tmp_path, call_log):
    write_exports(tmp_path / "in", 2)
    out = tmp_path / "out"
    run([tmp_path / "in"], out)
    call_log.unlink()
    run([tmp_path / "in"], out, options=ItemOptions(now="5:3"))
    assert sorted(calls(call_log)) == ["student00", "student01"]
    call_log.unlink()
    preview = out / "student00.preview.json"
    preview.write_text(preview.read_text(encoding="utf-8") + " ", encoding="utf-8")
    (out / "student01.preview.json").unlink()
    run([tmp_path / "in"], out, options=ItemOptions(now="5:3"))
    assert sorted(calls(call_log)) == ["student00", "student01"]
    call_log.unlink()
    run([tmp_path / "in"], out, options=ItemOptions(now="5:3"), force=True)
    assert sorted(calls(call_log)) == ["student00", "student01"]


def test_settings_hash_depends_on_options_settings_and_plan_content(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text("{}", encoding="utf-8")
    base = settings_hash(ItemOptions(plan_file=str(plan)), {"solver": {"seed": 0}})
    assert base == settings_hash(ItemOptions(plan_file=str(plan)), {"solver": {"seed": 0}})
    assert base != settings_hash(ItemOptions(plan_file=str(plan)), {"solver": {"seed": 1}})
    assert base != settings_hash(
        ItemOptions(plan_file=str(plan), now="5:3"), {"solver": {"seed": 0}}
    )
    # worker counts are not settings: they never change a preview
    assert base == settings_hash(
        ItemOptions(plan_file=str(plan)), {"solver": {"seed": 0}, "batch": {"workers": 8}}
    )
    plan.write_text('{"steps": []}', encoding="utf-8")
    assert base != settings_hash(ItemOptions(plan_file=str(plan)), {"solver": {"seed": 0}})


def test_a_killed_worker_loses_nothing_and_the_rerun_does_only_what_is_left(
    tmp_path, call_log, monkeypatch
):
    write_exports(tmp_path / "in", 6)
    out = tmp_path / "out"
    monkeypatch.setenv("PLANNER_TEST_DIE_ON", "student03")
    crashed = run([tmp_path / "in"], out, workers=2)
    assert crashed.exit_code == 1
    died = [i for i in crashed.items if i.exit_code == 1]
    assert died and all("worker process died" in i.message for i in died)
    finished = {r["name"] for r in done_records(out) if r["preview_sha256"]}
    assert "student03" not in finished
    for name in finished:  # a journal line only after its preview is in place
        assert (out / f"{name}.preview.json").is_file()

    monkeypatch.delenv("PLANNER_TEST_DIE_ON")
    call_log.unlink()
    resumed = run([tmp_path / "in"], out, workers=2)
    assert resumed.exit_code == 0
    redone = calls(call_log)
    assert sorted(redone) == sorted({f"student0{i}" for i in range(6)} - finished)
    assert len(redone) == len(set(redone))
    final = Journal(out).completed()  # the latest record per item
    assert sorted(final) == [f"student0{i}" for i in range(6)]
    assert all(r["exit_code"] == 0 and r["preview_sha256"] for r in final.values())


def test_a_crash_between_preview_and_journal_line_redoes_the_item_once(tmp_path, call_log):
    write_exports(tmp_path / "in", 2)
    out = tmp_path / "out"
    run([tmp_path / "in"], out)
    journal = out / JOURNAL_NAME
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if '"student01"' not in line]
    torn = next(line for line in lines if '"student01"' in line)[:40]  # half-written line
    journal.write_text("".join(kept) + torn, encoding="utf-8")
    preview_before = (out / "student01.preview.json").read_bytes()
    call_log.unlink()

    run([tmp_path / "in"], out)
    assert calls(call_log) == ["student01"]
    assert (out / "student01.preview.json").read_bytes() == preview_before
    assert sorted(r["name"] for r in done_records(out)) == ["student00", "student01"]
    for line in journal.read_text(encoding="utf-8").splitlines():
        json.loads(line)  # the torn line was dropped by compaction, nothing glued to it


def test_journal_append_starts_a_new_line_after_a_torn_one(tmp_path):
    (tmp_path / JOURNAL_NAME).write_text('{"event": "done", "na', encoding="utf-8")
    journal = Journal(tmp_path)
    journal.append({"event": "done", "name": "x"})
    journal.close()
    assert [r["name"] for r in journal.read()] == ["x"]


# -- lock -------------------------------------------------------------------------------------


def test_a_held_lock_refuses_at_once_and_writes_nothing(tmp_path, call_log):
    write_exports(tmp_path / "in", 1)
    out = tmp_path / "out"
    out.mkdir()
    with open(out / LOCK_NAME, "w") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(LockError) as info:
            run([tmp_path / "in"], out)
    assert info.value.exit_code == 75
    assert "another planner batch run is active" in str(info.value)
    assert calls(call_log) == [] and not list(out.glob("*.preview.json"))
    assert run([tmp_path / "in"], out).exit_code == 0  # released → runs


# -- outcomes, summary, progress -----------------------------------------------------------------


def test_invalid_inputs_fail_as_items_and_the_batch_exits_with_the_worst(tmp_path):
    write_exports(tmp_path / "in", 2, odd=True)  # exit 3 each
    (tmp_path / "in" / "broken.yaml").write_text("kind: [", encoding="utf-8")
    out = tmp_path / "out"
    report = run([tmp_path / "in", tmp_path / "missing.json"], out)
    by_name = {i.name: i for i in report.items}
    assert by_name["student00"].exit_code == 3 and by_name["student00"].outcome == "partial"
    assert by_name["broken"].exit_code == 1 and "invalid YAML" in by_name["broken"].message
    assert by_name["missing"].message.endswith("missing.json: file not found")
    assert report.exit_code == 1
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["outcomes"] == {"error": 2, "partial": 2}
    assert summary["exit_code"] == 1
    assert [f["name"] for f in summary["failures"]] == [
        "broken",
        "student00",
        "student01",
        "missing",
    ]
    assert [i["name"] for i in summary["items"]] == ["broken", "student00", "student01", "missing"]
    assert not (out / "broken.preview.json").exists()
    text = report.text()
    assert "failures:" in text and "broken (exit 1, error):" in text


def test_only_partial_items_exit_3(tmp_path):
    write_exports(tmp_path / "in", 1, odd=True)
    write_exports(tmp_path / "in2", 1)
    assert run([tmp_path / "in", tmp_path / "in2"], tmp_path / "out").exit_code == 3
    assert run([tmp_path / "in2"], tmp_path / "out2").exit_code == 0


def test_progress_is_a_bar_on_a_terminal_and_lines_otherwise(tmp_path):
    write_exports(tmp_path / "in", 2)
    plain, bar = io.StringIO(), io.StringIO()
    run_batch(
        [str(tmp_path / "in")],
        tmp_path / "o1",
        ItemOptions(),
        {},
        runner=RUNNER,
        progress=Progress(2, plain, tty=False),
    )
    run_batch(
        [str(tmp_path / "in")],
        tmp_path / "o2",
        ItemOptions(),
        {},
        runner=RUNNER,
        progress=Progress(2, bar, tty=True),
    )
    assert plain.getvalue().splitlines() == [
        "[1/2] student00: completed (exit 0)",
        "[2/2] student01: completed (exit 0)",
    ]
    assert "\r\033[K[" in bar.getvalue() and "2/2" in bar.getvalue() and "\n" not in bar.getvalue()


def test_workers_1_and_2_give_identical_previews(tmp_path):
    write_exports(tmp_path / "in", 4, odd=True)
    one = run([tmp_path / "in"], tmp_path / "w1", workers=1)
    two = run([tmp_path / "in"], tmp_path / "w2", workers=2)
    assert [i.name for i in one.items] == [i.name for i in two.items]
    for item in one.items:
        name = f"{item.name}.preview.json"
        assert (tmp_path / "w1" / name).read_bytes() == (tmp_path / "w2" / name).read_bytes()


def test_a_live_endpoint_is_part_of_the_settings_hash_but_not_its_key(monkeypatch):
    live = ItemOptions(instruction="周末空出来", llm="openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://a.example/v1")
    first = settings_hash(live, {})
    monkeypatch.setenv("OPENAI_BASE_URL", "http://b.example/v1")
    other = settings_hash(live, {})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-one")
    with_key = settings_hash(live, {})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-two")
    assert len({first, other, with_key}) == 3
    assert settings_hash(live, {}) == with_key
    # a layout-only run does not depend on the endpoint
    layout = settings_hash(ItemOptions(), {})
    monkeypatch.setenv("OPENAI_BASE_URL", "http://c.example/v1")
    assert settings_hash(ItemOptions(), {}) == layout


KILLABLE_RUN = """
import functools, io, sys
from planner_cli.batch import ItemOptions, Progress, process_item, run_batch
from tests.batch.conftest import fake_produce
run_batch([sys.argv[1]], sys.argv[2], ItemOptions(), {}, workers=1,
          runner=functools.partial(process_item, produce=fake_produce),
          progress=Progress(0, io.StringIO(), tty=False))
"""


def test_a_killed_batch_process_resumes_without_losing_or_duplicating(tmp_path, call_log):
    import os
    import signal
    import subprocess
    import sys
    import time

    write_exports(tmp_path / "in", 12)
    out = tmp_path / "out"
    env = {**os.environ, "PLANNER_TEST_SLOW": "0.2"}
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLABLE_RUN, str(tmp_path / "in"), str(out)], cwd=root, env=env
    )
    deadline = time.monotonic() + 60  # a safety net for a stuck child, not a timing assertion
    while len(done_records(out)) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = {r["name"] for r in done_records(out)}
    assert 3 <= len(finished) < 12, "the run must be killed in the middle"
    for name in finished:
        assert (out / f"{name}.preview.json").is_file()
    before = calls(call_log)

    resumed = run([tmp_path / "in"], out)  # the dead run's lock does not block (flock)
    assert resumed.exit_code == 0
    redone = calls(call_log)[len(before) :]
    assert sorted(redone) == sorted({f"student{i:02d}" for i in range(12)} - finished)
    assert sorted(Journal(out).completed()) == [f"student{i:02d}" for i in range(12)]
