"""The engine's last line of defence: no step of a run (LLM answer or plan file) changes a fact.

Every tool call of a run goes through `protect_facts`: a call whose result would change the
slots or host of a locked course or an existing task is refused after the fact, so references,
ReAct calls and side effects (unplacing a host unplaces its guest) are all covered, and the run
goes on from the unchanged state. Decision (planning.md: "existing tasks are facts"): this also
refuses `unplace`/`swap` of existing, unlocked tasks, which `planner tool` allows a user.

With a `now` (`batch`/`plan --now`), the past is a fact too: a call that would move, place or unplace a
task to or from a position starting before now is refused the same way, so an unattended
instruction run never rewrites what already happened nor schedules work in the past.
"""

from __future__ import annotations

from typing import Any

from planner_cli.engine.executor import ToolRunner
from planner_cli.model.state import ScheduleState, Task
from planner_cli.solver.problem import first_g
from planner_cli.tools.common import ToolContext, ToolResult

_TEXT = {
    "zh": "操作被拒绝：{tool} 会改变{what}，这些是课表中的既定事实，计划不能修改它们。状态未改变。",
    "en": (
        "refused: {tool} would change {what}, which are facts of the timetable that a plan"
        " never changes; the state is unchanged."
    ),
}
_PAST = {
    "zh": "操作被拒绝：{tool} 会把{what}安排到当前时刻之前或改动已过去的安排；过去的课表不能修改。状态未改变。",
    "en": (
        "refused: {tool} would put {what} before now or change what already happened;"
        " the past never changes. The state is unchanged."
    ),
}
_KIND = {
    "locked": {"zh": "固定课程", "en": "locked course"},
    "course": {"zh": "课程", "en": "course"},
    "existing": {"zh": "已安排(existing)任务", "en": "existing task"},
}


def is_fact(task: Task) -> bool:
    """A task no plan may move, unplace or swap: a locked course or an existing task."""
    return task.locked or task.is_existing


def changed_facts(before: ScheduleState, after: ScheduleState) -> list[Task]:
    """The facts of `before` whose slots or embed host differ (or are gone) in `after`."""
    changed = []
    by_id = {t.state_id: t for t in after.tasks}
    for task in before.tasks:
        if not is_fact(task) or not task.slots:
            continue
        now = by_id.get(task.state_id)
        if (
            now is None
            or [s.key() for s in now.slots] != [s.key() for s in task.slots]
            or now.embed_host != task.embed_host
        ):
            changed.append(task)
    return changed


def changed_past(before: ScheduleState, after: ScheduleState, now_g: int) -> list[Task]:
    """Tasks whose position changed to or from one that starts before `now_g`."""
    changed = []
    by_id = {t.state_id: t for t in before.tasks}
    for task in after.tasks:
        old = by_id.get(task.state_id)
        old_slots = old.slots if old is not None else []
        if [s.key() for s in old_slots] == [s.key() for s in task.slots]:
            continue
        if any(slots and first_g(slots) < now_g for slots in (task.slots, old_slots)):
            changed.append(task)
    return changed


def refusal(tool: str, facts: list[Task], lang: str) -> str:
    lang = lang if lang in _TEXT else "zh"
    names = "、".join(f"[{t.state_id}]{t.name}({_KIND[_kind(t)][lang]})" for t in facts)
    return _TEXT[lang].format(tool=tool, what=names)


def _kind(task: Task) -> str:
    if task.locked:
        return "locked"
    return "course" if task.event_type == "course" else "existing"


def protect_facts(runner: ToolRunner, now_g: int | None = None) -> ToolRunner:
    """`runner` with every call that would change a fact (or, with `now_g`, the past) turned
    into a refusal."""

    def guarded(
        name: str, state: ScheduleState, args: dict[str, Any], ctx: ToolContext
    ) -> ToolResult:
        result = runner(name, state, args, ctx)
        if not result.ok or result.state is state:
            return result
        facts = changed_facts(state, result.state)
        if facts:
            text = refusal(name, facts, ctx.lang)
            return ToolResult(False, text, state, {"error": text, "refused": "facts"})
        past = changed_past(state, result.state, now_g) if now_g is not None else []
        if past:
            lang = ctx.lang if ctx.lang in _PAST else "zh"
            what = ("、" if lang == "zh" else ", ").join(f"[{t.state_id}]{t.name}" for t in past)
            text = _PAST[lang].format(tool=name, what=what)
            return ToolResult(False, text, state, {"error": text, "refused": "past"})
        return result

    guarded.protects_facts = True  # type: ignore[attr-defined]
    return guarded
