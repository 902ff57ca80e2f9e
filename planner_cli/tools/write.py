"""Write tools place, move, swap, batch_move and unplace (seed 000 §5, seed-origin §2.8–2.12).

Every position change goes through `common.relocate`, so moves are
simultaneous, atomic (the input state is never touched) and embed links stay right.

Decisions where the spec leaves a choice (each pinned by tests/tools/test_write.py):
- seed-origin §7.7 kept: swap accepts any placed unlocked task (existing ones and water courses
  included); unplace accepts any placed unlocked task.
- §7.15 fixed: batch_move applies every move, then checks conflicts against the final positions
  (exchanging two tasks works); a task id may appear only once in one batch.
- §7.16: the order check compares with the nearest *placed* sibling before and after
  (common.order_violation), so in plain S0 task 5 may move to day 2 (scenario 8).
- A task that currently hosts a guest may not move (move, swap, batch_move, min_context_switch
  refuse with common's host_has_guest right after the lock check): a host never leaves its
  guests behind. unplace of a host releases its guests (pending, duration = their block length,
  links cleared) and says so in one extra line.
- unplace of a task whose duration is 0 sets it to the sections it held (at most 12), so it can
  be placed again; a placed task without any slot cannot be unplaced (nothing to remove).
- A multi-block task (swap) never lands partly inside a water course: embedding is one block in
  one occurrence, so any overlap of such a task with a water course is a conflict.
- Success texts of move, swap and batch_move add "（嵌入宿主：[h]name）" when the task lands
  inside a water course (place has the seed's own 预排并嵌入 text).
- Argument parse errors use the registry's common texts ("批量移动失败：缺少必填参数 moves。"),
  not the seed's variants ("缺少 moves 参数").
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import Field

from planner_cli.model.state import SECTIONS_PER_DAY, ScheduleState, Slot, Task
from planner_cli.tools.common import (
    Conflict,
    ToolContext,
    ToolFailure,
    ToolResult,
    check_range,
    conflict_text,
    free_hint,
    get_task,
    occupancy_line,
    order_violation,
    pending_count,
    relocate,
    slot_json,
    slot_label,
    slots_label,
)
from planner_cli.tools.messages import Lang, t
from planner_cli.tools.registry import ToolArgs, tool

# -- shared helpers (also used by queue.py and compound.py) -------------------------------


def check_unlocked(task: Task, prefix: str, lang: Lang) -> None:
    if task.locked:
        raise ToolFailure(t(lang, "locked", prefix=prefix, id=task.state_id, name=task.name))


def check_not_hosting(state: ScheduleState, task: Task, prefix: str, lang: Lang) -> None:
    """A water course with a guest stays where it is (its guests would be left behind)."""
    if not task.embedded_by:
        return
    guest = state.task(task.embedded_by[0])
    raise ToolFailure(
        t(
            lang,
            "host_has_guest",
            prefix=prefix,
            id=task.state_id,
            name=task.name,
            gid=task.embedded_by[0],
            gname=guest.name if guest is not None else "",
        )
    )


def check_order(state: ScheduleState, moved: list[int], prefix: str, lang: Lang) -> None:
    """Order constraint on the proposals (already applied to `state`)."""
    violation = order_violation(state, moved, lang)
    if violation is not None:
        raise ToolFailure(prefix + violation)


def conflict_report(
    state: ScheduleState, conflict: Conflict, prefix: str, lang: Lang, mark_fixed: bool = False
) -> str:
    """The seed's conflict text: message, the day's occupancy, its free hint (current state).

    Only place marks a fixed course "（固定）" (seed-origin §2.8 vs §2.9)."""
    slot = conflict.slot
    lines = [
        conflict_text(
            state,
            conflict.blocker,
            slot.day,
            slot.slot_start,
            slot.slot_end,
            prefix,
            lang,
            mark_fixed,
        ),
        occupancy_line(state, slot.day, lang),
    ]
    hint = free_hint(state, slot.day, lang)
    if hint:
        lines.append(hint)
    return "\n".join(lines)


def embed_suffix(state: ScheduleState, task: Task, lang: Lang) -> str:
    if task.embed_host is None:
        return ""
    host = state.task(task.embed_host)
    return t(lang, "write_embed_suffix", hid=task.embed_host, hname=host.name if host else "")


def occupancy_lines(state: ScheduleState, days: list[int], lang: Lang) -> list[str]:
    return [occupancy_line(state, day, lang) for day in sorted(set(days))]


def changed_entries(
    before: ScheduleState, after: ScheduleState, ids: list[int]
) -> list[dict[str, Any]]:
    """`data["changed"]` of a write result: old and new slots and the new embed host."""
    out = []
    for task_id in ids:
        old = before.task(task_id)
        new = after.task(task_id)
        assert old is not None and new is not None, task_id
        out.append(
            {
                "state_id": task_id,
                "from": [slot_json(before, s) for s in old.slots],
                "to": [slot_json(after, s) for s in new.slots],
                "embed_host": new.embed_host,
            }
        )
    return out


def block(state: ScheduleState, day: int, start: int, length: int, prefix: str, lang: Lang) -> Slot:
    """The one block of `length` sections at (day, start), after the seed's range checks."""
    end = start + length - 1
    check_range(state, day, start, end, prefix, lang)
    return Slot(day=day, slot_start=start, slot_end=end)


