"""The terminal week grid of `planner show`: days as columns, sections 1-12 as rows.

One grid per teaching week of the window, at most 96 columns wide (7 days × 13 + the section
column), CJK names counted as two columns and wrapped over the rows of their block. Marks:
`*` suggested, `~` water course, `↳` a guest inside it, `┆` the block continues. Under each grid
the week's tasks are listed with their full names; pending tasks close the output.
"""

from __future__ import annotations

from planner_cli.model.state import SECTIONS_PER_DAY, ScheduleState, Task
from planner_cli.render.grid import (
    Block,
    DayColumn,
    Lang,
    WeekGrid,
    day_heading,
    pad,
    pending_tasks,
    sections_text,
    text,
    truncate,
    week_grids,
    week_title,
    wrap,
)

CELL = 11  # display columns of a cell's text (plus one space of padding)
LABEL = 3  # the section number column
MARK = {"course": "", "water": "~", "task": "", "suggested": "*"}
BREAK_AFTER = (4, 8)  # morning | afternoon | evening


def _block_lines(block: Block) -> list[str]:
    """The text of each row of the block (top to bottom); a guest sits on its own first row."""
    name = MARK[block.role] + block.task.name
    if not block.guests:
        lines = wrap(name, CELL, block.length)
        return lines + ["┆"] * (block.length - len(lines))
    labels = [f"↳{MARK[g.role]}{g.task.name}" for g in block.guests]
    if block.length == 1:
        return [truncate(name + "/" + "/".join(labels), CELL)]
    rows = [truncate(name, CELL)] + ["┆"] * (block.length - 1)
    for guest, label in zip(block.guests, labels, strict=True):
        row = max(guest.start - block.start, 1)
        while row < block.length - 1 and rows[row] != "┆":
            row += 1
        rows[row] = truncate(label, CELL) if rows[row] == "┆" else rows[row]
    return rows


def _cell(column: DayColumn, section: int) -> str:
    block = column.block_at(section)
    if block is None:
        return ""
    return _block_lines(block)[section - block.start]


def _rule(left: str, cross: str, count: int) -> str:
    return left * (LABEL + 1) + "".join(cross + "─" * (CELL + 1) for _ in range(count))


def render_week(grid: WeekGrid, lang: Lang) -> list[str]:
    lines = [week_title(grid, lang)]
    head = pad(" " + text(lang, "section"), LABEL + 1)
    head += "".join("│ " + pad(truncate(day_heading(c, lang), CELL), CELL) for c in grid.days)
    lines.append(head.rstrip())
    lines.append(_rule("─", "┼", len(grid.days)))
    for section in range(1, SECTIONS_PER_DAY + 1):
        row = f"{section:>{LABEL}} "
        row += "".join("│ " + pad(_cell(c, section), CELL) for c in grid.days)
        lines.append(row.rstrip())
        if section in BREAK_AFTER:
            lines.append(_rule(" ", "┼", len(grid.days)).replace("─", "╌"))
    tasks = []
    for column in grid.days:
        for block in column.blocks:
            entries: list[tuple[Task, int, int, Task | None]]
            entries = [(block.task, block.start, block.end, None)]
            entries += [(g.task, g.start, g.end, block.task) for g in block.guests]
            for task, a, b, host in entries:
                if task.is_course:
                    continue
                mark = "*" if task.is_suggested else " "
                where = f"{day_heading(column, lang)} {sections_text(lang, a, b)}"
                inside = text(lang, "inside", host=f"[{host.state_id}]{host.name}") if host else ""
                clash = " !" if block.clash and host is None else ""
                tasks.append(f"  {mark} [{task.state_id}]{task.name} — {where}{inside}{clash}")
    if tasks:
        lines.append(text(lang, "tasks_of_week"))
        lines += tasks
    return lines


def render_text(state: ScheduleState, lang: Lang = "zh") -> str:
    sep = "  "
    legend = text(lang, "legend") + sep.join(
        [
            "* " + text(lang, "legend_suggested"),
            "~ " + text(lang, "legend_water"),
            "↳ " + text(lang, "legend_guest"),
            "┆ " + text(lang, "legend_continued"),
        ]
    )
    out = [legend, ""]
    for grid in week_grids(state):
        out += render_week(grid, lang)
        out.append("")
    pending = pending_tasks(state)
    if pending:
        out.append(
            text(lang, "pending", count=len(pending))
            + text(lang, "sep").join(f"[{t.state_id}]{t.name}" for t in pending)
        )
    else:
        out.append(text(lang, "no_pending"))
    return "\n".join(out) + "\n"
