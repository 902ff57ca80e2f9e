"""spread_even (seed-origin §2.15, §3.2; spec/solver.md): move a set of suggested tasks among
candidate slots so that per-day load is even, solved by a small CP-SAT model; atomic via relocate.

Fixes of tools.md 7: slot_type(s) are forwarded to the candidate query, and each task's current
position is a candidate whenever it passes the filters (so an already even set reports "no
change"). Decisions: the load of a candidate day is every occupied section of it (courses and
tasks outside the set, guests not counted twice) plus the set's blocks; the objective is, in
this order, the largest such load, then (largest - smallest) over the candidate days, then the
number of moved tasks, then earlier positions for earlier tasks (a unique optimum).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from planner_cli.model.state import ScheduleState, Slot, Task
from planner_cli.solver.problem import S, gidx
from planner_cli.tools.common import (
    ToolContext,
    ToolFailure,
    ToolResult,
    may_embed,
    occupied_sections,
    relocate,
    slot_label,
)
from planner_cli.tools.compound import collect_task_set
from planner_cli.tools.messages import Lang, t
from planner_cli.tools.read import _SlotFilterArgs
from planner_cli.tools.registry import tool
from planner_cli.tools.slots import collect_slots, parse_slot_filters, range_allowed
from planner_cli.tools.write import (
    changed_entries,
    check_order,
    embed_suffix,
    occupancy_lines,
)


class SpreadEvenArgs(_SlotFilterArgs):
    """Spread a set of suggested tasks evenly over days: each task keeps its block length and
    moves to one of the candidate slots chosen by the filters (or stays where it is), so that
    the busiest candidate day is as light as possible and days are as even as possible, moving
    as few tasks as possible. Keeps the intra-class order. All or nothing. Only the listed
    argument names are accepted."""

    task_ids: list[int] | None = Field(
        default=None,
        description="state_ids of the suggested tasks to spread (duplicates ignored; at least 2).",
    )
    task_id: int | None = Field(
        default=None, description="Legacy single id; added to task_ids. Prefer task_ids."
    )
    limit: int | None = Field(
        default=None,
        description="Minimum number of candidate slots to gather per block length (the tool always gathers at least 6 per task).",
    )


def _occurrence(state: ScheduleState, slot: Slot) -> tuple[int, int] | None:
    for host in state.tasks:
        if host.can_embed:
            for i, occ in enumerate(host.slots):
                if occ.contains(slot.day, slot.slot_start, slot.slot_end):
                    return host.state_id, i
    return None


def _candidates(
    state: ScheduleState, args: SpreadEvenArgs, tasks: list[Task], prefix: str, lang: Lang
) -> dict[int, list[tuple[Slot, bool]]]:
    """Candidate (slot, embedded) per span: the filtered query plus the tasks' own positions."""
    try:
        filters = parse_slot_filters(args, state, lang)
    except ToolFailure as exc:
        raise ToolFailure(prefix + exc.text) from None
    exclude = {task.state_id for task in tasks}
    spans = sorted({task.slots[0].length for task in tasks})
    out: dict[int, list[tuple[Slot, bool]]] = {}
    for span in spans:
        count = sum(1 for task in tasks if task.slots[0].length == span)
        limit = max(6 * count, args.limit or 0)
        found = collect_slots(state, filters, span, limit, filters.allow_embed, exclude=exclude)
        cands: list[tuple[Slot, bool]] = []
        seen: set[tuple[int, int, int]] = set()
        for c in found:
            slot = Slot(day=c["day"], slot_start=c["slot_start"], slot_end=c["slot_end"])
            seen.add(slot.key())
            cands.append((slot, c["slot_type"] == "embedded_candidate"))
        for task in tasks:
            slot = task.slots[0]
            if slot.length != span or slot.key() in seen:
                continue
            if task.is_guest and not filters.allow_embed:
                continue  # "pure slots only" also rules out staying inside a water course
            if slot.day in filters.days and range_allowed(filters, slot.slot_start, slot.slot_end):
                seen.add(slot.key())
                cands.append((slot, task.is_guest))
        if len(cands) < count:
            raise ToolFailure(
                t(lang, "spread_short", prefix=prefix, span=span, required=count, got=len(cands))
            )
        out[span] = sorted(cands, key=lambda c: c[0].key())
    return out


def _order_bounds(state: ScheduleState, task: Task, members: set[int]) -> tuple[int, int]:
    lo, hi = 0, 10**9
    if not task.in_order_chain:
        return lo, hi
    for other in state.tasks:
        if other.state_id in members or not other.slots or not other.in_order_chain:
            continue
        if other.class_id != task.class_id:
            continue
        if other.task_order < task.task_order:
            lo = max(lo, max(gidx(s.day, s.slot_end) for s in other.slots))
        elif other.task_order > task.task_order:
            hi = min(hi, min(gidx(s.day, s.slot_start) for s in other.slots))
    return lo, hi