def move_task(state: ScheduleState, task_id: int, day: int, start: int, lang: Lang) -> ToolResult:
    """The move logic (shared with queue_apply_head_move); raises ToolFailure with the text."""
    prefix = t(lang, "move_prefix")
    task = get_task(state, task_id, prefix, lang)
    if not task.is_suggested:
        key = "move_pending" if task.is_pending else "move_existing"
        raise ToolFailure(t(lang, key, prefix=prefix, id=task.state_id, name=task.name))
    check_unlocked(task, prefix, lang)
    check_not_hosting(state, task, prefix, lang)
    target = block(state, day, start, task.slot_sections, prefix, lang)
    new, conflict = relocate(state, {task_id: [target]})
    check_order(new, [task_id], prefix, lang)
    if conflict is not None:
        raise ToolFailure(conflict_report(state, conflict, prefix, lang))
    moved = new.task(task_id)
    assert moved is not None
    head = t(
        lang,
        "move_done",
        id=task_id,
        name=task.name,
        old=slots_label(state, task.slots, lang),
        new=slot_label(new, target, lang),
        suffix=embed_suffix(new, moved, lang),
    )
    days = [s.day for s in task.slots] + [day]
    text = "\n".join([head, *occupancy_lines(new, days, lang)])
    data = {"changed": changed_entries(state, new, [task_id])}
    return ToolResult(True, text, new, data, changed=[task_id])


# -- argument models ----------------------------------------------------------------------


class PlaceArgs(ToolArgs):
    """Place one pending task (status pending, no position yet) as a suggestion.

    The task occupies `duration` consecutive sections (its own duration field) starting at
    slot_start on the given day. If that block lies fully inside a free occurrence of an
    embeddable ("water") course and the task's class allows filler courses, the task is embedded
    there; any other overlap is refused. Fails, changing nothing, if the task is not pending, the
    block leaves the window or sections 1..12, breaks the order of its task class, or conflicts.
    """

    task_id: int = Field(description="state_id of the pending task to place.")
    day: int = Field(description="Target day index inside the planning window (1..N).")
    slot_start: int = Field(
        description="First section of the block (1..12); the block ends at slot_start + duration - 1, which must be <= 12."
    )


class MoveArgs(ToolArgs):
    """Move one suggested task to a new position (existing and pending tasks cannot be moved).

    The task keeps its length (the sections it occupies now, merged into one block) and starts
    at new_slot_start on new_day. A block fully inside a free occurrence of a water course whose
    use the task's class allows becomes embedded there. Fails, changing nothing, on a locked task,
    a task hosting an embedded task, a block outside the window or sections 1..12, an order
    violation inside its task class, or a conflict.
    """

    task_id: int = Field(description="state_id of the suggested task to move.")
    new_day: int = Field(description="Target day index inside the planning window (1..N).")
    new_slot_start: int = Field(
        description="First section of the new block (1..12); the block keeps the task's current length."
    )


