"""Property tests: random valid states and random sequences of calls to every registered tool
(good and bad arguments) keep the invariants of tools.md; plus unit tests of the checker."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from planner_cli.model.state import (
    DayMap,
    RuntimeQueue,
    ScheduleState,
    Slot,
    Task,
    TaskClassMeta,
    Window,
)
from planner_cli.tools.common import ToolContext, free_runs
from planner_cli.tools.invariants import state_violations, violations
from planner_cli.tools.registry import registry, run_tool

# small solver budgets keep compound tools (spread_even, rough_layout) fast here
CTX = ToolContext(lang="zh", solver={"time_limit_s": 1.0, "max_deterministic_time": 0.3})

NO_META_CLASS = 9  # a class id without a meta: filler courses allowed by default


# -- random valid states ----------------------------------------------------------------------


def _window(days: int, week: int, first_dow: int) -> Window:
    mapping = []
    for i in range(days):
        offset = first_dow - 1 + i
        mapping.append(DayMap(day_index=i + 1, week=week + offset // 7, day_of_week=offset % 7 + 1))
    return Window(total_days=days, day_mapping=mapping)


def _item(
    state_id: int,
    class_id: int,
    names: dict[int, str],
    *,
    status: str,
    slots: list[Slot],
    duration: int,
) -> Task:
    return Task(
        state_id=state_id,
        source="task_item",
        source_id=9000 + state_id,
        name=f"任务{state_id}",
        category=names.get(class_id, "任务"),
        status=status,  # type: ignore[arg-type]
        slots=slots,
        duration=duration,
        task_class_id=class_id,
    )


def _event(state_id: int, *, locked: bool, can_embed: bool, course: bool, slot: Slot) -> Task:
    return Task(
        state_id=state_id,
        source="event",
        source_id=500 + state_id,
        name=f"课{state_id}" if course else f"活动{state_id}",
        category="课程" if course else "活动",
        status="existing",
        locked=locked,
        can_embed=can_embed,
        event_type="course" if course else "task",
        slots=[slot],
    )


@st.composite
def valid_states(draw: st.DrawFn) -> ScheduleState:
    days = draw(st.integers(1, 7))
    window = _window(days, draw(st.integers(1, 20)), draw(st.integers(1, 7)))
    metas = [
        TaskClassMeta(id=i, name=f"类{i}", allow_filler_course=draw(st.booleans()))
        for i in range(1, draw(st.integers(0, 3)) + 1)
    ]
    names = {m.id: m.name for m in metas} | {NO_META_CLASS: "杂项"}
    class_ids = [0, NO_META_CLASS] + [m.id for m in metas]
    filler_ok = [0, NO_META_CLASS] + [m.id for m in metas if m.allow_filler_course]
    tasks: list[Task] = []
    last_event: dict[str, Task] = {}

    def next_id() -> int:
        return len(tasks) + 1

    for day in range(1, days + 1):
        cursor = 1
        while True:
            start = cursor + draw(st.integers(0, 4))
            end = start + draw(st.sampled_from([2, 1, 3, 4, 2, 2])) - 1  # mostly pairs
            if end > 12 or draw(st.integers(0, 9)) == 0:
                break
            cursor = end + 1
            slot = Slot(day=day, slot_start=start, slot_end=end)
            kind = draw(st.sampled_from(["locked", "water", "event", "existing", "suggested"]))
            if kind in ("locked", "water", "event"):
                previous = last_event.get(kind)
                if previous is not None and draw(st.booleans()):
                    previous.slots.append(slot)  # one course, several occurrences
                else:
                    task = _event(
                        next_id(),
                        locked=kind == "locked",
                        can_embed=kind == "water",
                        course=kind != "event",
                        slot=slot,
                    )
                    tasks.append(task)
                    last_event[kind] = task
                if kind == "water" and draw(st.booleans()):
                    host = last_event["water"]
                    a = draw(st.integers(start, end))
                    b = draw(st.integers(a, end))
                    guest = _item(
                        next_id(),
                        draw(st.sampled_from(filler_ok)),
                        names,
                        status="suggested",
                        slots=[Slot(day=day, slot_start=a, slot_end=b)],
                        duration=b - a + 1,
                    )
                    guest.embed_host = host.state_id
                    host.embedded_by.append(guest.state_id)
                    tasks.append(guest)
            elif kind == "existing":
                tasks.append(
                    _item(
                        next_id(),
                        draw(st.sampled_from(class_ids)),
                        names,
                        status="existing",
                        slots=[slot],
                        duration=0,
                    )
                )
            else:
                # suggested, or one of the legacy snapshot forms the predicates accept
                status, duration = draw(
                    st.sampled_from(
                        [
                            ("suggested", slot.length),
                            ("suggested", 2),
                            ("pending", slot.length),
                            ("existing", 2),
                        ]
                    )
                )
                tasks.append(
                    _item(
                        next_id(),
                        draw(st.sampled_from(class_ids)),
                        names,
                        status=status,
                        slots=[slot],
                        duration=duration,
                    )
                )
    for _ in range(draw(st.integers(0, 5))):
        tasks.append(
            _item(
                next_id(),
                draw(st.sampled_from(class_ids)),
                names,
                status="pending",
                slots=[],
                duration=draw(st.integers(1, 4)),
            )
        )

    # order inside each class: placed items chronologically, pending ones anywhere in between
    for class_id in class_ids:
        if class_id == 0 or not draw(st.booleans()):
            continue
        members = [x for x in tasks if x.source == "task_item" and x.task_class_id == class_id]
        chain = sorted((x for x in members if x.slots), key=lambda x: x.slots[0].key())
        for pending in (x for x in members if not x.slots):
            chain.insert(draw(st.integers(0, len(chain))), pending)
        for order, task in enumerate(chain, 1):
            task.task_order = order

    ids = [x.state_id for x in tasks]
    queue = None
    if ids and draw(st.booleans()):
        movable = [x.state_id for x in tasks if x.is_suggested] or ids
        queued = draw(st.lists(st.sampled_from(movable), unique=True, max_size=4))
        current = draw(st.sampled_from([0, *movable, *ids]))
        queue = RuntimeQueue(
            pending_task_ids=[i for i in queued if i != current], current_task_id=current
        )
    state = ScheduleState(window=window, tasks=tasks, task_classes=metas, runtime_queue=queue)
    return ScheduleState.model_validate(state.dump())


# -- random calls -----------------------------------------------------------------------------


def _ids_for(tool: str, state: ScheduleState) -> list[int]:
    """The ids a sensible caller of `tool` would pick (the strategy mixes in wild ones too)."""
    tasks = state.tasks
    if tool == "place":
        wanted = [x.state_id for x in tasks if x.is_pending]
    elif tool in ("move", "batch_move", "min_context_switch", "spread_even"):
        wanted = [x.state_id for x in tasks if x.is_suggested]
    elif tool in ("swap", "unplace"):
        wanted = [x.state_id for x in tasks if x.is_placed and not x.locked]
    else:
        wanted = []
    return wanted or [x.state_id for x in tasks] or [1]


def _value(tool: str, name: str, state: ScheduleState) -> st.SearchStrategy[Any]:
    max_id = max((x.state_id for x in state.tasks), default=0)
    days = state.window.total_days
    likely = st.sampled_from(_ids_for(tool, state))
    ids = st.one_of(likely, likely, likely, st.integers(-1, max_id + 2))
    day = st.one_of(st.integers(1, days), st.integers(1, days), st.integers(-1, days + 2))
    section = st.one_of(st.integers(1, 11), st.integers(1, 11), st.integers(-1, 13))
    by_name: dict[str, st.SearchStrategy[Any]] = {
        "moves": st.lists(
            st.fixed_dictionaries({"task_id": ids, "new_day": day, "new_slot_start": section}),
            min_size=1,
            max_size=3,
        ),
        "status": st.sampled_from(
            ["all", "existing", "suggested", "pending", "existing,suggested", "x"]
        ),
        "day_scope": st.sampled_from(["all", "workday", "weekend", "x"]),
        "category": st.sampled_from(["类1", "类2", "杂项", "课程", "7,8", ""]),
        "dimensions": st.lists(
            st.sampled_from(["rhythm", "tightness", "semantic_profile", "foo"]), max_size=2
        ),
        "threshold": st.floats(0, 1),
        "reason": st.text(max_size=5),
    }
    if name in by_name:
        return by_name[name]
    if name in ("task_ids", "task_item_ids"):
        return st.lists(ids, min_size=1, max_size=5)
    if name.startswith("task"):
        return ids
    if name in ("week_filter", "day_of_week", "exclude_sections"):
        return st.lists(st.integers(0, 13), max_size=3)
    if name.startswith("slot_type"):
        return st.sampled_from(["pure", "empty", "strict", "embedded", "any"])
    if "day" in name:
        return day
    if "section" in name or "slot" in name:
        return section
    if name.startswith("week"):
        return st.integers(0, 22)
    if name in ("span", "duration", "limit"):
        return st.integers(-1, 14)
    if name in ("enqueue", "reset_queue", "allow_embed", "detail", "include_pending"):
        return st.booleans()
    return st.one_of(st.none(), st.integers(-1, 13), st.text(max_size=3))


JUNK = st.one_of(
    st.none(),
    st.text(max_size=3),
    st.booleans(),
    st.floats(-2, 14),
    st.lists(st.integers(-1, 5), max_size=2),
)


def _spots(state: ScheduleState) -> list[tuple[int, int]]:
    """(day, start) pairs where something may fit: starts of free runs and of water courses."""
    out = [
        (day, a) for day in range(1, state.window.total_days + 1) for a, _ in free_runs(state, day)
    ]
    out += [(s.day, s.slot_start) for x in state.tasks if x.can_embed for s in x.slots]
    return sorted(set(out))


POSITION_FIELDS = {
    "place": ("day", "slot_start"),
    "move": ("new_day", "new_slot_start"),
    "queue_apply_head_move": ("new_day", "new_slot_start"),
}


@st.composite
def tool_calls(draw: st.DrawFn, state: ScheduleState) -> tuple[str, dict[str, Any]]:
    """One call of any registered tool, with arguments fitting `state` (sometimes bad ones)."""
    specs = registry()
    names = sorted(specs)
    # write tools twice as often: they are what can break the invariants
    name = draw(st.sampled_from(names + [n for n in names if specs[n].kind != "read"]))
    args: dict[str, Any] = {}
    for field, info in specs[name].args.model_fields.items():
        if info.is_required():
            if draw(st.integers(0, 19)) == 0:
                continue  # sometimes a required argument is missing
        elif draw(st.integers(0, 2)) != 0:
            continue  # optional filters: a few at a time
        bad = draw(st.integers(0, 19)) == 0
        args[field] = draw(JUNK if bad else _value(name, field, state))
    spots = _spots(state)
    if spots and name in POSITION_FIELDS and draw(st.booleans()):
        day_field, start_field = POSITION_FIELDS[name]
        args[day_field], args[start_field] = draw(st.sampled_from(spots))
    if spots and name == "batch_move" and isinstance(args.get("moves"), list):
        for move in args["moves"]:
            if isinstance(move, dict) and draw(st.booleans()):
                move["new_day"], move["new_slot_start"] = draw(st.sampled_from(spots))
    pairs = [
        (a.state_id, b.state_id)
        for a in state.tasks
        for b in state.tasks
        if a.state_id < b.state_id and a.slots and a.slot_sections == b.slot_sections
    ]
    if name == "swap" and pairs and draw(st.booleans()):
        args["task_a"], args["task_b"] = draw(st.sampled_from(pairs))
    if draw(st.integers(0, 19)) == 0:
        args[draw(st.sampled_from(["day_from", "zzz", " ", "task"]))] = 1
    return name, args


# -- the properties ---------------------------------------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_states())
def test_generated_states_are_valid(state):
    assert state_violations(state) == []


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_states(), st.integers(1, 15), st.data())
def test_tool_sequences_keep_invariants(state, length, data):
    # each call is drawn against the current state, so later calls hit what earlier ones made
    for _ in range(length):
        name, args = data.draw(tool_calls(state))
        note(f"{name} {args}")
        event(f"{name}")
        result = run_tool(name, state, args, CTX)
        found = violations(state, result.state, result.ok, name)
        assert found == [], (name, args, result.text, found)
        if result.ok and name in ("place", "move", "swap", "batch_move", "unplace"):
            assert "失败" not in result.text
        event(f"{name} ok={result.ok}")
        state = result.state


# -- the checker itself can fail --------------------------------------------------------------


def _s(day: int, a: int, b: int) -> Slot:
    return Slot(day=day, slot_start=a, slot_end=b)


def _state(tasks: list[Task], days: int = 3) -> ScheduleState:
    return ScheduleState(window=_window(days, 1, 1), tasks=tasks)


def _water(state_id: int, slots: list[Slot], guests: list[int] | None = None) -> Task:
    task = _event(state_id, locked=False, can_embed=True, course=True, slot=slots[0])
    task.slots = slots
    task.embedded_by = guests or []
    return task


def _suggested(state_id: int, slots: list[Slot], host: int | None = None, **fields: Any) -> Task:
    task = _item(state_id, 0, {}, status="suggested", slots=slots, duration=0)
    task.embed_host = host
    for key, value in fields.items():
        setattr(task, key, value)
    return task


def test_checker_accepts_a_guest_in_its_occurrence():
    assert (
        state_violations(_state([_water(1, [_s(1, 1, 4)], [2]), _suggested(2, [_s(1, 2, 3)], 1)]))
        == []
    )


@pytest.mark.parametrize(
    ("tasks", "fragment"),
    [
        ([_suggested(1, [_s(1, 1, 2)]), _suggested(2, [_s(1, 2, 3)])], "overlaps"),
        ([_water(1, [_s(1, 1, 2)]), _suggested(2, [_s(1, 1, 2)])], "overlaps"),
        (
            [_water(1, [_s(1, 1, 2)], [2]), _suggested(2, [_s(1, 2, 3)], 1)],
            "not inside one occurrence",
        ),
        ([_water(1, [_s(1, 1, 2)]), _suggested(2, [_s(1, 1, 2)], 1)], "does not list it"),
        ([_water(1, [_s(1, 1, 2)], [2]), _suggested(2, [_s(2, 1, 2)])], "does not point back"),
        (
            [
                _water(1, [_s(1, 1, 4)], [2, 3]),
                _suggested(2, [_s(1, 1, 2)], 1),
                _suggested(3, [_s(1, 3, 4)], 1),
            ],
            "has guests",
        ),
        ([_suggested(1, [_s(1, 1, 2)], 7)], "does not exist"),
        ([_suggested(1, [_s(5, 1, 2)])], "outside the window"),
        ([_item(1, 0, {}, status="pending", slots=[], duration=0)], "pending with duration 0"),
    ],
)
def test_checker_finds_broken_states(tasks, fragment):
    found = state_violations(_state(tasks))
    assert any(fragment in v for v in found), found


def test_checker_finds_broken_calls():
    base = _state(
        [
            _suggested(1, [_s(1, 1, 2)], task_class_id=4, task_order=1),
            _suggested(2, [_s(2, 1, 2)], task_class_id=4, task_order=2),
        ]
    )
    moved = base.clone()
    moved.task(1).slots = [_s(3, 1, 2)]  # now after its successor
    assert any("Order constraint" in v for v in violations(base, moved, True, "move"))
    assert violations(base, moved, False, "move") == ["move failed but changed the state"]
    split = base.clone()
    split.task(1).slots = [_s(3, 1, 1), _s(3, 5, 5)]
    assert any("2 blocks" in v for v in violations(base, split, True, "move"))
    assert not any("2 blocks" in v for v in violations(base, split, True, "swap"))
    queue_only = base.clone()
    queue_only.runtime_queue = RuntimeQueue(pending_task_ids=[1])
    assert violations(base, queue_only, False, "queue_apply_head_move") == []
    assert violations(base, queue_only, False, "move") == ["move failed but changed the state"]


def test_checker_protects_locked_and_existing_tasks():
    course = _event(1, locked=True, can_embed=False, course=True, slot=_s(1, 1, 2))
    saved = _item(2, 0, {}, status="existing", slots=[_s(2, 1, 2)], duration=0)
    base = _state([course, saved])
    after = base.clone()
    after.task(1).slots = [_s(3, 1, 2)]
    after.task(2).slots = [_s(3, 5, 6)]
    found = violations(base, after, True, "batch_move")
    assert "batch_move changed the slots of locked task 1" in found
    assert "batch_move changed the slots of existing task 2" in found
    # swap may move an existing unlocked task (seed-origin §7.7), never a locked one
    found = violations(base, after, True, "swap")
    assert found == ["swap changed the slots of locked task 1"]