def plan_spread(
    state: ScheduleState,
    tasks: list[Task],
    cands: dict[int, list[tuple[Slot, bool]]],
    settings: dict[str, Any],
) -> dict[int, Slot] | None:
    """The CP-SAT assignment task → slot (None when no assignment satisfies the constraints)."""
    from ortools.sat.python import cp_model

    from planner_cli.solver.settings import SolverSettings

    s = SolverSettings.from_dict(settings)
    members = {task.state_id for task in tasks}
    others = state.clone()
    for task in others.tasks:
        if task.state_id in members:
            task.slots = []
    days = sorted({slot.day for span in cands.values() for slot, _ in span})
    fixed = {day: len(occupied_sections(others, day)) for day in days}
    model = cp_model.CpModel()
    y: dict[tuple[int, int], Any] = {}
    options: dict[int, list[tuple[int, Slot, bool]]] = {}
    for ti, task in enumerate(tasks):
        lo, hi = _order_bounds(state, task, members)
        span = task.slots[0].length
        options[ti] = []
        for ci, (slot, embedded) in enumerate(cands[span]):
            if embedded and not may_embed(state, task):
                continue
            if not (gidx(slot.day, slot.slot_start) > lo and gidx(slot.day, slot.slot_end) < hi):
                continue
            y[ti, ci] = model.new_bool_var(f"y{ti}_{ci}")
            options[ti].append((ci, slot, embedded))
        if not options[ti]:
            return None
        model.add_exactly_one(y[ti, ci] for ci, _, _ in options[ti])
    cells: dict[tuple[int, int], list[Any]] = {}
    occs: dict[tuple[int, int], list[Any]] = {}
    load: dict[int, list[Any]] = {day: [] for day in days}
    for ti, opts in options.items():
        for ci, slot, embedded in opts:
            var = y[ti, ci]
            for sec in range(slot.slot_start, slot.slot_end + 1):
                cells.setdefault((slot.day, sec), []).append(var)
            if embedded:
                occ = _occurrence(state, slot)
                if occ is not None:
                    occs.setdefault(occ, []).append(var)
            else:
                load[slot.day].append(slot.length * var)
    for group in list(cells.values()) + list(occs.values()):
        if len(group) > 1:
            model.add_at_most_one(group)
    # intra-class order among the set (tasks outside it bound the candidates above)
    chain: dict[int, list[int]] = {}
    for ti, task in enumerate(tasks):
        if task.in_order_chain:
            chain.setdefault(task.class_id, []).append(ti)
    for members_of_class in chain.values():
        members_of_class.sort(key=lambda i: (tasks[i].task_order, tasks[i].state_id))
        for a, b in zip(members_of_class, members_of_class[1:], strict=False):
            end_a = sum(gidx(sl.day, sl.slot_end) * y[a, ci] for ci, sl, _ in options[a])
            start_b = sum(gidx(sl.day, sl.slot_start) * y[b, ci] for ci, sl, _ in options[b])
            model.add(end_a < start_b)
    top = model.new_int_var(0, S, "max_load")
    bottom = model.new_int_var(0, S, "min_load")
    for day in days:
        total = fixed[day] + sum(load[day])
        model.add(top >= total)
        model.add(bottom <= total)
    n = len(tasks)
    moved = []
    for ti, task in enumerate(tasks):
        stay = [y[ti, ci] for ci, slot, _ in options[ti] if slot == task.slots[0]]
        moved.append(1 - sum(stay))
    horizon = state.window.total_days * S
    tie_max = n * n * horizon
    tie = sum(
        (n - ti) * gidx(slot.day, slot.slot_start) * y[ti, ci]
        for ti in options
        for ci, slot, _ in options[ti]
    )
    w_moved = tie_max + 1
    w_spread = w_moved * (n + 1)
    w_top = w_spread * (S + 1)
    model.minimize(w_top * top + w_spread * (top - bottom) + w_moved * sum(moved) + tie)
    solver = cp_model.CpSolver()
    solver.parameters.random_seed = s.random_seed
    solver.parameters.num_workers = s.num_workers
    solver.parameters.max_time_in_seconds = s.time_limit_s
    solver.parameters.max_deterministic_time = s.max_deterministic_time
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    out: dict[int, Slot] = {}
    for ti, opts in options.items():
        for ci, slot, _ in opts:
            if solver.boolean_value(y[ti, ci]):
                out[tasks[ti].state_id] = slot
    return out


@tool("spread_even", SpreadEvenArgs, kind="write", prefix_key="spread_prefix")
def spread_even(state: ScheduleState, args: SpreadEvenArgs, ctx: ToolContext) -> ToolResult:
    lang = ctx.lang
    prefix = t(lang, "spread_prefix")
    tasks = collect_task_set(state, args.task_ids, args.task_id, prefix, lang)
    cands = _candidates(state, args, tasks, prefix, lang)
    total = sum(len(c) for c in cands.values())
    after = plan_spread(state, tasks, cands, ctx.solver)
    if after is None:
        raise ToolFailure(t(lang, "spread_infeasible", prefix=prefix))
    head = t(lang, "spread_done", n=len(tasks), m=total)
    before = {task.state_id: task.slots[0] for task in tasks}
    moved = [task.state_id for task in tasks if after[task.state_id] != before[task.state_id]]
    if not moved:
        text = "\n".join([head, t(lang, "spread_no_change")])
        return ToolResult(True, text, state, {"changed": [], "candidates": total})
    new, conflict = relocate(state, {task_id: [after[task_id]] for task_id in moved})
    if conflict is not None:  # pragma: no cover - the candidates are free by construction
        raise ToolFailure(conflict.text(new, "set_conflict", lang, prefix=prefix))
    check_order(new, moved, prefix, lang)
    lines = [head, t(lang, "spread_changes")]
    days: list[int] = []
    for task_id in moved:
        landed = new.task(task_id)
        assert landed is not None
        days += [before[task_id].day, after[task_id].day]
        lines.append(
            t(
                lang,
                "spread_change_line",
                id=task_id,
                name=landed.name,
                old=slot_label(state, before[task_id], lang),
                new=slot_label(new, after[task_id], lang),
                suffix=embed_suffix(new, landed, lang),
            )
        )
    lines += occupancy_lines(new, days, lang)
    data = {"changed": changed_entries(state, new, moved), "candidates": total}
    return ToolResult(True, "\n".join(lines), new, data, changed=moved)
