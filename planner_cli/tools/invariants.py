"""The state invariants of tools.md ("Invariants"): `state_violations` vets one state,
`violations` vets one tool call (state before → state after). Pure checks, no side effects.

Decisions: overlap is judged strictly (fix 1, "no double booking"): two placed tasks may share
sections only as guest and host, the guest fully inside that occurrence; water courses count.
Tools never add or remove tasks. The order constraint is checked for the tasks a call moved,
with the tools' own rule (common.order_violation: nearest placed sibling on each side).
"""

from __future__ import annotations

from itertools import combinations

from planner_cli.model.state import SECTIONS_PER_DAY, ScheduleState, Slot, Task
from planner_cli.tools.common import order_violation

QUEUE_TOOLS = frozenset(
    {"queue_pop_head", "queue_apply_head_move", "queue_skip_head", "queue_status"}
)
# tools that only ever touch pending or suggested tasks: existing tasks keep their slots
SUGGESTED_ONLY_TOOLS = frozenset(
    {
        "place",
        "move",
        "batch_move",
        "min_context_switch",
        "spread_even",
        "queue_apply_head_move",
        "rough_layout",
    }
)
# tools that keep the length of what they move (the others may place by `duration`)
LENGTH_KEEPING_TOOLS = frozenset(
    {"move", "swap", "batch_move", "min_context_switch", "spread_even", "queue_apply_head_move"}
)
# tools allowed to land a task in several blocks (swap exchanges whole slot lists)
MULTI_BLOCK_TOOLS = frozenset({"swap"})


def _name(task: Task) -> str:
    return f"task {task.state_id}"


def _slot_text(slot: Slot) -> str:
    return f"day {slot.day} sections {slot.slot_start}-{slot.slot_end}"


def _guest_fits(guest: Task, guest_slot: Slot, host: Task, host_slot: Slot) -> bool:
    return guest.embed_host == host.state_id and host_slot.contains(
        guest_slot.day, guest_slot.slot_start, guest_slot.slot_end
    )


def _embed_violations(state: ScheduleState, by_id: dict[int, Task]) -> list[str]:
    out: list[str] = []
    for task in state.tasks:
        if task.embed_host is not None:
            host = by_id.get(task.embed_host)
            if host is None:
                out.append(f"{_name(task)}: embed_host {task.embed_host} does not exist")
            else:
                if not host.can_embed:
                    out.append(f"{_name(task)}: host {host.state_id} is not embeddable")
                if task.state_id not in host.embedded_by:
                    out.append(f"{_name(task)}: host {host.state_id} does not list it as a guest")
                if not task.slots:
                    out.append(f"{_name(task)}: a guest without slots")
                elif not any(
                    all(occ.contains(s.day, s.slot_start, s.slot_end) for s in task.slots)
                    for occ in host.slots
                ):
                    out.append(f"{_name(task)}: not inside one occurrence of host {host.state_id}")
        if not task.embedded_by:
            continue
        if not task.can_embed:
            out.append(f"{_name(task)}: hosts guests but is not embeddable")
        if len(set(task.embedded_by)) != len(task.embedded_by):
            out.append(f"{_name(task)}: a guest is listed twice")
        for guest_id in task.embedded_by:
            guest = by_id.get(guest_id)
            if guest is None:
                out.append(f"{_name(task)}: guest {guest_id} does not exist")
            elif guest.embed_host != task.state_id:
                out.append(f"{_name(task)}: guest {guest_id} does not point back")
        for occ in task.slots:
            inside = [
                g
                for g in task.embedded_by
                if (guest := by_id.get(g)) is not None
                and guest.slots
                and all(occ.contains(s.day, s.slot_start, s.slot_end) for s in guest.slots)
            ]
            if len(inside) > 1:
                out.append(f"{_name(task)}: occurrence {_slot_text(occ)} has guests {inside}")
    return out


