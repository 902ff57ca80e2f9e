"""The self-contained HTML timetable of `planner show --format html` (inline CSS, no scripts).

Each week is a row of day columns; each column is its own 12-row CSS grid, so a block's column
and rows are plain DOM structure (`.day[data-date] > .cells > .block[data-state-id]`), and the
layout needs no JavaScript. Suggested tasks are highlighted (★), water courses dashed with their
guests drawn inside, a legend and the pending tasks follow. Every name is HTML-escaped.
"""

from __future__ import annotations

from html import escape

from planner_cli.model.state import SECTIONS_PER_DAY, ScheduleState, Task
from planner_cli.render.grid import (
    WEEKDAYS,
    Block,
    DayColumn,
    Guest,
    Lang,
    SectionTimes,
    WeekGrid,
    pending_tasks,
    sections_text,
    text,
    week_grids,
    week_title,
)

CSS = """
:root { --row: 2.7em; --head: 3.2em; }
* { box-sizing: border-box; }
body { font-family: system-ui, "PingFang SC", "Noto Sans CJK SC", "Microsoft YaHei", sans-serif;
       margin: 1.5em; color: #222; background: #fff; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
h2 { font-size: 1.1em; margin: 1.4em 0 .5em; }
.legend { display: flex; flex-wrap: wrap; gap: .4em 1.2em; padding: 0; margin: .6em 0; list-style: none;
          font-size: .9em; }
.legend li { display: flex; align-items: center; gap: .4em; }
.swatch { display: inline-block; width: 1.6em; height: 1em; border: 1px solid; border-radius: 3px; }
.week-grid { display: grid; grid-template-columns: 4.6em repeat(var(--days), minmax(7.5em, 1fr));
             border: 1px solid #bbb; }
.col { min-width: 0; border-left: 1px solid #ddd; }
.col:first-child { border-left: 0; }
.head { height: var(--head); display: flex; flex-direction: column; align-items: center;
        justify-content: center; background: #f5f5f5; border-bottom: 1px solid #bbb;
        font-weight: 600; font-size: .9em; }
.head small { font-weight: 400; color: #666; }
.cells { display: grid; grid-template-rows: repeat(12, var(--row));
         background-image: repeating-linear-gradient(to bottom, transparent 0,
           transparent calc(var(--row) - 1px), #eee calc(var(--row) - 1px), #eee var(--row)); }
.sec { display: flex; flex-direction: column; align-items: center; justify-content: center;
       font-size: .85em; color: #555; }
.sec small { font-size: .75em; color: #888; }
.block { grid-column: 1; margin: 2px 3px; padding: 2px 5px; border: 1px solid; border-radius: 4px;
         overflow: hidden; font-size: .85em; line-height: 1.25; min-width: 0;
         overflow-wrap: anywhere; }
.course { background: #e6eefc; border-color: #86a3d8; }
.water { background: #edf7ea; border-color: #7fb876; border-style: dashed; display: grid;
         grid-template-rows: auto; grid-auto-rows: 1fr; padding: 1px 3px; }
.water > .name { font-size: .9em; color: #3d6b35; }
.task { background: #f0f0f0; border-color: #aaa; }
.suggested { background: #fff2c6; border: 2px solid #d99a00; font-weight: 600; }
.guest { margin: 1px 0; }
.clash { outline: 2px solid #d33; }
.pending ul { columns: 2; }
@media print { body { margin: 0; } .week { break-inside: avoid; } }
"""


def _e(s: object) -> str:
    return escape(str(s), quote=True)


def _classes(task: Task, *extra: str) -> str:
    if task.is_course:
        kind = "water" if task.can_embed else "course"
    else:
        kind = "suggested" if task.is_suggested else "task"
    return " ".join(["block", kind, *extra])


def _label(task: Task) -> str:
    star = "★ " if task.is_suggested else ""
    return f"{star}{task.name}"


def _title(task: Task, column: DayColumn, a: int, b: int, lang: Lang) -> str:
    parts = [f"[{task.state_id}] {task.name}", WEEKDAYS[lang][column.day_of_week - 1]]
    parts.append(sections_text(lang, a, b))
    if task.is_suggested:
        parts.append(text(lang, "legend_suggested"))
    return " · ".join(parts)


