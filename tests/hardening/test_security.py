"""Security: YAML tags never construct anything, export content never chooses an output path,
HTML/ICS/Markdown escape hostile names, API keys appear in no output of any `plan` run (errors
included), and the session database is readable by its owner only."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.openai_server import Delay, Error, FakeOpenAI, Raw, answer, closed_port_url
from tests.hardening.conftest import assert_clean, run_cli, write_doc
from tests.helpers_export import export

# -- YAML tags ------------------------------------------------------------------------------------

TAGS = [
    '!!python/object/apply:os.system ["touch {canary}"]',
    '!!python/object/new:subprocess.Popen [["touch", "{canary}"]]',
    "!!python/name:os.system",
    "!!python/module:os",
    "!!binary aGVsbG8=",
    "!!set {{a, b}}",
    "!!timestamp 2026-09-07",
    "!custom {{x: 1}}",
    "!<tag:yaml.org,2002:python/tuple> [1, 2]",
]


@pytest.mark.parametrize("tag", TAGS)
@pytest.mark.parametrize("where", ["export", "config", "plan"])
def test_yaml_tags_are_refused_and_never_run(home, tmp_path, tag, where):
    canary = tmp_path / "canary"
    value = tag.format(canary=canary)
    src = tmp_path / "e.yaml"
    if where == "export":
        src.write_text(
            f"kind: smartflow-export\nversion: 1\nuser_id: {value}\n"
            "semester: {start_date: '2026-09-07'}\n",
            encoding="utf-8",
        )
        args = ["state", src, "-o", tmp_path / "out.json"]
    elif where == "config":
        write_doc(src, export(), "yaml")
        config = tmp_path / "c.yaml"
        config.write_text(f"solver:\n  random_seed: {value}\n", encoding="utf-8")
        args = ["tool", src, "get_overview", "{}", "--config", config, "-o", tmp_path / "out.json"]
    else:
        write_doc(src, export(), "yaml")
        plan = tmp_path / "plan.yaml"
        plan.write_text(
            f"kind: schedule-plan\nversion: 1\ngoal: {value}\nsteps: []\n", encoding="utf-8"
        )
        args = ["plan", src, "-o", tmp_path / "out.json", "--plan-file", plan, "--no-rough"]
    result = run_cli(*args)
    assert_clean(result, [tmp_path / "out.json"])
    assert result.code == 1 and "is not allowed" in result.err, result.err
    assert not canary.exists()


# -- output paths and escaping ----------------------------------------------------------------------

HOSTILE = {
    "html": '"><script>alert(1)</script><img src=x onerror=alert(2)>',
    "ics": "math\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nSUMMARY:injected",
    "path": "../../../../tmp/evil",
}


def hostile_export() -> dict:
    data = export()
    data["schedule_events"][0]["name"] = HOSTILE["html"]
    data["schedule_events"][0]["location"] = HOSTILE["path"]
    data["schedule_events"][1]["name"] = HOSTILE["ics"]
    data["task_classes"][0]["name"] = HOSTILE["path"]
    data["task_items"][0]["content"] = HOSTILE["html"]
    return data


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_html_escapes_every_name(home, tmp_path):
    src = write_doc(tmp_path / "e.json", hostile_export(), "json")
    out = tmp_path / "t.html"
    result = run_cli("show", src, "--format", "html", "-o", out, "--title", HOSTILE["html"])
    assert result.code == 0, result.err
    html = out.read_text(encoding="utf-8")
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_ics_keeps_hostile_names_inside_their_property(home, tmp_path):
    from icalendar import Calendar

    src = write_doc(tmp_path / "e.json", hostile_export(), "json")
    out = tmp_path / "t.ics"
    result = run_cli("show", src, "--format", "ics", "-o", out)
    assert result.code == 0, result.err
    text = out.read_text(encoding="utf-8")
    assert "\r\nSUMMARY:injected" not in text
    begins = [line for line in text.splitlines() if line == "BEGIN:VEVENT"]
    calendar = Calendar.from_ical(text)
    events = [c for c in calendar.walk("VEVENT")]
    assert len(events) == len(begins)
    summaries = {str(e.get("summary")) for e in events}
    # the whole name, as data, in one property (line breaks escaped as \n, CR dropped)
    assert HOSTILE["ics"].replace("\r\n", "\n") in summaries


def test_markdown_does_not_carry_live_html(home, tmp_path):
    src = write_doc(tmp_path / "e.json", hostile_export(), "json")
    out = tmp_path / "t.md"
    result = run_cli("show", src, "--format", "md", "-o", out)
    assert result.code == 0, result.err
    assert "<script>" not in out.read_text(encoding="utf-8")


def test_content_never_chooses_an_output_path(home, tmp_path):
    """Names, locations and the preview's own input.path never decide where anything is written:
    outputs go exactly where the options say."""
    work = tmp_path / "work"
    work.mkdir()
    src = write_doc(work / "e.json", hostile_export(), "json")
    before = tree(tmp_path)
    preview = work / "p.json"
    assert (
        run_cli(
            "tool", src, "place", '{"task_id": 7, "day": 6, "slot_start": 1}', "-o", preview
        ).code
        == 0
    )
    data = json.loads(preview.read_text(encoding="utf-8"))
    data["input"]["path"] = "../../../../tmp/evil.json"
    preview.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    applied = run_cli("apply", preview, "--export", src, "--force")
    assert applied.code == 0, applied.err
    assert tree(tmp_path) - before == {"work/p.json", "work/e.json.bak"}
    assert not Path("/tmp/evil.json").exists() and not Path("/tmp/evil").exists()


@pytest.mark.parametrize(
    "filename",
    [
        "..json",
        "...json",
        ".hidden.json",
        "-rf.json",
        "a b;rm -rf.json",
        "x\\..\\..\\y.json",
        "ü\u202e.json",
    ],
)
def test_batch_names_stay_inside_out(home, tmp_path, filename):
    inputs = tmp_path / "in"
    inputs.mkdir()
    write_doc(inputs / filename, export(), "json")
    before = tree(tmp_path)
    out = tmp_path / "out"
    result = run_cli(
        "batch", inputs / filename, "--out", out, "--workers", "1", "--solver", "greedy"
    )
    assert result.code in (0, 3), result.err
    written = [p for p in out.iterdir() if p.name.endswith(".preview.json")]
    assert len(written) == 1
    name = written[0].name
    assert "/" not in name and "\\" not in name and not name.startswith((".", "-"))
    new = tree(tmp_path) - before
    assert all(p == "out" or p.startswith(("out/", "home")) for p in new), new


@pytest.mark.parametrize(
    "session", ["../../etc/passwd", "a/b", "a\x00b", " ", "x" * 200, "; DROP TABLE sessions"]
)
def test_session_ids_cannot_escape(home, tmp_path, session):
    result = run_cli("session", "show", session)
    assert result.code == 1 and "invalid session id" in result.err
    assert "Traceback" not in result.err


# -- API keys -------------------------------------------------------------------------------------

KEY = "sk-test-SECRET-7f3a9c1e5b"
DONE = {"goal": "x", "done": True, "summary": f"echo of the key: {KEY}"}
READ = {"goal": f"goal with {KEY}", "steps": [{"id": "s1", "tool": "get_overview", "args": {}}]}
FAST = {"retry-after-ms": "1"}
SCRIPTS = {
    "completed": [answer(READ, reasoning=f"thinking about {KEY}"), answer(DONE)],
    "http-401-echo": [Error(401, f"Incorrect API key provided: {KEY}")],
    "http-500-echo": [Error(500, f"upstream said {KEY}", FAST)] * 3,
    "invalid-echo": [answer({"goal": KEY, "steps": [{"id": "s1", "tool": KEY, "args": {}}]})] * 3,
    "not-json": [Raw(f"<html>{KEY}</html>".encode())] * 3,
    "timeout": [Delay(4.0, answer(DONE))] * 3,
    "endpoint-down": [],
}


def react_script(script: list) -> list:
    first, last = SCRIPTS["completed"]
    tool = {"thought": KEY, "action": "tool", "tool": "get_overview", "args": {}}
    finish = {"thought": KEY, "action": "finish", "summary": KEY}
    return [answer(tool) if i is first else answer(finish) if i is last else i for i in script]


RUNS = [(case, "plan-solve") for case in sorted(SCRIPTS)] + [
    (case, "react") for case in ("completed", "http-401-echo", "invalid-echo")
]


@pytest.mark.parametrize(("case", "mode"), RUNS)
def test_api_key_in_no_output(home, tmp_path, case, mode):
    src = write_doc(tmp_path / "e.json", export(), "json")
    script = SCRIPTS[case] if mode == "plan-solve" else react_script(SCRIPTS[case])
    codes = []
    files: list[Path] = []
    for flags in (["-v"], ["--debug"]):  # readable events on stderr; tracebacks allowed
        out = tmp_path / f"p{len(codes)}.json"
        events = tmp_path / f"events{len(codes)}.jsonl"
        with FakeOpenAI(list(script)) as server:
            env = {
                "OPENAI_API_KEY": KEY,
                "OPENAI_BASE_URL": closed_port_url() if case == "endpoint-down" else server.url,
                "PLANNER_MODEL": "fake-model",
                "PLANNER_LLM__TRANSPORT_RETRIES": "0",
                "PLANNER_LLM__MAX_RETRIES": "1",
                "PLANNER_LLM__TIMEOUT_S": "1",
            }
            args = ["plan", src, f"instruction mentioning {KEY}?", "-o", out, "--events", events]
            args += ["--session", "key-test"]  # the second run resumes the first's snapshot
            debug = ["--debug"] if flags == ["--debug"] else []
            verbose = [] if debug else flags
            result = run_cli(*debug, *args, *verbose, "--mode", mode, env=env)
            sent = [r["headers"].get("authorization") for r in server.requests]
        assert result.code in (0, 3, 4), result.err
        if not debug:
            assert_clean(result, [out])
        if case != "endpoint-down":
            assert f"Bearer {KEY}" in sent  # it was really used
        assert KEY not in result.out and KEY not in result.err
        codes.append(result.code)
        files += [out, events]
    assert codes[0] == codes[1]
    from planner_cli.store.sqlite import SQLiteStore

    with SQLiteStore(home / "sessions.sqlite3") as store:
        snapshot = store.load("key-test")
    assert snapshot is not None and len(snapshot.conversation.turns) == 2
    assert "instruction mentioning ***?" in snapshot.conversation.turns[-1].instruction
    for path in [*files, *home.rglob("*")]:
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_api_key_not_in_a_recorded_cassette(home, tmp_path):
    src = write_doc(tmp_path / "e.json", export(), "json")
    cassette = tmp_path / "c.json"
    with FakeOpenAI([answer(READ), answer(DONE)]) as server:
        env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url, "PLANNER_MODEL": "m"}
        result = run_cli(
            "plan", src, "看看", "-o", tmp_path / "p.json", "--record", cassette, env=env
        )
    assert result.code in (0, 3), result.err
    assert cassette.exists() and KEY.encode() not in cassette.read_bytes()


# -- the session database ----------------------------------------------------------------------

SAVE = r"""
import os, sys
os.umask(0)  # the most permissive umask a careless cron job might have
from planner_cli.store.sqlite import SQLiteStore
from planner_cli.store.base import Snapshot
with SQLiteStore(sys.argv[1]) as store:
    store.save("s", Snapshot(runtime={"x": 1}))
    conn = store._connect()
    print(conn.execute("PRAGMA journal_mode").fetchone()[0])
    for suffix in ("", "-wal", "-shm"):
        path = sys.argv[1] + suffix
        if os.path.exists(path):
            print(suffix or "db", oct(os.stat(path).st_mode & 0o777))
"""


def test_session_database_is_private_even_under_umask_0(tmp_path):
    db = tmp_path / "home" / "sessions.sqlite3"
    out = subprocess.run(
        [sys.executable, "-c", SAVE, str(db)], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[0] == "wal"
    modes = dict(line.split() for line in out[1:] if line)
    assert modes["db"] == "0o600"
    assert all(mode == "0o600" for mode in modes.values()), modes
    assert stat.S_IMODE(os.stat(db.parent).st_mode) & 0o077 == 0


def test_session_database_made_by_the_cli_is_private(home, tmp_path):
    result = run_cli("session", "list")
    assert result.code == 0, result.err
    db = home / "sessions.sqlite3"
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
