"""Hostile input through every file command: mutated and random valid exports never give a
traceback, an unknown exit code, an internal error or a partial/invalid output file; random JSON
arguments to every tool fail cleanly and leave the state exactly as it was."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from planner_cli.io.loader import load_any
from planner_cli.tools.common import ToolContext
from planner_cli.tools.registry import registry, run_tool
from tests.hardening.conftest import (
    DEEP,
    FIXTURES,
    assert_clean,
    has_command,
    run_cli,
    write_doc,
)
from tests.hardening.strategies import (
    NUMBERS,
    ODD_TEXT,
    mutated_exports,
    tool_args,
    valid_exports,
)
from tests.helpers_export import BASE

FUZZ = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
    database=None,
)
SMALL_SOLVER = {"time_limit_s": 1.0, "max_deterministic_time": 0.3}
CTX = ToolContext(lang="zh", solver=SMALL_SOLVER)


def _file_commands(src: Path, tmp: Path, full: bool) -> list[tuple[list[Any], list[Path]]]:
    """The commands that read an export, with the outputs they may write: loading and writing
    a state and a tool preview always; `full` adds validate, an English tool text, layout and
    plan."""
    commands: list[tuple[list[Any], list[Path]]] = [
        (["state", src, "-o", tmp / "state.json"], [tmp / "state.json"]),
        (["tool", src, "get_overview", "{}", "-o", tmp / "tool.json"], [tmp / "tool.json"]),
    ]
    if full:
        commands.insert(0, (["validate", src], []))
        commands.append((["tool", src, "list_tasks", '{"status": "all"}', "--lang", "en"], []))
    if full and has_command("layout"):
        out = tmp / "layout.preview.json"
        commands.append((["layout", src, "-o", out, "--time-limit", "1"], [out]))
    if full and has_command("plan"):
        out = tmp / "plan.preview.json"
        commands.append((["plan", src, "-o", out, "--llm", "none", "--no-rough"], [out]))
    return commands


def _run_all(src: Path, tmp: Path, full: bool = True) -> list[int]:
    codes = []
    for args, outputs in _file_commands(src, tmp, full):
        result = run_cli(*args)
        assert_clean(result, outputs)
        codes.append(result.code)
    return codes


@FUZZ
@given(
    data=mutated_exports(),
    fmt=st.sampled_from(["json", "yaml"]),
    deep=st.sampled_from([0, 200, 5000]),
    ascii_only=st.booleans(),
)
def test_mutated_exports_fail_cleanly_everywhere(data, fmt, deep, ascii_only, home):
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        # PyYAML needs seconds to refuse thousands of levels; that case has its own test below
        deep = min(deep, 200) if fmt == "yaml" else deep
        src = write_doc(tmp / f"export.{fmt}", data, fmt, deep, ascii_only)
        codes = _run_all(src, tmp)
        validated = codes[0]
        if validated == 1:  # an invalid export: every command refuses it the same way
            assert set(codes) == {1}


@settings(FUZZ, max_examples=15)
@given(data=valid_exports(), fmt=st.sampled_from(["json", "yaml"]))
def test_random_valid_exports_go_through_every_command(data, fmt, home):
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        src = write_doc(tmp / f"export.{fmt}", data, fmt)
        codes = _run_all(src, tmp)
        assert codes[0] == 0, "the generator makes valid exports"
        assert all(code in (0, 3) for code in codes), codes


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("\ud800", "lone surrogate"),
        ("__DEEP__", "nesting is too deep"),
    ],
)
@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_undecodable_text_and_deep_nesting_are_input_errors(home, tmp_path, value, message, fmt):
    data = json.loads(json.dumps(BASE))
    data["schedule_events"][0]["name"] = value
    text = (
        json.dumps(data, ensure_ascii=True)
        if fmt == "json"
        else __import__("yaml").safe_dump(data, allow_unicode=False)
    )
    nested = "[" * 1500 + "]" * 1500
    text = text.replace('"__DEEP__"', nested).replace("__DEEP__", nested)
    src = tmp_path / f"e.{fmt}"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "s.json"
    result = run_cli("state", src, "-o", out)
    assert result.code == 1 and not out.exists()
    assert message in result.err and "internal error" not in result.err


ODD_TARGETS = [
    ("schedule_events", 0, "name"),
    ("task_classes", 0, "name"),
    ("task_items", 1, "content"),
    ("schedule_events", 0, "location"),
]


@pytest.mark.parametrize("value", ODD_TEXT + [DEEP, "x" * 50_000])
@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_each_odd_text_in_names_is_loaded_or_refused_cleanly(home, tmp_path, value, fmt):
    """Every hostile string of the fuzz pool, deterministically, in every name field at once."""
    data = json.loads(json.dumps(BASE))
    for path in ODD_TARGETS:
        data[path[0]][path[1]][path[2]] = value
    src = write_doc(tmp_path / f"e.{fmt}", data, fmt, deep=400, ascii_only=True)
    codes = _run_all(src, tmp_path, full=fmt == "json")
    if value in ("\ud800", DEEP):
        assert set(codes) == {1}
    else:
        assert codes[0] == 0


@pytest.mark.parametrize("value", NUMBERS + [1.5, float("nan"), float("inf"), True, None, "5"])
@pytest.mark.parametrize(
    "path",
    [
        ("schedules", 0, "week"),
        ("schedules", 4, "section"),
        ("task_items", 1, "duration"),
        ("task_classes", 0, "total_slots"),
        ("schedule_events", 0, "id"),
    ],
)
def test_each_odd_number_is_loaded_or_refused_cleanly(home, tmp_path, value, path):
    data = json.loads(json.dumps(BASE))
    data[path[0]][path[1]][path[2]] = value
    _run_all(write_doc(tmp_path / "e.json", data, "json"), tmp_path, full=False)


def test_ordinary_nesting_and_unicode_still_load(home, tmp_path):
    data = json.loads(json.dumps(BASE))
    data["schedule_events"][0]["name"] = "高数 🙂 \u202e"
    src = write_doc(tmp_path / "e.json", data, "json")
    result = run_cli("state", src, "-o", tmp_path / "s.json")
    assert result.code == 0, result.err
    assert "高数 🙂" in (tmp_path / "s.json").read_text(encoding="utf-8")


# -- random arguments for every tool ----------------------------------------------------------

STATES = {
    "export": load_any(write_doc(Path(tempfile.mkdtemp()) / "e.json", BASE, "json")).state,
    "s0": load_any(FIXTURES / "states" / "s0.json").state,
}


@pytest.mark.parametrize("name", sorted(registry()))
@settings(max_examples=20, deadline=None, database=None)
@given(data=st.data())
def test_random_tool_arguments_fail_cleanly_and_change_nothing(name, data):
    spec = registry()[name]
    state = STATES[data.draw(st.sampled_from(sorted(STATES)), label="state")]
    args: dict[str, Any] = data.draw(tool_args(list(spec.args.model_fields)), label="args")
    before = state.dump()
    result = run_tool(name, state, args, CTX)  # a bug would raise here
    assert state.dump() == before, "a tool mutated its input state"
    assert isinstance(result.text, str) and result.text
    assert "Traceback" not in result.text
    if spec.json_output:
        json.loads(result.text)
    if not result.ok:
        assert result.state.dump() == before, "a refused call changed the state"


@pytest.mark.parametrize("name", sorted(registry()))
def test_non_finite_numbers_in_every_argument(name):
    """JSON allows NaN and Infinity (and 1e400 parses as inf): int() of them raised inside the
    lenient coercion (an OverflowError out of run_tool) before registry._is_number checked."""
    spec = registry()[name]
    state = STATES["export"]
    before = state.dump()
    for field in list(spec.args.model_fields) or ["x"]:
        for value in (float("nan"), float("inf"), float("-inf"), [float("inf")]):
            result = run_tool(name, state, {field: value}, CTX)
            assert isinstance(result.text, str) and result.text
            assert state.dump() == before
            if not result.ok:
                assert result.state.dump() == before


@pytest.mark.parametrize("name", sorted(registry()))
def test_huge_integers_in_every_argument(name):
    """64-bit-overflowing values: rough_layout's `stability` went into CP-SAT coefficients and
    overflowed inside OR-Tools (RuntimeError/TypeError out of run_tool) before it was bounded."""
    spec = registry()[name]
    for state in STATES.values():  # S0 has suggested tasks, which `stability` re-lays out
        before = state.dump()
        for field in list(spec.args.model_fields) or ["x"]:
            for value in (2**63, -(2**63), 10**30, [2**63]):
                result = run_tool(name, state, {field: value}, CTX)
                assert isinstance(result.text, str) and result.text
                assert state.dump() == before
                if not result.ok:
                    assert result.state.dump() == before


def test_tool_command_with_infinity(home, tmp_path):
    src = write_doc(tmp_path / "e.json", BASE, "json")
    out = tmp_path / "p.json"
    result = run_cli(
        "tool", src, "place", '{"task_id": 7, "day": Infinity, "slot_start": 1e400}', "-o", out
    )
    assert_clean(result, [out])
    assert result.code == 3


@settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    name=st.sampled_from(sorted(registry())),
    args_text=st.one_of(
        st.text(max_size=20),
        st.sampled_from(["", "[]", "null", "1", '"x"', "{", '{"task_id": }', "{}" * 3]),
        st.dictionaries(st.text(max_size=5), st.integers(-2, 40), max_size=3).map(json.dumps),
    ),
)
def test_tool_command_with_any_argument_text(name, args_text, home):
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        src = write_doc(tmp / "e.json", BASE, "json")
        out = tmp / "p.json"
        result = run_cli("tool", src, name, args_text, "-o", out)
        note(result.err)
        assert_clean(result, [out])
        if result.code == 3:  # the tool refused: the preview holds the unchanged state
            preview = json.loads(out.read_text(encoding="utf-8"))
            assert preview["changes"] == []


def test_unknown_tool_name_is_a_usage_error(home, tmp_path):
    src = write_doc(tmp_path / "e.json", BASE, "json")
    for name in ("delete_all", "os.system", "__import__", "../place"):
        result = run_cli("tool", src, name, "{}", "-o", tmp_path / "p.json")
        assert result.code == 2 and "unknown tool" in result.err
        assert not (tmp_path / "p.json").exists()


# -- apply and batch on hostile documents -------------------------------------------------------


@pytest.fixture(scope="module")
def applied_pair(tmp_path_factory):
    """An export and a preview of it that places one task and moves nothing else."""
    tmp = tmp_path_factory.mktemp("pair")
    src = write_doc(tmp / "e.json", BASE, "json")
    preview = tmp / "p.json"
    made = run_cli("tool", src, "place", '{"task_id": 7, "day": 6, "slot_start": 1}', "-o", preview)
    assert made.code == 0, made.err
    return src.read_bytes(), json.loads(preview.read_text(encoding="utf-8"))


@settings(FUZZ, max_examples=25)
@given(data=st.data(), force=st.booleans())
def test_apply_of_a_tampered_preview_never_corrupts_the_export(applied_pair, data, force, home):
    export_bytes, preview = applied_pair
    tampered = data.draw(mutated_exports(base=preview), label="preview")
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        src = tmp / "e.json"
        src.write_bytes(export_bytes)
        bad = write_doc(tmp / "p.json", tampered, "json")
        result = run_cli("apply", bad, "--export", src, *(["--force"] if force else []))
        assert result.code in (0, 1, 5), result.err
        assert "Traceback" not in result.err and "internal error" not in result.err, result.err
        if result.code != 0:
            assert src.read_bytes() == export_bytes  # refused: untouched
            assert not (tmp / "e.json.bak").exists()
        else:
            assert run_cli("validate", src).code == 0  # written: a valid export
        assert not list(tmp.glob(".e.json.*.tmp"))


def test_batch_isolates_each_hostile_input(home, tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    write_doc(inputs / "good.json", BASE, "json")
    (inputs / "latin1.json").write_bytes('{"name": "caf\xe9"}'.encode("latin-1"))
    (inputs / "truncated.yaml").write_text("kind: smartflow-export\nschedules: [", encoding="utf-8")
    nested = json.dumps(BASE).replace('"user_id": 1', '"user_id": ' + "[" * 5000 + "]" * 5000)
    (inputs / "deep.json").write_text(nested, encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("batch", inputs, inputs / "missing.json", "--out", out, "--workers", "1")
    assert_clean(result)
    assert result.code == 1  # the worst item's code
    previews = sorted(p.name for p in out.glob("*.preview.json"))
    assert previews == ["good.preview.json"]
    assert run_cli("validate", out / "good.preview.json").code == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    failed = {f["name"]: f["message"] for f in summary["failures"]}
    assert set(failed) == {"latin1", "truncated", "deep", "missing"}
    assert "not UTF-8" in failed["latin1"] and "nesting is too deep" in failed["deep"]
    assert "file not found" in failed["missing"]
