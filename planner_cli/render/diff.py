"""`planner diff`: a preview's changes, one line each, with old and new day labels and `by`.

Labels are the tools' own (第N天(星期X)第a-b节 in zh), taken from the original state for the
old position and from the final state for the new one.
"""

from __future__ import annotations

from typing import Any

from planner_cli.model.state import ScheduleState, Slot
from planner_cli.tools.common import range_label
from planner_cli.tools.messages import Lang

TEXTS = {
    "zh": {
        "place": "放置",
        "move": "移动",
        "unplace": "移除",
        "none": "未安排",
        "inside": "（嵌入 [{id}]{name}）",
        "by": "  由 {by}",
        "sep": "、",
        "no_changes": "没有变更。",
    },
    "en": {
        "place": "place",
        "move": "move",
        "unplace": "unplace",
        "none": "unplaced",
        "inside": " (inside [{id}]{name})",
        "by": "  by {by}",
        "sep": ", ",
        "no_changes": "No changes.",
    },
}


def _slots_text(state: ScheduleState, slots: list[dict[str, Any]], lang: Lang) -> str:
    if not slots:
        return TEXTS[lang]["none"]
    labels = []
    for raw in slots:
        slot = Slot(day=raw["day"], slot_start=raw["slot_start"], slot_end=raw["slot_end"])
        labels.append(range_label(state, slot.day, slot.slot_start, slot.slot_end, lang))
    return TEXTS[lang]["sep"].join(labels)


def _host_text(state: ScheduleState, host: dict[str, Any] | None, lang: Lang) -> str:
    if not host:
        return ""
    task = state.task(host.get("state_id", 0))
    name = task.name if task is not None else f"event {host.get('event_id')}"
    return TEXTS[lang]["inside"].format(id=host.get("state_id"), name=name)


def change_line(
    change: dict[str, Any], original: ScheduleState, final: ScheduleState, lang: Lang
) -> str:
    texts = TEXTS[lang]
    kind = texts.get(change["type"], change["type"])
    old = _slots_text(original, change.get("from") or [], lang)
    old += _host_text(original, change.get("from_embed_host"), lang)
    new = _slots_text(final, change.get("to") or [], lang)
    new += _host_text(final, change.get("embed_host"), lang)
    line = f"{kind} [{change['state_id']}]{change['name']}：{old} → {new}"
    if lang == "en":
        line = f"{kind} [{change['state_id']}]{change['name']}: {old} → {new}"
    if change.get("by"):
        line += texts["by"].format(by=change["by"])
    return line


def render_diff(
    changes: list[dict[str, Any]], original: ScheduleState, final: ScheduleState, lang: Lang
) -> str:
    if not changes:
        return TEXTS[lang]["no_changes"] + "\n"
    return "\n".join(change_line(c, original, final, lang) for c in changes) + "\n"