class SwapArgs(ToolArgs):
    """Exchange the positions of two placed, unlocked tasks that occupy the same number of sections.

    Each task takes the other's slots; both are checked together (order inside task classes and
    conflicts at the final positions). Fails, changing nothing, otherwise.
    """

    task_a: int = Field(description="state_id of the first placed task.")
    task_b: int = Field(description="state_id of the second placed task (different from task_a).")


class BatchMoveItem(ToolArgs):
    """One move of a batch: a suggested task and its new position."""

    task_id: int = Field(description="state_id of a suggested task.")
    new_day: int = Field(description="Target day index inside the planning window (1..N).")
    new_slot_start: int = Field(
        description="First section of the new block (1..12); the block keeps the task's current length."
    )


class BatchMoveArgs(ToolArgs):
    """Move at most 2 suggested tasks at once, all or nothing.

    All moves are applied together and then checked against the final positions, so two tasks
    can exchange places in one call. Each task may appear only once. For more than 2 tasks use
    the queue (queue_pop_head + queue_apply_head_move).
    """

    moves: list[BatchMoveItem] = Field(
        description="1 or 2 moves, each {task_id, new_day, new_slot_start}; task ids must differ."
    )

    @classmethod
    def precheck(cls, raw: dict[str, Any], prefix: str, lang: Lang) -> None:
        """The seed's parse errors (seed-origin §2.11), in its order and words."""
        moves = raw.get("moves")
        if moves is None:
            raise ToolFailure(t(lang, "batch_move_no_moves", prefix=prefix))
        if not isinstance(moves, list):
            raise ToolFailure(t(lang, "batch_move_not_array", prefix=prefix))
        for i, move in enumerate(moves):
            if not isinstance(move, dict):
                raise ToolFailure(t(lang, "batch_move_bad_item", prefix=prefix, i=i))
            for name in ("task_id", "new_day", "new_slot_start"):
                value = move.get(name)
                if isinstance(value, dict) and set(value) == {"ref"}:
                    continue  # a plan reference, resolved before the call
                if not (
                    isinstance(value, int | float)
                    and not isinstance(value, bool)
                    and math.isfinite(value)
                ):
                    raise ToolFailure(
                        t(lang, "batch_move_bad_field", prefix=prefix, i=i, name=name)
                    )


class UnplaceArgs(ToolArgs):
    """Remove a placed, unlocked task from the timetable and make it pending again.

    A task embedded in a water course leaves it; a water course that hosts embedded tasks releases
    them too (they become pending). The task keeps its duration (or, if it had none, the number of
    sections it held), so it can be placed again.
    """

    task_id: int = Field(description="state_id of the placed task to remove.")


# -- tools --------------------------------------------------------------------------------


@tool("place", PlaceArgs, kind="write", prefix_key="place_prefix")
def place(state: ScheduleState, args: PlaceArgs, ctx: ToolContext) -> ToolResult:
    lang = ctx.lang
    prefix = t(lang, "place_prefix")
    task = get_task(state, args.task_id, prefix, lang)
    if not task.is_pending:
        raise ToolFailure(
            t(lang, "place_not_pending", prefix=prefix, id=task.state_id, name=task.name)
        )
    target = block(state, args.day, args.slot_start, task.duration, prefix, lang)
    new, conflict = relocate(state, {task.state_id: [target]})
    check_order(new, [task.state_id], prefix, lang)
    if conflict is not None:
        raise ToolFailure(conflict_report(state, conflict, prefix, lang, mark_fixed=True))
    placed = new.task(task.state_id)
    assert placed is not None
    placed.status = "suggested"
    label = slot_label(new, target, lang)
    host = new.task(placed.embed_host) if placed.embed_host is not None else None
    if host is not None:
        head = t(
            lang,
            "place_done_embedded",
            id=task.state_id,
            name=task.name,
            label=label,
            hid=host.state_id,
            hname=host.name,
        )
    else:
        head = t(lang, "place_done", id=task.state_id, name=task.name, label=label)
    left = pending_count(new)
    text = "\n".join(
        [head, occupancy_line(new, args.day, lang), t(lang, "pending_left", count=left)]
    )
    data = {"changed": changed_entries(state, new, [task.state_id]), "pending_count": left}
    return ToolResult(True, text, new, data, changed=[task.state_id])


