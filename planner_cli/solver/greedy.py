"""The original cursor layout (seed-origin §3.1, newest rule) as `--solver greedy`: baseline and hint.

Classes go by earlier end_date, then rapid before steady, then the requested order, then id;
each class walks the free cells of its window with a cursor: `steady` leaves
gap = (A - need) // (n + 1) free cells before and between items, `rapid` packs from the start;
a block starts on an odd section (align_pairs) and lies on free cells only, or fully inside one
free occurrence of a water course when the class allows filler courses. Our decisions (the
original did otherwise): blocks have the task's own `duration` (not always 2); excluded weekdays,
the planning window, `now`, daily caps and already placed siblings (order) are respected; a
block never straddles a water course and free cells; when time runs out the class keeps what
fits and the rest stays pending (the original failed the whole class with "time not enough").
"""

from __future__ import annotations

from planner_cli.solver.problem import Placement, Problem, S, cell_of, gidx
from planner_cli.tools.common import may_embed


def _class_sort_key(problem: Problem, class_id: int, requested: list[int]) -> tuple:
    meta = problem.state.task_class(class_id) if class_id else None
    end = meta.end_date if meta is not None and meta.end_date else "9999-12-31"
    strategy = meta.strategy.strip().lower() if meta is not None else ""
    rank = requested.index(class_id) if class_id in requested else len(requested)
    return (class_id == 0, end, 0 if strategy == "rapid" else 1, rank, class_id)


def greedy_layout(problem: Problem, requested: list[int] | None = None) -> dict[int, int]:
    """Assignment {index in problem.tasks: index of the chosen placement}."""
    requested = requested or []
    groups: dict[int, list[int]] = {}
    for i, vt in enumerate(problem.tasks):
        groups.setdefault(vt.task.class_id, []).append(i)
    taken: set[int] = set()
    taken_occ: set[tuple[int, int]] = set()
    day_load = dict(problem.day_study)
    class_load = dict(problem.class_day_study)
    caps = problem.settings.caps
    step = 2 if problem.settings.align_pairs else 1
    assignment: dict[int, int] = {}

    for class_id in sorted(groups, key=lambda c: _class_sort_key(problem, c, requested)):
        members = sorted(
            groups[class_id], key=lambda i: (problem.tasks[i].task.task_order, problem.tasks[i].id)
        )
        meta = problem.state.task_class(class_id) if class_id else None
        strategy = meta.strategy.strip().lower() if meta is not None else ""
        embed_ok = may_embed(problem.state, problem.tasks[members[0]].task)
        coords = _coords(problem, members, taken, taken_occ)
        need = sum(problem.tasks[i].duration for i in members)
        free = len(coords)
        gap = (free - need) // (len(members) + 1) if strategy == "steady" and free > need else 0
        cursor = gap
        last_end = 0
        for i in members:
            vt = problem.tasks[i]
            lookup = {(p.day, p.start, p.end): k for k, p in enumerate(vt.placements)}
            for pos in range(cursor, free):
                day, section, occ = coords[pos]
                if cell_of(day, section) in taken:
                    continue
                if occ is not None:
                    if not embed_ok or occ in taken_occ:
                        continue
                    host = problem.state.task(occ[0])
                    assert host is not None
                    slot = host.slots[occ[1]]
                    first = slot.slot_start + (1 - slot.slot_start % 2 if step == 2 else 0)
                    starts = range(first, slot.slot_end - vt.duration + 2, step)
                else:
                    starts = range(section, section + 1) if (section - 1) % step == 0 else range(0)
                choice = None
                for start in starts:
                    k = lookup.get((day, start, start + vt.duration - 1))
                    if k is None:
                        continue
                    p = vt.placements[k]
                    if p.g <= last_end or any(c in taken for c in p.cells):
                        continue
                    if p.host != occ:
                        continue
                    if not _caps_ok(caps, day_load, class_load, vt.task.class_id, p, vt.duration):
                        continue
                    choice = k
                    break
                if choice is None:
                    continue
                p = vt.placements[choice]
                assignment[i] = choice
                taken.update(p.cells)
                if p.host is not None:
                    taken_occ.add(p.host)
                day_load[p.day] = day_load.get(p.day, 0) + vt.duration
                if vt.task.class_id:
                    key = (vt.task.class_id, p.day)
                    class_load[key] = class_load.get(key, 0) + vt.duration
                last_end = p.g_end
                cursor = pos + vt.duration + gap
                break
    return assignment


def _caps_ok(
    caps, day_load: dict[int, int], class_load: dict, class_id: int, p: Placement, duration: int
) -> bool:  # type: ignore[no-untyped-def]
    day_cap = caps.max_study_sections_per_day
    if day_cap is not None and day_load.get(p.day, 0) + duration > day_cap:
        return False
    class_cap = caps.max_class_sections_per_day
    return not (
        class_cap is not None
        and class_id
        and class_load.get((class_id, p.day), 0) + duration > class_cap
    )


def _coords(
    problem: Problem, members: list[int], taken: set[int], taken_occ: set[tuple[int, int]]
) -> list[tuple[int, int, tuple[int, int] | None]]:
    """The class's usable cells in window order: (day, section, water occurrence or None)."""
    vt = problem.tasks[members[0]]
    meta = problem.state.task_class(vt.task.class_id) if vt.task.class_id else None
    all_days = sorted(d.day_index for d in problem.state.window.day_mapping)
    days = problem.costs.class_days(meta, all_days) if meta is not None else all_days
    blocked: set[int] = set()
    if meta is not None:
        for k in meta.excluded_slots:
            blocked.update((2 * k - 1, 2 * k))
    embed_ok = may_embed(problem.state, vt.task)
    occ_of: dict[int, tuple[int, int]] = {}
    for host_id, index in problem.free_occurrences:
        host = problem.state.task(host_id)
        assert host is not None
        slot = host.slots[index]
        for section in range(slot.slot_start, slot.slot_end + 1):
            occ_of.setdefault(cell_of(slot.day, section), (host_id, index))
    out: list[tuple[int, int, tuple[int, int] | None]] = []
    for day in days:
        for section in range(1, S + 1):
            if section in blocked or gidx(day, section) < problem.now_g:
                continue
            c = cell_of(day, section)
            if c in taken:
                continue
            owners = problem.cell_owners.get(c)
            if not owners:
                out.append((day, section, None))
            elif embed_ok and len(owners) == 1 and c in occ_of and occ_of[c] not in taken_occ:
                out.append((day, section, occ_of[c]))
    return out
