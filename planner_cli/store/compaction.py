"""Compaction of long session histories (seed 003 CompactionStore): summary + watermark per stage.

`compact` folds every turn except the last `keep_last` into a template summary, one line per
turn, extending the previous summary of the stage; the watermark (number of folded turns)
never goes back. No LLM: the same turns always give the same summary.
"""

from __future__ import annotations

from typing import Literal

from planner_cli.store.base import Conversation, Snapshot, StageCompaction, Turn

Lang = Literal["zh", "en"]
FIELD_CHARS = 80
MAX_LINES = 50

_TEXTS = {
    "zh": {
        "turn": "第{n}轮：指令「{instruction}」",
        "plan": "；计划：{goal}（{steps}步）",
        "outcome": "；结果：{outcome}",
        "summary": "；摘要：{summary}",
        "omitted": "（更早的 {count} 轮已省略）",
    },
    "en": {
        "turn": "Turn {n}: instruction “{instruction}”",
        "plan": "; plan: {goal} ({steps} steps)",
        "outcome": "; outcome: {outcome}",
        "summary": "; summary: {summary}",
        "omitted": "(the {count} earlier turns are omitted)",
    },
}


def _cut(text: str, limit: int = FIELD_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def turn_line(n: int, turn: Turn, lang: Lang = "zh") -> str:
    """One summary line for turn number `n` (1-based)."""
    texts = _TEXTS[lang]
    line = texts["turn"].format(n=n, instruction=_cut(turn.instruction))
    if turn.plan is not None:
        goal = turn.plan.get("goal")
        steps = turn.plan.get("steps")
        line += texts["plan"].format(
            goal=_cut(str(goal)) if goal else "-",
            steps=len(steps) if isinstance(steps, list) else 0,
        )
    if turn.outcome:
        line += texts["outcome"].format(outcome=_cut(turn.outcome))
    if turn.summary:
        line += texts["summary"].format(summary=_cut(turn.summary))
    return line


def compact(
    conversation: Conversation,
    keep_last: int = 4,
    previous: StageCompaction | None = None,
    lang: Lang = "zh",
    max_lines: int = MAX_LINES,
) -> tuple[str, int]:
    """(summary, watermark): turns before the watermark are represented by the summary."""
    if keep_last < 0:
        raise ValueError(f"keep_last must not be negative (got {keep_last})")
    previous = previous or StageCompaction()
    turns = conversation.turns
    watermark = max(previous.watermark, len(turns) - keep_last)
    if watermark == previous.watermark:
        return previous.summary, previous.watermark
    omitted_prefix = _TEXTS[lang]["omitted"].split("{count}")[0]
    lines = [ln for ln in previous.summary.splitlines() if not ln.startswith(omitted_prefix)]
    lines += [
        turn_line(n, turns[n - 1], lang)
        for n in range(previous.watermark + 1, watermark + 1)
        if n <= len(turns)
    ]
    if len(lines) > max_lines:
        lines = lines[-max_lines:]
    omitted = watermark - len(lines)
    if omitted > 0:
        lines.insert(0, _TEXTS[lang]["omitted"].format(count=omitted))
    return "\n".join(lines), watermark


def compact_snapshot(
    snapshot: Snapshot, stage: str, keep_last: int = 4, lang: Lang = "zh"
) -> Snapshot:
    """A copy of `snapshot` whose `compaction[stage]` covers all but the last turns."""
    summary, watermark = compact(
        snapshot.conversation, keep_last, snapshot.compaction.get(stage), lang
    )
    new = snapshot.model_copy(deep=True)
    new.compaction[stage] = StageCompaction(summary=summary, watermark=watermark)
    return new


def context_turns(snapshot: Snapshot, stage: str) -> tuple[str, list[Turn]]:
    """What a stage shows the LLM: its summary and the turns after its watermark."""
    state = snapshot.compaction.get(stage) or StageCompaction()
    return state.summary, list(snapshot.conversation.turns[state.watermark :])