@tool("move", MoveArgs, kind="write", prefix_key="move_prefix")
def move(state: ScheduleState, args: MoveArgs, ctx: ToolContext) -> ToolResult:
    return move_task(state, args.task_id, args.new_day, args.new_slot_start, ctx.lang)


@tool("swap", SwapArgs, kind="write", prefix_key="swap_prefix")
def swap(state: ScheduleState, args: SwapArgs, ctx: ToolContext) -> ToolResult:
    lang = ctx.lang
    prefix = t(lang, "swap_prefix")
    a = get_task(state, args.task_a, prefix, lang)
    b = get_task(state, args.task_b, prefix, lang)
    if a.state_id == b.state_id:
        raise ToolFailure(t(lang, "swap_self", prefix=prefix))
    for task in (a, b):
        if not task.is_placed or not task.slots:
            raise ToolFailure(
                t(lang, "swap_not_placed", prefix=prefix, id=task.state_id, name=task.name)
            )
    for task in (a, b):
        check_unlocked(task, prefix, lang)
    for task in (a, b):
        check_not_hosting(state, task, prefix, lang)
    if a.slot_sections != b.slot_sections:
        raise ToolFailure(
            t(
                lang,
                "swap_duration",
                prefix=prefix,
                a=a.state_id,
                aname=a.name,
                x=a.slot_sections,
                b=b.state_id,
                bname=b.name,
                y=b.slot_sections,
            )
        )
    ids = [a.state_id, b.state_id]
    new, conflict = relocate(state, {a.state_id: list(b.slots), b.state_id: list(a.slots)})
    check_order(new, ids, prefix, lang)
    if conflict is not None:
        raise ToolFailure(conflict.text(new, "swap_conflict", lang, prefix=prefix))
    lines = [t(lang, "swap_done")]
    for old in (a, b):
        moved = new.task(old.state_id)
        assert moved is not None
        lines.append(
            t(
                lang,
                "swap_done_line",
                id=old.state_id,
                name=old.name,
                old=slots_label(state, old.slots, lang),
                new=slots_label(new, moved.slots, lang),
                suffix=embed_suffix(new, moved, lang),
            )
        )
    days = [s.day for s in a.slots + b.slots]
    text = "\n".join(lines + occupancy_lines(new, days, lang))
    return ToolResult(True, text, new, {"changed": changed_entries(state, new, ids)}, changed=ids)


