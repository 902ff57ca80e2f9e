"""Seeded layout instances for the benchmarks: a weekly course timetable, classes, pending tasks.

`make_instance(seed, days, tasks, demand)` builds a ScheduleState directly (no export): a window
of `days` days starting on a Monday, a course timetable repeating weekly (some courses
embeddable), several task classes with their own windows, strategies, exclusions, filler
permission and profiles, and `tasks` pending items whose durations add up to about `demand`
times the free capacity of the window. The same arguments always give the same state.
"""

from __future__ import annotations

import datetime as dt
import random

from planner_cli.model.state import (
    DayMap,
    ScheduleState,
    Semester,
    Slot,
    Task,
    TaskClassMeta,
    Window,
)

SEMESTER_START = dt.date(2026, 9, 7)  # a Monday
SUBJECTS = ("quantitative", "memory", "reading", "mixed")


def _courses(rng: random.Random, days: int, first_id: int) -> list[Task]:
    """A weekly timetable: per weekday 1-3 courses of 2-4 sections; about a quarter embeddable."""
    week_plan: dict[int, list[tuple[int, int, int]]] = {}
    course_count = rng.randint(5, 9)
    kinds = [(i, rng.random() < 0.25) for i in range(course_count)]
    for dow in range(1, 6):
        used: set[int] = set()
        plan = []
        for _ in range(rng.randint(1, 3)):
            length = rng.choice((2, 2, 2, 3, 4))
            start = rng.choice((1, 3, 5, 7, 9))
            if start + length - 1 > 12 or used & set(range(start, start + length)):
                continue
            used |= set(range(start, start + length))
            plan.append((rng.randrange(course_count), start, start + length - 1))
        week_plan[dow] = plan
    slots: dict[int, list[Slot]] = {}
    for day in range(1, days + 1):
        dow = (day - 1) % 7 + 1
        for course, start, end in week_plan.get(dow, []):
            slots.setdefault(course, []).append(Slot(day=day, slot_start=start, slot_end=end))
    out = []
    for course, embeddable in kinds:
        if course not in slots:
            continue
        out.append(
            Task(
                state_id=first_id + len(out),
                source="event",
                source_id=100 + course,
                name=f"course{course}",
                category="课程",
                status="existing",
                locked=not embeddable,
                can_embed=embeddable,
                event_type="course",
                slots=slots[course],
            )
        )
    return out


def _class_room(meta: TaskClassMeta, mapping: list[DayMap], courses: list[Task]) -> int:
    first = dt.date.fromisoformat(meta.start_date)
    last = dt.date.fromisoformat(meta.end_date)
    blocked = {s for k in meta.excluded_slots for s in (2 * k - 1, 2 * k)}
    room = 0
    for d in mapping:
        date = SEMESTER_START + dt.timedelta(days=(d.week - 1) * 7 + d.day_of_week - 1)
        if not first <= date <= last or d.day_of_week in meta.excluded_days_of_week:
            continue
        taken = {
            sec
            for c in courses
            if not (c.can_embed and meta.allow_filler_course)
            for s in c.slots
            if s.day == d.day_index
            for sec in range(s.slot_start, s.slot_end + 1)
        }
        room += sum(1 for sec in range(1, 13) if sec not in taken and sec not in blocked)
    return max(1, room)


def make_instance(seed: int, days: int, tasks: int, demand: float) -> ScheduleState:
    rng = random.Random(f"{seed}:{days}:{tasks}:{demand}")
    mapping = []
    for i in range(days):
        date = SEMESTER_START + dt.timedelta(days=i)
        offset = (date - SEMESTER_START).days
        mapping.append(DayMap(day_index=i + 1, week=offset // 7 + 1, day_of_week=offset % 7 + 1))
    courses = _courses(rng, days, 1)
    busy = sum(s.length for c in courses if not c.can_embed for s in c.slots)
    capacity = days * 12 - busy
    class_count = max(2, min(8, tasks // 12 + 1))
    metas = []
    for c in range(class_count):
        first = rng.randrange(0, max(1, days // 3))
        last = rng.randrange(max(first + 1, days // 2), days)
        metas.append(
            TaskClassMeta(
                id=10 + c,
                name=f"class{c}",
                mode="auto",
                strategy=rng.choice(("steady", "steady", "rapid")),
                allow_filler_course=rng.random() < 0.6,
                excluded_slots=sorted(rng.sample(range(1, 7), rng.choice((0, 0, 1, 2)))),
                excluded_days_of_week=[7] if rng.random() < 0.3 else [],
                start_date=(SEMESTER_START + dt.timedelta(days=first)).isoformat(),
                end_date=(SEMESTER_START + dt.timedelta(days=last)).isoformat(),
                subject_type=rng.choice(SUBJECTS),
                difficulty_level=rng.choice(("low", "medium", "high")),
                cognitive_intensity=rng.choice(("low", "medium", "high")),
            )
        )
    # durations are mostly 2 (the standard pair); 1 when the demand is low, 4 (and the odd 3)
    # when it is high, adding up to about demand × capacity
    total = min(4 * tasks, max(tasks, round(demand * capacity)))
    durations = [2] * tasks
    order = list(range(tasks))
    rng.shuffle(order)
    excess = total - 2 * tasks
    for i in order:
        if excess <= -1:
            durations[i] = 1
            excess += 1
        elif excess >= 2:
            durations[i] = 4
            excess -= 2
        elif excess == 1:
            durations[i] = 3
            excess -= 1
    # tasks go to classes in proportion to the free sections of their windows, so `demand`
    # is about the load of each class's own window (not only of the whole window)
    room = [_class_room(meta, mapping, courses) for meta in metas]
    items = []
    next_id = len(courses) + 1
    per_class: dict[int, int] = {}
    for i in range(tasks):
        meta = rng.choices(metas, weights=room)[0]
        per_class[meta.id] = per_class.get(meta.id, 0) + 1
        items.append(
            Task(
                state_id=next_id + i,
                source="task_item",
                source_id=1000 + i,
                name=f"{meta.name}-{per_class[meta.id]}",
                category=meta.name,
                status="pending",
                duration=durations[i],
                task_class_id=meta.id,
                task_order=per_class[meta.id],
            )
        )
    return ScheduleState(
        semester=Semester(start_date=SEMESTER_START.isoformat()),
        window=Window(total_days=days, day_mapping=mapping),
        tasks=courses + items,
        task_classes=[m.model_copy(update={"total_slots": 0}) for m in metas],
    )