def _overlap_violations(state: ScheduleState) -> list[str]:
    out: list[str] = []
    placed = [(s, task) for task in state.tasks for s in task.slots]
    placed.sort(key=lambda p: (p[0].day, p[0].slot_start, p[1].state_id))
    for (sa, a), (sb, b) in combinations(placed, 2):
        if not sa.overlaps(sb.day, sb.slot_start, sb.slot_end):
            continue
        if a.state_id != b.state_id and (_guest_fits(a, sa, b, sb) or _guest_fits(b, sb, a, sa)):
            continue
        out.append(
            f"task {a.state_id} ({_slot_text(sa)}) overlaps task {b.state_id} ({_slot_text(sb)})"
        )
    return out


def state_violations(state: ScheduleState) -> list[str]:
    """Everything wrong with one state (empty list = valid), in a stable order."""
    out: list[str] = []
    total = state.window.total_days
    by_id = {task.state_id: task for task in state.tasks}
    for task in state.tasks:
        for s in task.slots:
            if not 1 <= s.day <= total or state.day_info(s.day) is None:
                out.append(f"{_name(task)}: {_slot_text(s)} is outside the window (1-{total})")
            if not 1 <= s.slot_start <= s.slot_end <= SECTIONS_PER_DAY:
                out.append(f"{_name(task)}: {_slot_text(s)} is not within sections 1-12")
        if task.is_pending and task.duration < 1:
            out.append(f"{_name(task)}: pending with duration {task.duration}")
    out += _embed_violations(state, by_id)
    out += _overlap_violations(state)
    return out


def _without_queue(state: ScheduleState) -> dict[str, object]:
    data = state.dump()
    data.pop("runtime_queue", None)
    return data


def _tool_kind(tool_name: str) -> str | None:
    from planner_cli.tools.registry import get_spec

    spec = get_spec(tool_name)
    return spec.kind if spec is not None else None


def violations(
    before: ScheduleState, after: ScheduleState, call_ok: bool, tool_name: str
) -> list[str]:
    """Invariants one call of `tool_name` must keep (empty list = all kept)."""
    known = set(state_violations(before))
    out = [f"state: {v}" for v in state_violations(after) if v not in known]
    if not call_ok:
        if tool_name in QUEUE_TOOLS:
            if _without_queue(before) != _without_queue(after):
                out.append(f"{tool_name} failed but changed more than the runtime queue")
        elif before.dump() != after.dump():
            out.append(f"{tool_name} failed but changed the state")
        return out
    if _tool_kind(tool_name) == "read" and _without_queue(before) != _without_queue(after):
        out.append(f"read tool {tool_name} changed the schedule")
    old = {task.state_id: task for task in before.tasks}
    new = {task.state_id: task for task in after.tasks}
    if set(old) != set(new):
        out.append(f"{tool_name} added or removed tasks: {sorted(set(old) ^ set(new))}")
        return out
    moved: list[int] = []
    for task_id in sorted(old):
        b, a = old[task_id], new[task_id]
        if a.slots == b.slots:
            continue
        if b.locked:
            out.append(f"{tool_name} changed the slots of locked task {task_id}")
        if tool_name in SUGGESTED_ONLY_TOOLS and b.is_existing:
            out.append(f"{tool_name} changed the slots of existing task {task_id}")
        if not a.slots:
            continue
        moved.append(task_id)
        if tool_name not in MULTI_BLOCK_TOOLS and len(a.slots) != 1:
            out.append(f"{tool_name} left task {task_id} in {len(a.slots)} blocks")
        if b.slots and tool_name in LENGTH_KEEPING_TOOLS and a.slot_sections != b.slot_sections:
            out.append(
                f"{tool_name} changed the length of task {task_id}: "
                f"{b.slot_sections} -> {a.slot_sections} sections"
            )
        if not b.slots and b.duration > 0 and a.slot_sections != b.duration:
            out.append(
                f"{tool_name} placed task {task_id} on {a.slot_sections} sections, "
                f"its duration is {b.duration}"
            )
    violation = order_violation(after, moved, "en")
    if violation is not None:
        out.append(f"{tool_name}: {violation}")
    return out