@tool("batch_move", BatchMoveArgs, kind="write", prefix_key="batch_move_prefix")
def batch_move(state: ScheduleState, args: BatchMoveArgs, ctx: ToolContext) -> ToolResult:
    lang = ctx.lang
    prefix = t(lang, "batch_move_prefix")
    moves = args.moves
    if not moves:
        raise ToolFailure(t(lang, "batch_move_empty", prefix=prefix))
    if len(moves) > 2:
        raise ToolFailure(t(lang, "batch_move_limit", prefix=prefix))
    first_seen: dict[int, int] = {}
    for i, item in enumerate(moves, 1):
        if item.task_id in first_seen:
            raise ToolFailure(
                t(
                    lang,
                    "batch_move_duplicate",
                    prefix=prefix,
                    id=item.task_id,
                    i=first_seen[item.task_id],
                    j=i,
                )
            )
        first_seen[item.task_id] = i

    def rollback(reason: str) -> ToolFailure:
        return ToolFailure(t(lang, "batch_move_rollback", reason=reason))

    proposals: dict[int, list[Slot]] = {}
    for i, item in enumerate(moves, 1):
        try:
            task = get_task(state, item.task_id, "", lang)
            if not task.is_suggested:
                key = "move_pending" if task.is_pending else "move_existing"
                raise ToolFailure(t(lang, key, prefix="", id=task.state_id, name=task.name))
            check_unlocked(task, "", lang)
            check_not_hosting(state, task, "", lang)
            target = block(state, item.new_day, item.new_slot_start, task.slot_sections, "", lang)
        except ToolFailure as exc:
            raise rollback(t(lang, "batch_move_item", reason=exc.text, i=i)) from None
        proposals[task.state_id] = [target]
    ids = list(proposals)
    new, conflict = relocate(state, proposals)
    violation = order_violation(new, ids, lang)
    if violation is not None:
        raise rollback(violation)
    if conflict is not None:
        raise rollback(conflict.text(new, "batch_move_conflict", lang))
    lines = [t(lang, "batch_move_done", n=len(ids))]
    days: list[int] = []
    for task_id in ids:
        old = state.task(task_id)
        moved = new.task(task_id)
        assert old is not None and moved is not None
        days += [s.day for s in old.slots + moved.slots]
        lines.append(
            t(
                lang,
                "batch_move_done_line",
                id=task_id,
                name=moved.name,
                label=slots_label(new, moved.slots, lang),
                suffix=embed_suffix(new, moved, lang),
            )
        )
    text = "\n".join(lines + occupancy_lines(new, days, lang))
    return ToolResult(True, text, new, {"changed": changed_entries(state, new, ids)}, changed=ids)


@tool("unplace", UnplaceArgs, kind="write", prefix_key="unplace_prefix")
def unplace(state: ScheduleState, args: UnplaceArgs, ctx: ToolContext) -> ToolResult:
    lang = ctx.lang
    prefix = t(lang, "unplace_prefix")
    task = get_task(state, args.task_id, prefix, lang)
    if task.is_pending:
        raise ToolFailure(
            t(lang, "unplace_already_pending", prefix=prefix, id=task.state_id, name=task.name)
        )
    check_unlocked(task, prefix, lang)
    if not task.slots:
        raise ToolFailure(
            t(lang, "unplace_no_slots", prefix=prefix, id=task.state_id, name=task.name)
        )
    guests = [g for g in (state.task(i) for i in task.embedded_by) if g is not None]
    ids = [task.state_id] + [g.state_id for g in guests]
    new, conflict = relocate(state, {i: [] for i in ids})
    assert conflict is None  # nothing lands anywhere
    for guest in guests:
        released = new.task(guest.state_id)
        assert released is not None
        released.status = "pending"
        released.duration = min(SECTIONS_PER_DAY, max(1, guest.slot_sections))
    removed = new.task(task.state_id)
    assert removed is not None
    removed.status = "pending"
    removed.embedded_by = []
    if removed.duration == 0:
        removed.duration = min(SECTIONS_PER_DAY, task.slot_sections)
    lines = [
        t(
            lang,
            "unplace_done",
            id=task.state_id,
            name=task.name,
            old=slots_label(state, task.slots, lang),
        )
    ]
    lines += [t(lang, "unplace_guest_released", id=g.state_id, name=g.name) for g in guests]
    days = [s.day for s in task.slots] + [s.day for g in guests for s in g.slots]
    left = pending_count(new)
    lines += occupancy_lines(new, days, lang)
    lines.append(t(lang, "pending_left", count=left))
    data = {"changed": changed_entries(state, new, ids), "pending_count": left}
    return ToolResult(True, "\n".join(lines), new, data, changed=ids)


__all__ = [
    "BatchMoveArgs",
    "MoveArgs",
    "PlaceArgs",
    "SwapArgs",
    "UnplaceArgs",
    "block",
    "changed_entries",
    "check_not_hosting",
    "check_order",
    "check_unlocked",
    "conflict_report",
    "embed_suffix",
    "move_task",
    "occupancy_lines",
]