def _guest(guest: Guest, block: Block, column: DayColumn, lang: Lang) -> str:
    # row 1 of the water block is its name; section s of the block is row s - start + 2
    rows = f"{guest.start - block.start + 2} / {guest.end - block.start + 3}"
    return (
        f'<div class="{_classes(guest.task, "guest")}" data-state-id="{guest.task.state_id}"'
        f' data-sections="{guest.start}-{guest.end}" style="grid-row: {rows}"'
        f' title="{_e(_title(guest.task, column, guest.start, guest.end, lang))}">'
        f"{_e(_label(guest.task))}</div>"
    )


def _block(block: Block, column: DayColumn, lang: Lang) -> str:
    task = block.task
    extra = ("clash",) if block.clash else ()
    attrs = (
        f'class="{_classes(task, *extra)}" data-state-id="{task.state_id}"'
        f' data-sections="{block.start}-{block.end}"'
        f' style="grid-row: {block.start} / {block.end + 1}'
    )
    if task.can_embed:
        attrs += f"; grid-template-rows: auto repeat({block.length}, 1fr)"
    attrs += f'" title="{_e(_title(task, column, block.start, block.end, lang))}"'
    if task.can_embed:
        inner = f'<span class="name">{_e(task.name)}</span>' + "".join(
            _guest(g, block, column, lang) for g in block.guests
        )
    else:
        inner = _e(_label(task))
    return f"<div {attrs}>{inner}</div>"


def _week(grid: WeekGrid, lang: Lang, times: SectionTimes | None) -> str:
    out = [f'<section class="week" data-week="{grid.week}">']
    out.append(f"<h2>{_e(week_title(grid, lang))}</h2>")
    out.append(f'<div class="week-grid" style="--days: {len(grid.days)}">')
    out.append(f'<div class="col sections"><div class="head">{_e(text(lang, "section"))}</div>')
    out.append('<div class="cells">')
    for s in range(1, SECTIONS_PER_DAY + 1):
        when = f"<small>{times.start(s):%H:%M}</small>" if times else ""
        out.append(f'<div class="sec" style="grid-row: {s}" data-section="{s}">{s}{when}</div>')
    out.append("</div></div>")
    for column in grid.days:
        date = column.date.isoformat() if column.date else ""
        out.append(
            f'<div class="col day" data-day="{column.day}" data-week="{column.week}"'
            f' data-weekday="{column.day_of_week}" data-date="{date}">'
        )
        weekday = WEEKDAYS[lang][column.day_of_week - 1]
        sub = column.date.strftime("%m-%d") if column.date else text(lang, "day", day=column.day)
        out.append(f'<div class="head">{_e(weekday)}<small>{_e(sub)}</small></div>')
        out.append('<div class="cells">')
        out += [_block(b, column, lang) for b in column.blocks]
        out.append("</div></div>")
    out.append("</div></section>")
    return "\n".join(out)


def render_html(
    state: ScheduleState,
    lang: Lang = "zh",
    title: str | None = None,
    times: SectionTimes | None = None,
) -> str:
    heading = title or text(lang, "title")
    legend = [
        ("course", text(lang, "legend_course")),
        ("water", text(lang, "legend_water")),
        ("task", text(lang, "legend_task")),
        ("suggested", "★ " + text(lang, "legend_suggested")),
    ]
    out = [
        "<!DOCTYPE html>",
        f'<html lang="{"zh-CN" if lang == "zh" else "en"}">',
        '<head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(heading)}</title>",
        f"<style>{CSS}</style></head>",
        "<body>",
        f"<h1>{_e(heading)}</h1>",
        '<ul class="legend">',
    ]
    out += [
        f'<li><span class="swatch block {cls}"></span>{_e(label)}</li>' for cls, label in legend
    ]
    out.append(
        f'<li><span class="swatch block water"></span>↳ {_e(text(lang, "legend_guest"))}</li>'
    )
    out.append("</ul>")
    out += [_week(grid, lang, times) for grid in week_grids(state)]
    pending = pending_tasks(state)
    out.append('<section class="pending">')
    if pending:
        out.append(f"<h2>{_e(text(lang, 'pending', count=len(pending)).rstrip(' ：:'))}</h2><ul>")
        out += [
            f'<li data-state-id="{t.state_id}">[{t.state_id}] {_e(t.name)}</li>' for t in pending
        ]
        out.append("</ul>")
    else:
        out.append(f"<p>{_e(text(lang, 'no_pending'))}</p>")
    out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
