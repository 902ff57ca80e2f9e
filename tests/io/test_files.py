from __future__ import annotations

import json

import pytest

from planner_cli.errors import InputError
from planner_cli.io.files import atomic_write, dumps, parse_text, read_data


def test_yaml_keeps_times_words_and_dates_as_strings():
    data = parse_text(
        "a: 12:30\nb: no\nc: 2026-09-07\nd: on\ne: 08:00\nf: 3\ng: true\nh: ~\n", "x", True
    )
    assert data == {
        "a": "12:30",
        "b": "no",
        "c": "2026-09-07",
        "d": "on",
        "e": "08:00",
        "f": 3,
        "g": True,
        "h": None,
    }


def test_yaml_object_construction_tag_is_refused():
    with pytest.raises(InputError) as exc:
        parse_text('a: !!python/object/apply:os.system ["echo hi"]\n', "evil.yaml", True)
    assert exc.value.lines()[0].startswith("error: evil.yaml: invalid YAML")


def test_yaml_custom_tag_is_refused():
    with pytest.raises(InputError, match="not allowed"):
        parse_text("a: !custom 3\n", "x.yaml", True)


def test_yaml_alias_bomb_is_bounded():
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 10):
        refs = ",".join(f"*a{i - 1}" for _ in range(9))
        lines.append(f"a{i}: &a{i} [{refs}]")
    with pytest.raises(InputError, match="alias expansion"):
        parse_text("\n".join(lines) + "\n", "bomb.yaml", True)


def test_yaml_small_aliases_are_fine():
    data = parse_text("base: &b [1, 2]\nx: *b\ny: {<<: {k: 1}, z: 2}\n", "ok.yaml", True)
    assert data == {"base": [1, 2], "x": [1, 2], "y": {"k": 1, "z": 2}}


def test_invalid_json_names_line_and_column():
    with pytest.raises(InputError) as exc:
        parse_text('{"a": 1,\n "b": }', "bad.json", False)
    (line,) = exc.value.lines()
    assert line.startswith("error: bad.json: invalid JSON at line 2")


def test_read_data_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_data(tmp_path / "nope.json")


def test_read_data_non_utf8(tmp_path):
    p = tmp_path / "x.json"
    p.write_bytes(b"\xff\xfe{}")
    with pytest.raises(InputError, match="UTF-8"):
        read_data(p)


def test_dumps_is_stable_and_readable():
    assert dumps({"b": 1, "a": "概率"}) == '{\n  "a": "概率",\n  "b": 1\n}\n'


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    atomic_write(target, json.dumps({"x": 1}))
    assert json.loads(target.read_text()) == {"x": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_atomic_write_failure_keeps_old_content(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_text("old")

    def boom(*_a, **_k):
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(OSError):
        atomic_write(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_atomic_write_new_file_gets_umask_mode_and_existing_keeps_mode(tmp_path):
    import os

    old = os.umask(0o022)
    try:
        new = tmp_path / "new.json"
        atomic_write(new, "{}")
        assert new.stat().st_mode & 0o777 == 0o644
        kept = tmp_path / "kept.json"
        kept.write_text("x")
        kept.chmod(0o600)
        atomic_write(kept, "y")
        assert kept.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)
