"""Reading and writing planner's files: safe YAML/JSON in, stable JSON out, atomic writes.

YAML is read with a loader that resolves only YAML 1.2 core scalars (so `12:30`, `no` and
`2026-09-07` stay strings), refuses every tag that would construct an object, and bounds alias
expansion. Validation problems become `InputError`s naming the file and field path.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from planner_cli.errors import InputError, Problem

MAX_YAML_NODES = 200_000
MAX_DEPTH = 64  # planner documents nest about 10 deep; deeper input is refused, not recursed into

M = TypeVar("M", bound=BaseModel)


class _CoreLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core-schema implicit typing only."""


_CoreLoader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", "<"),
]:
    _CoreLoader.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))

_ALLOWED_TAGS = {
    "tag:yaml.org,2002:" + t for t in ("str", "int", "float", "bool", "null", "map", "seq", "merge")
}


def _expanded_size(node: yaml.Node, memo: dict[int, int]) -> int:
    """Nodes the document would have with every alias expanded (memoized on shared nodes)."""
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = 1  # a recursive alias counts once instead of looping
    if node.tag not in _ALLOWED_TAGS:
        raise yaml.constructor.ConstructorError(
            None, None, f"tag {node.tag!r} is not allowed", node.start_mark
        )
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, memo) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, memo) + _expanded_size(v, memo) for k, v in node.value)
    memo[key] = size
    if size > MAX_YAML_NODES:
        raise yaml.constructor.ConstructorError(
            None, None, f"alias expansion exceeds {MAX_YAML_NODES} nodes", node.start_mark
        )
    return size


def parse_text(text: str, name: str, as_yaml: bool) -> Any:
    """Parse JSON or YAML text; syntax errors become a one-line InputError."""
    try:
        data = _parse_json(text, name) if not as_yaml else _parse_yaml(text, name)
    except RecursionError:
        raise InputError(
            name, [Problem("", f"nesting is too deep (more than {MAX_DEPTH} levels)")]
        ) from None
    _check_tree(data, name)
    return data


def _check_tree(data: Any, name: str) -> None:
    """Refuse what later stages could not handle: nesting deeper than MAX_DEPTH and strings
    with lone surrogates (a JSON `\\ud800` escape; they cannot be written back as UTF-8)."""
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            if not _encodable(value):
                raise InputError(
                    name, [Problem(path, "text is not valid Unicode (a lone surrogate escape)")]
                )
            continue
        if not isinstance(value, dict | list):
            continue
        if depth >= MAX_DEPTH:
            where = path if len(path) <= 60 else path[:60] + "…"
            raise InputError(
                name, [Problem(where, f"nesting is too deep (more than {MAX_DEPTH} levels)")]
            )
        if isinstance(value, list):
            stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value))
            continue
        for key, child in value.items():
            key_text = str(key)
            if not _encodable(key_text):
                raise InputError(
                    name, [Problem(path, "a key is not valid Unicode (a lone surrogate escape)")]
                )
            stack.append((child, f"{path}.{key_text}" if path else key_text, depth + 1))


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _parse_json(text: str, name: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            name,
            [Problem("", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")],
        ) from None


def _parse_yaml(text: str, name: str) -> Any:
    loader = _CoreLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, {})
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise InputError(
            name, [Problem("", f"invalid YAML{where}: {exc.problem or exc}")]
        ) from None
    except yaml.YAMLError as exc:
        raise InputError(name, [Problem("", f"invalid YAML: {exc}")]) from None
    finally:
        loader.dispose()


def read_data(path: str | Path) -> Any:
    """Read a JSON or YAML document (by suffix; `-` reads stdin and sniffs the content)."""
    name = str(path)
    if name == "-":
        text = sys.stdin.read()
        stripped = text.lstrip()
        return parse_text(text, "<stdin>", as_yaml=not stripped.startswith(("{", "[")))
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError(name, [Problem("", "file not found")]) from None
    except OSError as exc:
        raise InputError(name, [Problem("", f"cannot read file: {exc.strerror}")]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(name, [Problem("", "file is not UTF-8 text")]) from None
    return parse_text(text, name, as_yaml=p.suffix.lower() in (".yaml", ".yml"))


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def field_path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _message(error: Any) -> str:
    msg = str(error["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix) :]
    if error["type"] == "extra_forbidden":
        return "unknown field (not allowed here)"
    if error["type"] == "missing":
        return "required field is missing"
    if error["type"] == "literal_error":
        return f"{msg} (got {error.get('input')!r})"
    return msg


def problems_of(exc: ValidationError) -> list[Problem]:
    seen: set[tuple[str, str]] = set()
    out: list[Problem] = []
    for error in exc.errors():
        # union members repeat the same location; keep the first message of each field
        loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and p[:1].isupper()))
        key = (field_path(loc), _message(error))
        if key in seen:
            continue
        seen.add(key)
        out.append(Problem(*key))
    return out


def validate_as(model: type[M], data: Any, name: str, context: Any = None) -> M:
    if not isinstance(data, dict):
        raise InputError(name, [Problem("", "the document must be a mapping of fields")])
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        raise InputError(name, problems_of(exc)) from None


def dumps(data: Any) -> str:
    """Stable JSON: sorted keys, UTF-8 kept readable, two-space indent, trailing newline."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def _default_mode(target: Path) -> int:
    """An existing file keeps its mode; a new one gets the usual 0666 minus the umask."""
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write(path: str | Path, text: str, mode: int | None = None) -> None:
    """Write through a temp file in the same directory, fsync, then rename over the target.

    The file gets `mode` if given, else the mode of the file it replaces, else 0666 minus the
    umask (mkstemp's private 0600 would otherwise leak into every output).
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = _default_mode(target) if mode is None else mode
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
