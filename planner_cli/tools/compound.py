"""min_context_switch (seed-origin §2.14, §3.3): regroup a set of suggested tasks over their own
positions so that tasks of one context (category) sit next to each other; atomic via common.relocate.

Decisions: the tag is the trimmed category, else the name, else "General"; after planning the
new positions are checked for conflicts (embedding included) and then, jointly, for the
intra-class order; a water course that hosts a guest cannot take part; the change lines are
listed in the order of task_ids.
"""

from __future__ import annotations

from pydantic import Field

from planner_cli.model.state import ScheduleState, Slot, Task
from planner_cli.tools.common import (
    ToolContext,
    ToolFailure,
    ToolResult,
    check_range,
    get_task,
    relocate,
    slot_label,
)
from planner_cli.tools.messages import Lang, t
from planner_cli.tools.registry import ToolArgs, tool
from planner_cli.tools.write import (
    changed_entries,
    check_not_hosting,
    check_order,
    check_unlocked,
    embed_suffix,
    occupancy_lines,
)


class MinContextSwitchArgs(ToolArgs):
    """Reorder a set of suggested tasks among their own current positions so that tasks of the
    same category form contiguous runs (fewer context switches); the largest group gets the
    earliest positions. Use only when the user explicitly allowed changing the order.

    Every task must be suggested, unlocked and occupy exactly one block; tasks outside the set
    never move. All or nothing: fails, changing nothing, on a conflict or an order violation.
    """

    task_ids: list[int] | None = Field(
        default=None,
        description="state_ids of the suggested tasks to regroup (at least 2; duplicates ignored). Their order sets the priority inside a group.",
    )
    task_id: int | None = Field(
        default=None, description="Legacy single id; added to task_ids. Prefer task_ids."
    )


def context_tag(task: Task) -> str:
    return task.category.strip() or task.name.strip() or "General"


def switches(tasks: list[Task], positions: dict[int, Slot]) -> int:
    """Tag changes along the set sorted by (day, start, end, id)."""
    ordered = sorted(tasks, key=lambda x: (*positions[x.state_id].key(), x.state_id))
    tags = [context_tag(x) for x in ordered]
    return sum(1 for a, b in zip(tags, tags[1:], strict=False) if a != b)


def regroup(tasks: list[Task]) -> dict[int, Slot]:
    """seed-origin §3.3: same-tag tasks take contiguous positions from the tasks' own pool."""
    rank = {task.state_id: i for i, task in enumerate(tasks, 1)}
    groups: dict[str, list[Task]] = {}
    for task in tasks:
        groups.setdefault(context_tag(task), []).append(task)
    for members in groups.values():
        members.sort(key=lambda x: (rank[x.state_id], *x.slots[0].key(), x.state_id))
    order = sorted(
        groups, key=lambda tag: (-len(groups[tag]), min(rank[x.state_id] for x in groups[tag]), tag)
    )
    pool = sorted((task.slots[0] for task in tasks), key=lambda s: s.key())
    used = [False] * len(pool)
    chosen: dict[int, Slot] = {}
    for tag in order:
        for task in groups[tag]:
            span = task.slots[0].length
            for i, slot in enumerate(pool):
                if used[i] or slot.length != span:
                    continue
                if any(
                    c.overlaps(slot.day, slot.slot_start, slot.slot_end) for c in chosen.values()
                ):
                    continue
                used[i] = True
                chosen[task.state_id] = slot
                break
            else:  # pragma: no cover - the pool always holds one slot of each task's span
                raise AssertionError(f"no slot of span {span} for task {task.state_id}")
    return chosen


def collect_task_set(
    state: ScheduleState, task_ids: list[int] | None, task_id: int | None, prefix: str, lang: Lang
) -> list[Task]:
    """The task set of min_context_switch and spread_even (seed-origin §2.14): ids de-duplicated
    in order, non-positive ones dropped, at least 2; each suggested, unlocked, not hosting a
    guest, in exactly one block inside the window."""
    raw = list(task_ids or []) + ([task_id] if task_id is not None else [])
    if not raw:
        raise ToolFailure(t(lang, "set_missing_ids", prefix=prefix))
    ids: list[int] = []
    for task_id_ in raw:
        if task_id_ > 0 and task_id_ not in ids:
            ids.append(task_id_)
    if len(ids) < 2:
        raise ToolFailure(t(lang, "set_too_few", prefix=prefix))
    tasks: list[Task] = []
    for id_ in ids:
        task = get_task(state, id_, prefix, lang)
        if not task.is_suggested:
            raise ToolFailure(
                t(lang, "set_not_suggested", prefix=prefix, id=task.state_id, name=task.name)
            )
        check_unlocked(task, prefix, lang)
        check_not_hosting(state, task, prefix, lang)
        if len(task.slots) != 1:
            raise ToolFailure(
                t(
                    lang,
                    "set_multi_slot",
                    prefix=prefix,
                    id=task.state_id,
                    name=task.name,
                    k=len(task.slots),
                )
            )
        slot = task.slots[0]
        check_range(state, slot.day, slot.slot_start, slot.slot_end, prefix, lang)
        tasks.append(task)
    return tasks


@tool("min_context_switch", MinContextSwitchArgs, kind="write", prefix_key="mcs_prefix")
def min_context_switch(
    state: ScheduleState, args: MinContextSwitchArgs, ctx: ToolContext
) -> ToolResult:
    lang = ctx.lang
    prefix = t(lang, "mcs_prefix")
    tasks = collect_task_set(state, args.task_ids, args.task_id, prefix, lang)

    before = {task.state_id: task.slots[0] for task in tasks}
    after = regroup(tasks)
    moved = [task.state_id for task in tasks if after[task.state_id] != before[task.state_id]]
    n_before, n_after = switches(tasks, before), switches(tasks, after)
    head = t(lang, "mcs_done", n=len(tasks), before=n_before, after=n_after)
    if not moved:
        text = "\n".join([head, t(lang, "mcs_no_change")])
        data = {"changed": [], "switches_before": n_before, "switches_after": n_after}
        return ToolResult(True, text, state, data)

    new, conflict = relocate(state, {task_id: [after[task_id]] for task_id in moved})
    if conflict is not None:
        raise ToolFailure(conflict.text(new, "set_conflict", lang, prefix=prefix))
    check_order(new, moved, prefix, lang)
    lines = [head, t(lang, "mcs_changes")]
    days: list[int] = []
    for task_id in moved:
        old_slot, new_slot = before[task_id], after[task_id]
        landed = new.task(task_id)
        assert landed is not None
        days += [old_slot.day, new_slot.day]
        lines.append(
            t(
                lang,
                "mcs_change_line",
                id=task_id,
                name=landed.name,
                old=slot_label(state, old_slot, lang),
                new=slot_label(new, new_slot, lang),
                suffix=embed_suffix(new, landed, lang),
            )
        )
    lines += occupancy_lines(new, days, lang)
    data = {
        "changed": changed_entries(state, new, moved),
        "switches_before": n_before,
        "switches_after": n_after,
    }
    return ToolResult(True, "\n".join(lines), new, data, changed=moved)
