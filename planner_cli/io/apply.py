"""`apply`: write a preview's changes into its export (seed-origin §5 with tools.md fix 8).

Each change of original → final state becomes row edits on the export document itself, so
everything the state does not see is kept: first every old position is cleared, then every
new one is written (a swap never collides with itself). An event keeps its id and only its
rows move; a guest's `embedded_task_id` is set or cleared on the rows of the one occurrence it
enters or leaves; a task item placed outside a course gets a new task event (max id + 1, in
state_id order); items' `status` and `embedded_time` follow. Before anything is written the
result is validated and loaded back, and must show exactly the preview's positions.

Decisions where the spec is silent: a compact row that is partly edited is split into one row
per section (its `id`, if any, stays with the first section); an unplaced course keeps its
event (only its rows in the window go), an unplaced task event that has no rows left is deleted
and its item becomes unscheduled; the output format follows OUT's suffix (.json, .yaml, .yml),
else the export's. A YAML export written back as YAML keeps its comments, anchors, quoting and
indentation: the same edits go to a ruamel.yaml round-trip tree of the original text, and that
text is used when it loads back to exactly the preview's positions (otherwise the plain dump,
checked the same way, is written).
ruamel.yaml re-wraps multi-line flow mappings and drops a full-line comment that sits between
two flow-style list items, even when nothing was edited; every other comment stays.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from planner_cli.errors import InputError, Problem, StaleError
from planner_cli.io.files import _CoreLoader, atomic_write, file_sha256, parse_text, read_data
from planner_cli.io.loader import detect_kind, export_to_state, parse_export, parse_state
from planner_cli.io.preview import compute_changes
from planner_cli.model.export import Export
from planner_cli.model.state import ScheduleState, Task

Cell = tuple[int, int, int]  # (week, day_of_week, section)
Identity = tuple[str, int]  # ("item", task item id) or ("event", event id)
Position = tuple[frozenset[Cell], Identity | None]


@dataclass
class ApplyResult:
    """The new export document, its text, and what was done (for the command's report)."""

    data: dict[str, Any]
    text: str
    changes: list[dict[str, Any]]
    log: list[str] = field(default_factory=list)


# -- the edit operations on the export document ----------------------------------------------


class _Doc:
    """The export's raw mapping with the cell-level edits `apply` needs."""

    def __init__(self, data: dict[str, Any], name: str) -> None:
        self.data = data
        self.name = name
        self.rows: list[dict[str, Any]] = data.setdefault("schedules", [])
        self.events: list[dict[str, Any]] = data.setdefault("schedule_events", [])
        self.items = {item["id"]: item for item in data.get("task_items", [])}
        self.log: list[str] = []

    def fail(self, path: str, message: str) -> InputError:
        return InputError(self.name, [Problem(path, message)])

    @staticmethod
    def _sections(row: dict[str, Any]) -> range:
        if row.get("section") is not None:
            return range(row["section"], row["section"] + 1)
        return range(row["section_from"], row["section_to"] + 1)

    def _find(self, cell: Cell, event_id: int | None = None) -> int | None:
        """Index of the row holding `cell` (of `event_id` if given), split to one section."""
        week, dow, section = cell
        for index, row in enumerate(self.rows):
            if row["week"] != week or row["day_of_week"] != dow:
                continue
            if event_id is not None and row["event_id"] != event_id:
                continue
            if section not in self._sections(row):
                continue
            if row.get("section") is None:
                self._split(index)
                return self._find(cell, event_id)
            return index
        return None

    def _split(self, index: int) -> None:
        row = self.rows[index]
        pieces = []
        for n, section in enumerate(self._sections(row)):
            piece = {k: v for k, v in row.items() if k not in ("section_from", "section_to")}
            if n and "id" in piece:
                del piece["id"]
            piece["section"] = section
            pieces.append(piece)
        self.rows[index : index + 1] = pieces

    def event_rows(self, event_id: int) -> int:
        return sum(len(self._sections(r)) for r in self.rows if r["event_id"] == event_id)

    def remove_cell(self, event_id: int, cell: Cell) -> None:
        index = self._find(cell, event_id)
        if index is None:
            raise self.fail(
                "schedules",
                f"event {event_id} has no row at {_cell_text(cell)}; the export does not match"
                " the preview (make a new preview)",
            )
        del self.rows[index]
        self.log.append(f"row deleted: event {event_id} at {_cell_text(cell)}")

    def add_cell(self, event_id: int, cell: Cell) -> None:
        week, dow, section = cell
        self.rows.append(
            {"event_id": event_id, "week": week, "day_of_week": dow, "section": section}
        )
        self.log.append(f"row created: event {event_id} at {_cell_text(cell)}")

    def set_embed(self, host_event: int, cell: Cell, item_id: int) -> None:
        index = self._find(cell, host_event)
        if index is None:
            raise self.fail(
                "schedules",
                f"item {item_id} is placed inside event {host_event} at {_cell_text(cell)},"
                " but that event has no row there",
            )
        row = self.rows[index]
        if row.get("embedded_task_id") not in (None, item_id):
            raise self.fail(
                f"schedules[{index}].embedded_task_id",
                f"the occurrence at {_cell_text(cell)} already hosts item"
                f" {row['embedded_task_id']}; it cannot also host item {item_id}",
            )
        row["embedded_task_id"] = item_id
        self.log.append(f"embed set: item {item_id} in event {host_event} at {_cell_text(cell)}")

    def clear_embeds(self, item_id: int, cell: Cell) -> None:
        week, dow, section = cell
        for row in list(self.rows):
            if (
                row.get("embedded_task_id") == item_id
                and row["week"] == week
                and row["day_of_week"] == dow
                and section in self._sections(row)
            ):
                index = self._find(cell, row["event_id"])
                assert index is not None
                del self.rows[index]["embedded_task_id"]
                self.log.append(
                    f"embed cleared: item {item_id} in event {row['event_id']} at {_cell_text(cell)}"
                )

    def task_events_of(self, item_id: int) -> list[int]:
        return [
            e["id"] for e in self.events if e.get("type") == "task" and e.get("rel_id") == item_id
        ]

    def new_event(self, item_id: int, name: str) -> int:
        event_id = max((e["id"] for e in self.events), default=0) + 1
        self.events.append(
            {
                "id": event_id,
                "name": name,
                "type": "task",
                "can_be_embedded": False,
                "rel_id": item_id,
            }
        )
        self.log.append(f"task event created: {event_id} for item {item_id} ({name})")
        return event_id

    def delete_event(self, event_id: int) -> None:
        self.events[:] = [e for e in self.events if e["id"] != event_id]
        self.log.append(f"task event deleted: {event_id}")

    def item(self, item_id: int) -> dict[str, Any]:
        item = self.items.get(item_id)
        if item is None:
            raise self.fail(
                "task_items", f"the preview changes task item {item_id}, which is not in the export"
            )
        return item

    def place_item(self, item_id: int, cells: list[Cell]) -> None:
        item = self.item(item_id)
        week, dow, _ = cells[0]
        sections = [s for w, d, s in cells if (w, d) == (week, dow)]
        item["status"] = "applied"
        item["embedded_time"] = {
            "week": week,
            "day_of_week": dow,
            "section_from": min(sections),
            "section_to": max(sections),
        }
        self.log.append(f"item updated: {item_id} applied at {_cell_text(cells[0])}")

    def unplace_item(self, item_id: int) -> None:
        item = self.item(item_id)
        item["status"] = "unscheduled"
        item.pop("embedded_time", None)
        self.log.append(f"item updated: {item_id} unscheduled")


def _cell_text(cell: Cell) -> str:
    return f"week {cell[0]} day_of_week {cell[1]} section {cell[2]}"


def _cells(state: ScheduleState, task: Task | None, name: str) -> list[Cell]:
    if task is None:
        return []
    out: list[Cell] = []
    for slot in sorted(task.slots, key=lambda s: s.key()):
        info = state.day_info(slot.day)
        if info is None:
            raise InputError(
                name,
                [Problem(f"state.tasks[{task.state_id}]", f"day {slot.day} is not in the window")],
            )
        out += [(info.week, info.day_of_week, s) for s in range(slot.slot_start, slot.slot_end + 1)]
    return out


# -- the persistence diff ---------------------------------------------------------------------


def apply_changes(
    original: ScheduleState,
    final: ScheduleState,
    export_data: dict[str, Any],
    export_name: str = "<export>",
    target: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]], list[str]]:
    """The export document with the changes of original → final written in; and the changes.

    `export_data` is validated; the edits go to a copy of it, or to `target` (the same document
    in another representation: the comment-keeping YAML tree), which is edited in place.
    """
    parse_export(export_data, export_name)
    doc = _Doc(copy.deepcopy(export_data) if target is None else target, export_name)
    changes = compute_changes(original, final)
    work = []
    for change in changes:
        old = original.task(change["state_id"])
        new = final.task(change["state_id"])
        assert new is not None
        work.append((new, _cells(original, old, export_name), _cells(final, new, export_name)))

    # phase 1: clear every old position
    for task, old_cells, new_cells in work:
        if task.source == "event":
            for cell in old_cells:
                if cell not in new_cells:
                    doc.remove_cell(task.source_id, cell)
        else:
            for cell in old_cells:
                doc.clear_embeds(task.source_id, cell)
                for event_id in doc.task_events_of(task.source_id):
                    if doc._find(cell, event_id) is not None:
                        doc.remove_cell(event_id, cell)

    # phase 2: write every new position
    for task, old_cells, new_cells in work:
        if task.source == "event":
            for cell in new_cells:
                if cell not in old_cells:
                    doc.add_cell(task.source_id, cell)
            continue
        if not new_cells:
            continue
        if task.embed_host is not None:
            host = final.task(task.embed_host)
            if host is None or host.source != "event":
                raise InputError(
                    export_name,
                    [
                        Problem(
                            "state",
                            f"task {task.state_id} has an unknown embed host {task.embed_host}",
                        )
                    ],
                )
            for cell in new_cells:
                doc.set_embed(host.source_id, cell, task.source_id)
        else:
            item = doc.item(task.source_id)
            event_id = doc.new_event(task.source_id, str(item.get("content") or task.name))
            for cell in new_cells:
                doc.add_cell(event_id, cell)

    # phase 3: task events without rows go; items follow their positions
    for task, _old_cells, new_cells in work:
        if task.source == "task_item":
            for event_id in doc.task_events_of(task.source_id):
                if doc.event_rows(event_id) == 0:
                    doc.delete_event(event_id)
            if new_cells:
                doc.place_item(task.source_id, new_cells)
            else:
                doc.unplace_item(task.source_id)
            continue
        event = next((e for e in doc.events if e["id"] == task.source_id), None)
        if event is None or event.get("type") != "task" or event.get("rel_id") is None:
            continue
        item_id = event["rel_id"]
        if doc.event_rows(task.source_id) == 0:
            doc.delete_event(task.source_id)
            doc.unplace_item(item_id)
        elif new_cells:
            doc.place_item(item_id, new_cells)
    return doc.data, changes, doc.log


