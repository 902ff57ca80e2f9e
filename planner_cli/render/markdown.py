"""Markdown rendering of `planner show --format md`: one table per week, sections as rows.

Full names (escaped for tables); suggested tasks in bold with ★, water courses in italics, a
guest shown as ↳ under its water course, 〃 where a block continues. Pending tasks close it.
"""

from __future__ import annotations

import re

from planner_cli.model.state import SECTIONS_PER_DAY, ScheduleState, Task
from planner_cli.render.grid import (
    Block,
    DayColumn,
    Lang,
    day_heading,
    pending_tasks,
    text,
    week_grids,
    week_title,
)

_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def escape(s: str) -> str:
    """Markdown-inert text for a table cell (one line, punctuation escaped)."""
    return _SPECIAL.sub(r"\\\1", " ".join(s.split()))


def _name(task: Task) -> str:
    if task.is_suggested:
        return f"**★{escape(task.name)}**"
    if task.is_course and task.can_embed:
        return f"*{escape(task.name)}*"
    return escape(task.name)


def _block_lines(block: Block) -> list[str]:
    lines = [_name(block.task)] + [f"↳ {_name(g.task)}" for g in block.guests]
    if len(lines) > block.length:
        lines = lines[: block.length - 1] + ["<br>".join(lines[block.length - 1 :])]
    return lines + ["〃"] * (block.length - len(lines))


def _cell(column: DayColumn, section: int) -> str:
    block = column.block_at(section)
    return "" if block is None else _block_lines(block)[section - block.start]


def render_markdown(state: ScheduleState, lang: Lang = "zh", title: str | None = None) -> str:
    out = [f"# {escape(title or text(lang, 'title'))}", ""]
    out.append(
        text(lang, "legend")
        + text(lang, "sep").join(
            [
                "**★…** " + text(lang, "legend_suggested"),
                "*…* " + text(lang, "legend_water"),
                "↳ " + text(lang, "legend_guest"),
                "〃 " + text(lang, "legend_continued"),
            ]
        )
    )
    out.append("")
    for grid in week_grids(state):
        out += [f"## {week_title(grid, lang)}", ""]
        out.append(
            "| "
            + text(lang, "section")
            + " | "
            + " | ".join(day_heading(c, lang) for c in grid.days)
            + " |"
        )
        out.append("|---:|" + "---|" * len(grid.days))
        for section in range(1, SECTIONS_PER_DAY + 1):
            cells = [_cell(c, section) for c in grid.days]
            out.append(f"| {section} | " + " | ".join(cells) + " |")
        out.append("")
    pending = pending_tasks(state)
    if pending:
        out.append(
            text(lang, "pending", count=len(pending))
            + text(lang, "sep").join(f"[{t.state_id}]{escape(t.name)}" for t in pending)
        )
    else:
        out.append(text(lang, "no_pending"))
    return "\n".join(out) + "\n"
