"""Texts the engines write: compressed observations for the next round and the final summary.

The template summary (zh or en) is built from facts only: the outcome, the changes between the
original and the final state, failed steps with the tool's reason, and pending tasks left. When
the model wrote a summary it comes first; the template facts always follow, so a summary never
claims more than happened.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from planner_cli.engine.executor import StepRecord
from planner_cli.model.state import ScheduleState
from planner_cli.tools.common import slots_label
from planner_cli.tools.messages import Lang

MAX_LISTED = 20

TEXTS: dict[str, dict[str, str]] = {
    "outcome_completed": {"zh": "结果：已完成。", "en": "Outcome: completed."},
    "outcome_partial": {"zh": "结果：部分完成。", "en": "Outcome: partially done."},
    "outcome_fallback": {
        "zh": "结果：LLM 不可用，仅保留粗排结果。",
        "en": "Outcome: the LLM was unusable; only the rough layout was kept.",
    },
    "outcome_no_llm": {
        "zh": "结果：未配置 LLM，仅执行粗排。",
        "en": "Outcome: no LLM configured; only the rough layout ran.",
    },
    "changes": {
        "zh": "变更共 {n} 项（安排 {place}，移动 {move}，移除 {unplace}）：",
        "en": "{n} changes ({place} placed, {move} moved, {unplace} removed):",
    },
    "no_changes": {"zh": "没有任何变更。", "en": "No changes."},
    "change_place": {
        "zh": "- 安排 [{id}]{name}：{to}（{by}）",
        "en": "- placed [{id}]{name}: {to} ({by})",
    },
    "change_move": {
        "zh": "- 移动 [{id}]{name}：{frm} → {to}（{by}）",
        "en": "- moved [{id}]{name}: {frm} → {to} ({by})",
    },
    "change_unplace": {
        "zh": "- 移除 [{id}]{name}：{frm}（{by}）",
        "en": "- removed [{id}]{name}: {frm} ({by})",
    },
    "more": {"zh": "- …另有 {n} 项", "en": "- … and {n} more"},
    "failed": {"zh": "失败的步骤：", "en": "Failed steps:"},
    "failed_step": {"zh": "- {id} {tool}：{text}", "en": "- {id} {tool}: {text}"},
    "pending": {"zh": "待安排任务剩余：{n} 个。", "en": "Pending tasks left: {n}."},
    "notes": {"zh": "说明：", "en": "Notes:"},
}


def text(lang: Lang, key: str, **values: object) -> str:
    return TEXTS[key][lang].format(**values)


def compress(value: str, budget: int) -> str:
    """One line: newlines become " | ", runs of spaces one space, cut to `budget` characters."""
    flat = re.sub(r"[ \t]+", " ", re.sub(r"\s*\n\s*", " | ", value.strip()))
    return flat if len(flat) <= budget else flat[: max(0, budget - 1)] + "…"


def observations(records: Iterable[StepRecord], budget: int) -> str:
    """One line per step: `s2 move → failed: <text cut to budget>`."""
    lines = []
    for record in records:
        extra = f" (same as {record.duplicate_of})" if record.duplicate_of else ""
        lines.append(
            f"{record.id} {record.tool} → {record.status}{extra}: {compress(record.result, budget)}"
        )
    return "\n".join(lines)


def diff(original: ScheduleState, final: ScheduleState) -> list[tuple[str, int]]:
    """(kind, state_id) of every task whose position changed: place, move or unplace."""
    out: list[tuple[str, int]] = []
    for task in sorted(final.tasks, key=lambda t: t.state_id):
        old = original.task(task.state_id)
        had = bool(old and old.slots)
        if not had and task.slots:
            out.append(("place", task.state_id))
        elif had and not task.slots:
            out.append(("unplace", task.state_id))
        elif (
            had
            and old is not None
            and (
                [s.key() for s in old.slots] != [s.key() for s in task.slots]
                or old.embed_host != task.embed_host
            )
        ):
            out.append(("move", task.state_id))
    return out


def template_summary(
    lang: Lang,
    outcome: str,
    original: ScheduleState,
    final: ScheduleState,
    by: dict[int, str],
    failed: list[StepRecord],
    notes: list[str],
    default_by: str = "rough_layout",
) -> str:
    lines = [text(lang, f"outcome_{outcome}")]
    changes = diff(original, final)
    if changes:
        counts = {k: sum(1 for c, _ in changes if c == k) for k in ("place", "move", "unplace")}
        lines.append(text(lang, "changes", n=len(changes), **counts))
        for kind, state_id in changes[:MAX_LISTED]:
            task = final.task(state_id)
            old = original.task(state_id)
            assert task is not None
            lines.append(
                text(
                    lang,
                    f"change_{kind}",
                    id=state_id,
                    name=task.name,
                    frm=slots_label(original, old.slots, lang) if old else "",
                    to=slots_label(final, task.slots, lang),
                    by=by.get(state_id, default_by),
                )
            )
        if len(changes) > MAX_LISTED:
            lines.append(text(lang, "more", n=len(changes) - MAX_LISTED))
    else:
        lines.append(text(lang, "no_changes"))
    if failed:
        lines.append(text(lang, "failed"))
        for record in failed[:MAX_LISTED]:
            lines.append(
                text(
                    lang,
                    "failed_step",
                    id=record.id,
                    tool=record.tool,
                    text=compress(record.result, 300),
                )
            )
    pending = sum(1 for t in final.tasks if t.is_pending)
    if pending:
        lines.append(text(lang, "pending", n=pending))
    if notes:
        lines.append(text(lang, "notes"))
        lines.extend(f"- {note}" for note in notes)
    return "\n".join(lines)


def final_summary(model_summary: str | None, template: str) -> str:
    if model_summary and model_summary.strip():
        return model_summary.strip() + "\n\n" + template
    return template