# -- checking the result ----------------------------------------------------------------------


def placements(
    state: ScheduleState, export: Export, days: set[tuple[int, int]] | None = None
) -> dict[Identity, Position]:
    """Every task's cells and host, keyed by what it is in the export (not by state_id).

    A task item keeps its identity whether it is a task_item or represented by its task event,
    so a state loaded back after `apply` (where ids shift) compares with the preview's state.
    Only cells on `days` ((week, day_of_week) pairs) count when given.
    """
    rel_of = {
        e.id: e.rel_id for e in export.schedule_events if e.type == "task" and e.rel_id is not None
    }

    def identity(task: Task) -> Identity:
        if task.source == "task_item":
            return ("item", task.source_id)
        rel = rel_of.get(task.source_id)
        return ("item", rel) if rel is not None else ("event", task.source_id)

    out: dict[Identity, Position] = {}
    for task in state.tasks:
        cells = frozenset(
            c for c in _cells(state, task, "<state>") if days is None or c[:2] in days
        )
        host = state.task(task.embed_host) if task.embed_host is not None else None
        if cells:
            out[identity(task)] = (cells, identity(host) if host is not None else None)
    return out


def _window_dates(state: ScheduleState) -> tuple[dt.date, dt.date] | None:
    if state.semester is None or not state.window.day_mapping:
        return None
    start = dt.date.fromisoformat(state.semester.start_date)

    def date(week: int, dow: int) -> dt.date:
        return start + dt.timedelta(days=(week - 1) * 7 + dow - 1)

    ordered = sorted(state.window.day_mapping, key=lambda d: d.day_index)
    return date(ordered[0].week, ordered[0].day_of_week), date(
        ordered[-1].week, ordered[-1].day_of_week
    )


