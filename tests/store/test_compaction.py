"""Compaction of long histories: deterministic template summaries with a watermark per stage."""

from __future__ import annotations

import pytest

from planner_cli.store import Conversation, Snapshot, StageCompaction, Turn
from planner_cli.store.compaction import compact, compact_snapshot, context_turns


def conv(n: int) -> Conversation:
    return Conversation(
        turns=[
            Turn(
                instruction=f"指令{i}",
                plan={"goal": f"目标{i}", "steps": [{"id": "s1"}] * i},
                summary=f"摘要{i}",
                outcome="completed",
            )
            for i in range(1, n + 1)
        ]
    )


def test_short_history_is_not_compacted():
    assert compact(conv(3), keep_last=4) == ("", 0)


def test_older_turns_fold_into_a_summary_with_a_watermark():
    summary, watermark = compact(conv(6), keep_last=2)
    assert watermark == 4
    lines = summary.splitlines()
    assert len(lines) == 4
    assert lines[0] == "第1轮：指令「指令1」；计划：目标1（1步）；结果：completed；摘要：摘要1"
    assert lines[3].startswith("第4轮：指令「指令4」")


def test_compaction_is_deterministic_and_incremental():
    first = compact(conv(6), keep_last=2)
    assert compact(conv(6), keep_last=2) == first
    previous = StageCompaction(summary=first[0], watermark=first[1])
    summary, watermark = compact(conv(9), keep_last=2, previous=previous)
    assert watermark == 7
    assert summary == compact(conv(9), keep_last=2)[0]


def test_watermark_never_goes_back():
    previous = StageCompaction(summary="old", watermark=5)
    assert compact(conv(6), keep_last=4, previous=previous) == ("old", 5)


def test_long_fields_and_many_lines_are_bounded():
    long = Conversation(turns=[Turn(instruction="很长" * 100) for _ in range(60)])
    summary, watermark = compact(long, keep_last=0, max_lines=10)
    lines = summary.splitlines()
    assert watermark == 60
    assert lines[0] == "（更早的 50 轮已省略）"
    assert len(lines) == 11
    assert all(len(line) < 120 for line in lines)
    assert lines[-1].startswith("第60轮")


def test_english_template():
    summary, _ = compact(conv(2), keep_last=1, lang="en")
    assert (
        summary
        == "Turn 1: instruction “指令1”; plan: 目标1 (1 steps); outcome: completed; summary: 摘要1"
    )


def test_negative_keep_last_is_refused():
    with pytest.raises(ValueError):
        compact(conv(2), keep_last=-1)


def test_stages_are_compacted_independently():
    snap = Snapshot(conversation=conv(5))
    snap = compact_snapshot(snap, "plan", keep_last=1)
    snap = compact_snapshot(snap, "react", keep_last=3)
    assert snap.compaction["plan"].watermark == 4
    assert snap.compaction["react"].watermark == 2
    summary, turns = context_turns(snap, "plan")
    assert summary.count("\n") == 3
    assert [t.instruction for t in turns] == ["指令5"]
    assert context_turns(snap, "deliver") == ("", snap.conversation.turns)
