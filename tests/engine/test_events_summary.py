"""Events (JSON lines, readable lines, TTY progress, masking) and the summary texts."""

from __future__ import annotations

import io
import json

from planner_cli.engine.events import Events, redact
from planner_cli.engine.executor import StepRecord
from planner_cli.engine.summary import compress, final_summary, observations, template_summary

SECRET = "sk-abc-123456"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_json_lines_are_numbered_and_masked():
    sink = io.StringIO()
    events = Events(jsonl=sink, secrets=[SECRET])
    events.emit("plan.round", round=1)
    events.emit("llm.reasoning", text=f"my key is {SECRET}", extra={"k": [SECRET]})
    lines = [json.loads(line) for line in sink.getvalue().splitlines()]
    assert lines[0] == {"seq": 1, "stage": "plan.round", "round": 1}
    assert lines[1]["text"] == "my key is ***" and lines[1]["extra"] == {"k": ["***"]}
    assert SECRET not in sink.getvalue()
    assert events.stages() == ["plan.round", "llm.reasoning"]


def test_verbose_lines_are_readable():
    err = io.StringIO()
    events = Events(verbose=err)
    events.emit("step.result", id="s1", tool="move", status="failed", text="移动失败：冲突\n第2行")
    assert (
        err.getvalue() == "[step.result] id=s1 tool=move status=failed\n  移动失败：冲突\n  第2行\n"
    )


def test_progress_only_without_verbose():
    tty = Tty()
    events = Events(progress=tty)
    events.emit("plan.round", round=2)
    events.emit("llm.reasoning", text="long thoughts")
    events.emit("step.start", id="s3", tool="place")
    events.close()
    shown = tty.getvalue()
    assert "\r\033[Kplan.round 2" in shown and "step.start s3 place" in shown
    assert "long thoughts" not in shown and shown.endswith("\n")
    quiet = Tty()
    Events(verbose=io.StringIO(), progress=quiet).emit("plan.round", round=1)
    assert quiet.getvalue() == ""


def test_redact_leaves_short_and_empty_secrets_alone():
    assert redact("abc", ["", "ab"]) == "abc"
    assert redact({"a": ("x", SECRET)}, [SECRET]) == {"a": ["x", "***"]}


def test_compress_and_observations():
    assert compress("a\n\n  b   c\n", 100) == "a | b c"
    assert compress("x" * 10, 5) == "xxxx…"
    records = [
        StepRecord("s1", "get_overview", {}, [], "success", 1, "line1\nline2"),
        StepRecord("s2", "get_overview", {}, [], "success", 0, "line1\nline2", duplicate_of="s1"),
    ]
    assert observations(records, 50) == (
        "s1 get_overview → success: line1 | line2\n"
        "s2 get_overview → success (same as s1): line1 | line2"
    )


def test_template_summary_lists_changes_failures_and_pending(s0):
    final = s0.model_copy(deep=True)
    final.task(6).slots = [final.task(6).slots[0].model_copy(update={"day": 5})]
    failed = [StepRecord("s2", "move", {}, [], "failed", 1, "移动失败：冲突")]
    text = template_summary("zh", "partial", s0, final, {6: "s1"}, failed, ["round 2: note"])
    assert text.splitlines() == [
        "结果：部分完成。",
        "变更共 1 项（安排 0，移动 1，移除 0）：",
        "- 移动 [6]英语1：第4天(星期4)第1-2节 → 第5天(星期5)第1-2节（s1）",
        "失败的步骤：",
        "- s2 move：移动失败：冲突",
        "待安排任务剩余：2 个。",
        "说明：",
        "- round 2: note",
    ]
    english = template_summary("en", "completed", s0, s0, {}, [], [])
    assert english.splitlines() == ["Outcome: completed.", "No changes.", "Pending tasks left: 2."]
    assert final_summary("  模型的总结 ", "facts") == "模型的总结\n\nfacts"
    assert final_summary(None, "facts") == "facts"