def verify(final: ScheduleState, old_export: Export, text: str, as_yaml: bool, name: str) -> Export:
    """Parse the new export text, load it back and compare every position with `final`."""
    new_export = parse_export(parse_text(text, name, as_yaml), name)
    reloaded = export_to_state(new_export, None, _window_dates(final), name)
    days = {(d.week, d.day_of_week) for d in final.window.day_mapping}
    want = placements(final, old_export, days)
    got = placements(reloaded, new_export, days)
    problems = []
    for key in sorted(set(want) | set(got)):
        if want.get(key) != got.get(key):
            problems.append(
                Problem(
                    f"{key[0]} {key[1]}",
                    f"would load back as {_position_text(got.get(key))} instead of"
                    f" {_position_text(want.get(key))}; nothing was written",
                )
            )
    if problems:
        raise InputError(name, problems)
    return new_export


def _position_text(position: Position | None) -> str:
    if position is None:
        return "unplaced"
    cells, host = position
    text = ", ".join(f"w{w}d{d}s{s}" for w, d, s in sorted(cells))
    return text + (f" inside {host[0]} {host[1]}" if host else "")


# -- serialisation ----------------------------------------------------------------------------


class _ExportDumper(yaml.SafeDumper):
    """SafeDumper that never writes aliases and quotes every string that a YAML 1.1 reader or
    our YAML 1.2 core reader (io.files) would take for something else (`1e3`, `0o17`, `no`)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


for _first, _resolvers in _CoreLoader.yaml_implicit_resolvers.items():
    for _tag, _regexp in _resolvers:
        _ExportDumper.add_implicit_resolver(_tag, _regexp, [_first])


def dump_export(data: dict[str, Any], as_yaml: bool) -> str:
    plain = json.loads(json.dumps(data))
    if not as_yaml:
        return json.dumps(plain, ensure_ascii=False, indent=2) + "\n"
    return yaml.dump(
        plain,
        Dumper=_ExportDumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=None,
        width=120,
    )


def _keeping_comments(
    old_text: str,
    original: ScheduleState,
    final: ScheduleState,
    raw: dict[str, Any],
    old_export: Export,
    name: str,
) -> str | None:
    """The edited YAML text with the original's comments and layout, or None when the round
    trip cannot be trusted (it must load back exactly like the plain dump)."""
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    try:
        _, indent, offset = load_yaml_guess_indent(old_text)
        rt = YAML(typ="rt")
        rt.indent(mapping=(indent - offset) if offset else indent, sequence=indent, offset=offset)
        rt.width = 4096
        tree = rt.load(old_text)
        apply_changes(original, final, raw, name, target=tree)
        out = io.StringIO()
        rt.dump(tree, out)
        text = out.getvalue()
        verify(final, old_export, text, True, name)
    except Exception:  # the plain dump (already verified) is written instead
        return None
    return text


def _is_yaml(path: str | Path) -> bool:
    return Path(path).suffix.lower() in (".yaml", ".yml")


# -- the command's work -----------------------------------------------------------------------


def read_preview(path: str | Path) -> tuple[dict[str, Any], ScheduleState, ScheduleState]:
    name = str(path)
    data = read_data(path)
    if detect_kind(data) != "schedule-preview":
        raise InputError(name, [Problem("kind", "expected a preview (kind: schedule-preview)")])
    assert isinstance(data, dict)
    original = parse_state(data.get("original_state"), name, "original_state")
    final = parse_state(data.get("state"), name, "state")
    return data, original, final


def check_fresh(preview: dict[str, Any], export_path: str | Path, preview_name: str) -> None:
    """StaleError unless the export's bytes hash to the preview's input hash."""
    expected = (preview.get("input") or {}).get("sha256")
    actual = file_sha256(export_path)
    if expected == actual:
        return
    if not expected:
        reason = "the preview records no input hash (it was made from stdin)"
    else:
        reason = (
            f"its sha256 is {actual[:12]}…, the preview was made from {expected[:12]}…"
            " (the export changed, or the preview is of another file)"
        )
    raise StaleError(
        f"{export_path}: refusing to apply {preview_name}: {reason}; make a new preview,"
        " or pass --force to apply it anyway"
    )


def apply_file(
    preview_path: str | Path,
    export_path: str | Path,
    output: str | Path | None = None,
    force: bool = False,
) -> ApplyResult:
    """Check, apply, verify, then write (atomically; in place keeps `<export>.bak`)."""
    preview, original, final = read_preview(preview_path)
    export_name = str(export_path)
    raw = read_data(export_path)
    old_text = Path(export_path).read_text(encoding="utf-8")
    if not isinstance(raw, dict):
        raise InputError(export_name, [Problem("", "the document must be a mapping of fields")])
    old_export = parse_export(raw, export_name)
    if not force:
        check_fresh(preview, export_path, str(preview_path))
    data, changes, log = apply_changes(original, final, raw, export_name)
    target = Path(output) if output is not None else Path(export_path)
    as_yaml = (
        _is_yaml(target)
        if target.suffix.lower() in (".json", ".yaml", ".yml")
        else _is_yaml(export_path)
    )
    text = None
    if as_yaml and _is_yaml(export_path) and changes:
        text = _keeping_comments(old_text, original, final, raw, old_export, str(target))
    if text is None:  # JSON, nothing changed, or a round trip that cannot be trusted
        text = dump_export(data, as_yaml)
        verify(final, old_export, text, as_yaml, str(target))
    result = ApplyResult(data, text, changes, log)
    if output is None and not changes:
        return result
    mode = stat.S_IMODE(os.stat(export_path).st_mode)
    if output is None:
        atomic_write(f"{export_path}.bak", old_text, mode)
    atomic_write(target, text, mode)
    return result
