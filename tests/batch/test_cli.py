"""`planner batch` end to end (real loader and greedy layout): outputs, exit codes, executors."""

from __future__ import annotations

import fcntl
import json
import shutil
from pathlib import Path

import pytest

from planner_cli.batch import LOCK_NAME
from tests.cli.conftest import FIXTURES

EXPORTS = FIXTURES / "exports"
FAST = ("--solver", "greedy")


def previews(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.preview.json"))}


@pytest.fixture
def inputs(tmp_path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("tiny.yaml", "week.json", "seed13.yaml"):
        shutil.copy(EXPORTS / name, folder / name)
    return folder


def test_batch_writes_one_preview_per_export_and_a_summary(planner, inputs, tmp_path):
    out = tmp_path / "out"
    result = planner("batch", inputs, "--out", out, "--workers", "1", *FAST)
    assert result.code == 0, result.err
    assert sorted(previews(out)) == [
        "seed13.preview.json",
        "tiny.preview.json",
        "week.preview.json",
    ]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["total"] == 3 and summary["exit_code"] == 0 and summary["failures"] == []
    assert "batch: 3 item(s)" in result.out and "exit 0" in result.out
    assert result.err.count("] ") == 3  # plain progress lines off a terminal
    preview = json.loads((out / "tiny.preview.json").read_text(encoding="utf-8"))
    assert preview["kind"] == "schedule-preview" and preview["input"]["path"].endswith("tiny.yaml")
    assert "duration_s" not in json.dumps(preview)  # wall clock stays out of previews

    again = planner("batch", inputs, "--out", out, "--workers", "1", *FAST, "--json")
    assert again.code == 0
    assert json.loads(again.out)["skipped"] == 3


def test_same_previews_with_1_and_2_workers(planner, inputs, tmp_path):
    one = planner("batch", inputs, "--out", tmp_path / "w1", "--workers", "1", *FAST)
    two = planner("batch", inputs, "--out", tmp_path / "w2", "--workers", "2", *FAST)
    assert one.code == two.code == 0
    assert previews(tmp_path / "w1") == previews(tmp_path / "w2")
    assert len(previews(tmp_path / "w1")) == 3


@pytest.mark.parametrize("processes", [False, True])
def test_same_previews_on_a_dask_cluster(planner, inputs, tmp_path, processes):
    distributed = pytest.importorskip("distributed")
    local = planner("batch", inputs, "--out", tmp_path / "local", "--workers", "1", *FAST)
    with distributed.LocalCluster(
        processes=processes,
        n_workers=1,
        host="127.0.0.1",
        protocol="tcp",
        dashboard_address=None,
    ) as cluster:
        remote = planner(
            "batch", inputs, "--out", tmp_path / "dask", "--dask", cluster.scheduler_address, *FAST
        )
    assert local.code == remote.code == 0, remote.err
    assert previews(tmp_path / "local") == previews(tmp_path / "dask")


def test_unreachable_dask_scheduler_is_a_clean_error(planner, inputs, tmp_path, monkeypatch):
    monkeypatch.setenv("PLANNER_BATCH__DASK_TIMEOUT_S", "0.5")
    result = planner("batch", inputs, "--out", tmp_path / "o", "--dask", "tcp://127.0.0.1:9", *FAST)
    assert result.code == 1
    assert result.err.startswith("error: --dask tcp://127.0.0.1:9: cannot reach the scheduler")
    assert "Traceback" not in result.err


def test_a_second_run_exits_75_while_the_lock_is_held(planner, inputs, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with open(out / LOCK_NAME, "w") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = planner("batch", inputs, "--out", out, *FAST)
    assert result.code == 75
    assert "another planner batch run is active" in result.err
    assert previews(out) == {} and not (out / "summary.json").exists()


def test_names_stay_inside_out_and_collisions_are_numbered(planner, tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copy(EXPORTS / "tiny.yaml", tmp_path / folder / "tiny.yaml")
    shutil.copy(EXPORTS / "tiny.yaml", tmp_path / "-..yaml")
    out = tmp_path / "out"
    before = {p for p in tmp_path.rglob("*") if "out" not in p.parts}
    result = planner(
        "batch", tmp_path / "a", tmp_path / "b", str(tmp_path / "-..yaml"), "--out", out, *FAST
    )
    assert result.code == 0, result.err
    assert sorted(previews(out)) == [
        "item.preview.json",
        "tiny-2.preview.json",
        "tiny.preview.json",
    ]
    after = {p for p in tmp_path.rglob("*") if "out" not in p.parts}
    assert after == before


def _target_days(out: Path, name: str) -> list[int]:
    preview = json.loads((out / f"{name}.preview.json").read_text(encoding="utf-8"))
    return sorted(slot["day"] for change in preview["changes"] for slot in change["to"])


def test_now_freezes_the_past_of_every_item(planner, inputs, tmp_path):
    free = planner("batch", inputs, "--out", tmp_path / "free", *FAST)
    frozen = planner("batch", inputs, "--out", tmp_path / "now", "--now", "5:3", *FAST)
    assert free.code == frozen.code == 0, frozen.err
    assert _target_days(tmp_path / "free", "week")[0] < 3  # without --now day 1 is used
    for name in ("tiny", "week"):  # both windows start on Monday of week 5
        days = _target_days(tmp_path / "now", name)
        assert days and days[0] >= 3
    settings = json.loads((tmp_path / "now" / "week.preview.json").read_text(encoding="utf-8"))
    assert settings["settings"]["now"] == "5:3"


def test_now_with_a_plan_never_fills_the_past(planner, tmp_path):
    """--now with a plan (or an instruction): the layout after now runs once, in the batch; the
    engine must not lay out what stayed pending again, or it would land before now."""
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(EXPORTS / "week.json", folder / "week.json")
    plan = tmp_path / "look.json"
    step = {"id": "s1", "tool": "get_overview", "args": {}}
    plan.write_text(
        json.dumps({"kind": "schedule-plan", "version": 1, "goal": "look", "steps": [step]}),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = planner("batch", folder, "--out", out, "--plan-file", plan, "--now", "5:7:9")
    assert result.code == 3, result.err  # little room after Sunday 9: tasks stay pending
    preview = json.loads((out / "week.preview.json").read_text(encoding="utf-8"))
    starts = [(s["day"], s["slot_start"]) for c in preview["changes"] for s in c["to"]]
    assert starts and all(start >= (7, 9) for start in starts)
    assert preview["run"]["rough_layout"]["now"] == "5:7:9"


def test_now_with_a_plan_refuses_steps_into_the_past(planner, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(EXPORTS / "week.json", folder / "week.json")
    plan = tmp_path / "back.json"
    move = {"task_id": 10, "new_day": 3, "new_slot_start": 11}  # laid out on day 6 first
    step = {"id": "s1", "tool": "move", "args": move}
    plan.write_text(
        json.dumps({"kind": "schedule-plan", "version": 1, "goal": "x", "steps": [step]}),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = planner("batch", folder, "--out", out, "--plan-file", plan, "--now", "5:6:1")
    assert result.code == 3, result.err
    preview = json.loads((out / "week.preview.json").read_text(encoding="utf-8"))
    (done,) = preview["run"]["rounds"][0]["steps"]
    assert done["status"] == "failed" and "操作被拒绝：move" in done["result"]
    assert preview["settings"]["now"] == "5:6:1"
    starts = [(s["day"], s["slot_start"]) for c in preview["changes"] for s in c["to"]]
    assert starts and min(starts) >= (6, 1)


def test_exit_code_is_the_worst_item(planner, inputs, tmp_path):
    shutil.copy(EXPORTS / "tight.json", inputs / "tight.json")
    partial = planner("batch", inputs, "--out", tmp_path / "o1", *FAST)
    assert partial.code == 3
    assert "tight (exit 3" in partial.out
    shutil.copy(FIXTURES / "broken" / "section_13.yaml", inputs / "broken.yaml")
    failed = planner("batch", inputs, "--out", tmp_path / "o2", *FAST)
    assert failed.code == 1
    assert "schedules[3].section: must be between 1 and 12 (got 13)" in failed.out
    assert len(previews(tmp_path / "o2")) == 4  # the others still got their previews


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("--llm", "gpt"), 2, "--llm: expected openai, replay:FILE or none"),
        (("--workers", "0"), 2, "--workers: expected a positive number"),
        (("--time-limit", "0"), 2, "'--time-limit': expected a number > 0"),
        (("--seed", "-1"), 2, "'--seed': Input should be greater than or equal to 0"),
        (("--solver", "magic"), 2, "--solver: expected cpsat or greedy"),
        (("--now", "tomorrow"), 2, "--now: expected WEEK:DAY[:SECTION] or a date"),
        (("--plan-file", "nope.json"), 1, "nope.json: file not found"),
        (("--llm", "replay:nope.json"), 1, "nope.json: cassette file not found"),
    ],
)
def test_bad_options_fail_before_any_item(planner, inputs, tmp_path, args, code, message):
    out = tmp_path / "out"
    result = planner("batch", inputs, "--out", out, *args)
    assert result.code == code
    assert message in result.err
    assert not out.exists()


def test_no_inputs_is_not_an_error(planner, tmp_path):
    (tmp_path / "empty").mkdir()
    result = planner("batch", tmp_path / "empty", "--out", tmp_path / "out")
    assert result.code == 0
    assert "batch: 0 item(s)" in result.out


EVAL = FIXTURES / "eval"


def test_plan_file_items_run_through_the_engine(planner, tmp_path):
    out = tmp_path / "out"
    result = planner(
        "batch",
        EVAL / "states" / "week-planned.json",
        "--out",
        out,
        "--instruction",
        "把周二晚上的单词复习和周三上午的高数换一下。",
        "--plan-file",
        EVAL / "plans" / "swap-vocab-calculus.json",
    )
    assert result.code == 0, result.out + result.err
    preview = json.loads((out / "week-planned.preview.json").read_text(encoding="utf-8"))
    assert preview["run"]["outcome"] == "completed"
    assert preview["instruction"].startswith("把周二晚上")
    assert sorted((c["state_id"], c["by"]) for c in preview["changes"]) == [(10, "s1"), (17, "s1")]


def test_now_on_the_plan_path_reschedules_before_the_plan_runs(planner, tmp_path):
    out = tmp_path / "out"
    result = planner(
        "batch",
        EVAL / "states" / "seed13-planned.json",
        "--out",
        out,
        "--now",
        "5:4",
        "--instruction",
        "周末别给我安排学习",
        "--plan-file",
        EVAL / "plans" / "weekend-free.json",
    )
    assert result.code == 0, result.out + result.err
    preview = json.loads((out / "seed13-planned.preview.json").read_text(encoding="utf-8"))
    by = {c["state_id"]: c["by"] for c in preview["changes"]}
    # the lapsed Tuesday and Wednesday sessions are re-placed from Thursday on, then the plan runs
    assert by == {8: "rough_layout", 9: "rough_layout", 14: "s2"}
    assert all(slot["day"] >= 4 for c in preview["changes"] for slot in c["to"])


def test_plan_file_and_llm_exclude_each_other(planner, tmp_path):
    result = planner(
        "batch",
        EXPORTS / "tiny.yaml",
        "--out",
        tmp_path / "out",
        "--plan-file",
        EVAL / "plans" / "weekend-free.json",
        "--llm",
        "openai",
    )
    assert result.code == 2 and "--plan-file runs without an LLM" in result.err


def test_out_must_be_a_directory(planner, inputs, tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("x", encoding="utf-8")
    result = planner("batch", inputs, "--out", target, *FAST)
    assert result.code == 2 and "not a directory" in result.err
    assert target.read_text(encoding="utf-8") == "x"


@pytest.mark.parametrize("solver", ["greedy", "cpsat"])
def test_a_layout_item_is_byte_identical_to_planner_layout(planner, tmp_path, solver):
    export = str(EXPORTS / "seed13.yaml")
    single = planner(
        "layout", export, "-o", tmp_path / "single.json", "--solver", solver, "--now", "5:3"
    )
    many = planner("batch", export, "--out", tmp_path / "out", "--solver", solver, "--now", "5:3")
    assert single.code == many.code == 0, single.err + many.err
    assert (tmp_path / "out" / "seed13.preview.json").read_bytes() == (
        tmp_path / "single.json"
    ).read_bytes()
