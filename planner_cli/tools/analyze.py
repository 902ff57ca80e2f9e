"""analyze_health and analyze_rhythm: the JSON health report of seed-origin §2.16 / §3.5
(feasibility first, semantic profile, rhythm, tightness, decision, simulated candidates).

Decisions (seed bugs §7.18/§7.20 where the spec is silent): avg_block_size is the real mean
length of same-subject blocks; high intensity is looked up by class id, then by class name,
everywhere; cross-class swap options need equal lengths; `detail` adds per-day rows to metrics;
`dimensions` and `threshold` are validated but do not change the report (as in the seed).
Candidates are screened on cheap what-if copies, then the best ones are confirmed with the real
move/swap tools (registry.run_tool); only the 3 highest-priority problem days are examined.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field, field_validator

from planner_cli.model.state import SECTIONS_PER_DAY, ScheduleState, Slot, Task, TaskClassMeta
from planner_cli.tools.common import (
    ToolContext,
    ToolResult,
    day_label,
    occupied_sections,
    order_violation,
    placed_neighbours,
    range_label,
)
from planner_cli.tools.messages import Lang, t
from planner_cli.tools.registry import StrictToolArgs, run_tool, tool

DIMENSIONS = ("rhythm", "tightness", "semantic_profile")
SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}
MAX_ALTERNATIVES = 4
MAX_SWAP_PAIRS_EXAMINED = 12
MAX_SWAP_CANDIDATES = 48
MAX_MOVE_POSITIONS = 24
TOP_PER_DAY = 5
MAX_REPAIR_DAYS = 3


# -- arguments ------------------------------------------------------------------------------


def _listify(value: Any) -> Any:
    if isinstance(value, str):
        return [part for part in value.replace("，", ",").split(",")]
    return value


class AnalyzeHealthArgs(StrictToolArgs):
    """Health report of the schedule (JSON): feasibility (pending demand vs free sections),
    subject-profile completeness, daily rhythm (subject switches, high-intensity neighbours,
    long blocks), how movable the tasks are, a decision (ask_user / swap / move / close) and
    concrete move/swap candidates already simulated with the real tools. Only the listed
    argument names are accepted."""

    dimensions: list[str] | None = Field(
        default=None,
        description="Subset of rhythm, tightness, semantic_profile (string or list; empty = all).",
    )
    threshold: float | str | None = Field(
        default=None, description="Accepted for compatibility; unused."
    )
    detail: bool | None = Field(
        default=None, description="Include one metrics row per day (default false)."
    )

    @field_validator("dimensions", mode="before")
    @classmethod
    def _dims(cls, value: Any) -> Any:
        value = _listify(value)
        if isinstance(value, list):
            return [v for v in value if isinstance(v, str)]
        return None


class AnalyzeRhythmArgs(StrictToolArgs):
    """Daily rhythm report (JSON): subject switches, fragmentation, high-intensity neighbours and
    long blocks per day, plus per-subject task counts. Only the listed argument names are
    accepted."""

    category: str | None = Field(
        default=None, description="Only this task class name in the subject list."
    )
    include_pending: bool | None = Field(
        default=None, description="Count pending tasks in the subject list (default true)."
    )
    detail: bool | None = Field(
        default=None, description="Include one metrics row per day (default false)."
    )
    hard_categories: list[str] | str | None = Field(
        default=None, description="Accepted for compatibility; unused."
    )

    @field_validator("category", mode="before")
    @classmethod
    def _category(cls, value: Any) -> Any:
        return value if isinstance(value, str) else None


# -- per-day rhythm -------------------------------------------------------------------------


def class_meta(state: ScheduleState, task: Task) -> TaskClassMeta | None:
    meta = state.task_class(task.class_id) if task.class_id else None
    if meta is None:
        meta = next((m for m in state.task_classes if m.name == task.category), None)
    return meta


def _priority(task: Task) -> int:
    if task.is_suggested:
        return 3
    return 2 if task.source == "task_item" else 1


@dataclass
class Section:
    category: str
    high: bool
    subject_type: str


@dataclass
class DayRhythm:
    day: int
    sequence: list[Section]
    switch_count: int = 0
    max_block: int = 0
    fragmentation: float = 0.0
    heavy_adjacent: bool = False
    high_run: int = 0
    blocks: int = 0
    pairs: int = 0
    same_type_pairs: int = 0

    def row(self) -> dict[str, Any]:
        return {
            "day": self.day,
            "sections": len(self.sequence),
            "switch_count": self.switch_count,
            "max_block": self.max_block,
            "fragmentation": round(self.fragmentation, 2),
            "heavy_adjacent": self.heavy_adjacent,
            "high_intensity_run": self.high_run,
        }


def _owners(state: ScheduleState) -> dict[tuple[int, int], Task]:
    """(day, section) → the non-course task whose subject counts there (highest priority,
    ties: first in the task list)."""
    owners: dict[tuple[int, int], Task] = {}
    for task in state.tasks:
        if task.is_course:
            continue
        for s in task.slots:
            for sec in range(s.slot_start, s.slot_end + 1):
                cur = owners.get((s.day, sec))
                if cur is None or _priority(task) > _priority(cur):
                    owners[(s.day, sec)] = task
    return owners


def _rhythms(state: ScheduleState) -> list[DayRhythm]:
    owners = _owners(state)
    sections: dict[int, Section] = {}
    out = []
    for info in sorted(state.window.day_mapping, key=lambda d: d.day_index):
        sequence: list[Section] = []
        for sec in range(1, SECTIONS_PER_DAY + 1):
            owner = owners.get((info.day_index, sec))
            if owner is None:
                continue
            if owner.state_id not in sections:
                meta = class_meta(state, owner)
                sections[owner.state_id] = Section(
                    owner.category,
                    meta.high_intensity if meta else False,
                    meta.subject_type.strip() if meta else "",
                )
            sequence.append(sections[owner.state_id])
        out.append(_day_rhythm(info.day_index, sequence))
    return out


def _day_rhythm(day: int, sequence: list[Section]) -> DayRhythm:
    rhythm = DayRhythm(day, sequence)
    run = high = 0
    for i, cur in enumerate(sequence):
        prev = sequence[i - 1] if i else None
        if prev is not None and prev.category != cur.category:
            rhythm.switch_count += 1
            if prev.high and cur.high:
                rhythm.heavy_adjacent = True
        if prev is not None:
            rhythm.pairs += 1
            if cur.subject_type and cur.subject_type == prev.subject_type:
                rhythm.same_type_pairs += 1
        run = run + 1 if prev is not None and prev.category == cur.category else 1
        if run == 1:
            rhythm.blocks += 1
        rhythm.max_block = max(rhythm.max_block, run)
        high = high + 1 if cur.high else 0
        rhythm.high_run = max(rhythm.high_run, high)
    if len(sequence) > 1:
        rhythm.fragmentation = rhythm.switch_count / (len(sequence) - 1)
    return rhythm


def _critical_switch(r: DayRhythm) -> bool:
    return r.switch_count >= 5 and r.fragmentation >= 0.75


def _warn_switch(r: DayRhythm) -> bool:
    return r.switch_count >= 3 or r.fragmentation >= 0.55


def _overview(days: list[DayRhythm]) -> dict[str, Any]:
    n = len(days)
    max_switch = max((r.switch_count for r in days), default=0)
    pairs = sum(r.pairs for r in days)
    blocks = sum(r.blocks for r in days)
    sections = sum(len(r.sequence) for r in days)
    fragmented = sum(1 for r in days if _warn_switch(r))
    compressed = sum(1 for r in days if r.max_block >= 5 or r.high_run >= 4)
    return {
        "avg_switches_per_day": round(sum(r.switch_count for r in days) / n, 2) if n else 0.0,
        "max_switch_count": max_switch,
        "max_switch_day": next((r.day for r in days if r.switch_count == max_switch), 0)
        if max_switch
        else 0,
        "heavy_adjacent_days": sum(1 for r in days if r.heavy_adjacent),
        "heavy_adjacent_day_list": [r.day for r in days if r.heavy_adjacent],
        "fragmented_count": fragmented,
        "longest_same_subject_run": max((r.max_block for r in days), default=0),
        "high_intensity_days": sum(1 for r in days if r.high_run > 0),
        "long_high_intensity_days": sum(1 for r in days if r.high_run >= 4),
        "compressed_run_count": compressed,
        "block_balance": fragmented - compressed,
        "same_type_transition_ratio": round(sum(r.same_type_pairs for r in days) / pairs, 2)
        if pairs
        else 0.0,
        "avg_block_size": round(sections / blocks, 2) if blocks else 0.0,
    }


def _issue(
    issue_id: str, dimension: str, severity: str, metric: str | None = None, operator: str = "",
    threshold: Any = None, actual: Any = None, day: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    out: dict[str, Any] = {"issue_id": issue_id, "dimension": dimension, "severity": severity}
    if day is not None:
        out["day"] = day
    if metric is not None:
        out["trigger"] = {
            "metric": metric,
            "operator": operator,
            "threshold": threshold,
            "actual": actual,
        }
    return out


def _action(action: str, priority: int, day: int, issue_id: str) -> dict[str, Any]:
    return {
        "action_id": f"{action}_day_{day}",
        "action": action,
        "priority": priority,
        "day": day,
        "issue_id": issue_id,
        "suggested_tools": ["swap", "move"],
        "required_reads": ["query_range", "query_target_tasks"],
    }


def _rhythm_issues(days: list[DayRhythm]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    issues: list[dict[str, Any]] = []
    actions: list[dict[str, Any]] = []
    for r in days:
        d = r.day
        if _critical_switch(r):
            iid = f"issue_rhythm_switch_day_{d}"
            issues.append(
                _issue(iid, "rhythm", "critical", "switch_count", ">=", 5, r.switch_count, d)
            )
            actions.append(_action("reduce_switch", 1, d, iid))
        elif _warn_switch(r):
            issues.append(
                _issue(
                    f"issue_rhythm_switch_warn_day_{d}",
                    "rhythm",
                    "warning",
                    "switch_count",
                    ">=",
                    3,
                    r.switch_count,
                    d,
                )
            )
        if r.heavy_adjacent:
            iid = f"issue_rhythm_heavy_adjacent_day_{d}"
            issues.append(_issue(iid, "rhythm", "warning", "heavy_adjacent", "==", True, True, d))
            actions.append(_action("smooth_rhythm", 2, d, iid))
        if r.max_block >= 5:
            issues.append(
                _issue(
                    f"issue_rhythm_long_block_day_{d}",
                    "rhythm",
                    "warning",
                    "max_block",
                    ">=",
                    5,
                    r.max_block,
                    d,
                )
            )
    if not issues:
        issues.append(_issue("issue_rhythm_info", "rhythm", "info"))
    actions.sort(key=lambda a: (a["priority"], a["day"]))
    return issues, actions


# -- subjects, feasibility, profile ----------------------------------------------------------


def _subjects(
    state: ScheduleState, category: str | None = None, include_pending: bool = True
) -> list[dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for task in sorted(state.tasks, key=lambda x: x.state_id):
        if task.source != "task_item" or not task.category:
            continue
        if category is not None and task.category != category:
            continue
        if task.is_pending and not include_pending:
            continue
        row = rows.get(task.category)
        if row is None:
            meta = class_meta(state, task)
            row = rows[task.category] = {
                "category": task.category,
                "task_class_id": meta.id if meta else task.class_id,
                "task_count": 0,
                "placed_count": 0,
                "pending_count": 0,
                "subject_type": meta.subject_type if meta else "",
                "difficulty_level": meta.difficulty_level if meta else "",
                "cognitive_intensity": meta.cognitive_intensity if meta else "",
            }
        row["task_count"] += 1
        if task.is_placed:
            row["placed_count"] += 1
        if task.is_pending:
            row["pending_count"] += 1
    return list(rows.values())


def _feasibility(state: ScheduleState) -> dict[str, Any]:
    required = sum(task.duration for task in state.tasks if task.is_pending)
    capacity = sum(
        SECTIONS_PER_DAY - len(occupied_sections(state, d.day_index))
        for d in state.window.day_mapping
    )
    gap = required - capacity
    return {
        "is_feasible": gap <= 0,
        "required_sections": required,
        "capacity_sections": capacity,
        "capacity_gap": max(gap, 0),
        "reason_code": "enough_capacity" if gap <= 0 else "capacity_insufficient",
    }


def _profile(subjects: list[dict[str, Any]]) -> dict[str, Any]:
    def missing(field_name: str) -> list[str]:
        return [s["category"] for s in subjects if not str(s[field_name]).strip()]

    incomplete = [
        s["category"]
        for s in subjects
        if not all(
            str(s[f]).strip() for f in ("subject_type", "difficulty_level", "cognitive_intensity")
        )
    ]
    return {
        "subject_count": len(subjects),
        "missing_subject_type": len(missing("subject_type")),
        "missing_difficulty_level": len(missing("difficulty_level")),
        "missing_cognitive_intensity": len(missing("cognitive_intensity")),
        "missing_profile_count": len(incomplete),
        "incomplete_subjects": incomplete,
    }


# -- tightness --------------------------------------------------------------------------------


def _order_ok(state: ScheduleState, moves: dict[int, list[Slot]]) -> bool:
    """The intra-class order constraint with `moves` applied (no conflict check)."""
    tasks = [
        task.model_copy(update={"slots": moves[task.state_id]}) if task.state_id in moves else task
        for task in state.tasks
    ]
    probe = state.model_copy(update={"tasks": tasks})
    return order_violation(probe, list(moves), "zh") is None


Occupancy = dict[int, list[tuple[int, int, int]]]


def _occupancy(state: ScheduleState) -> Occupancy:
    """day → (start, end, state_id) of every non-guest slot (water courses included)."""
    out: Occupancy = {}
    for task in state.tasks:
        if task.is_guest:
            continue
        for s in task.slots:
            out.setdefault(s.day, []).append((s.slot_start, s.slot_end, task.state_id))
    return out


def _order_bounds(
    state: ScheduleState, task: Task
) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """(day, section) the task must start after and end before: the ends of its nearest placed
    siblings in task_order (the rule of common.order_violation, for a single-task move)."""
    if not task.in_order_chain:
        return None, None
    before, after = placed_neighbours(state, task)
    low = max((s.day, s.slot_end) for s in before.slots) if before else None
    high = min((s.day, s.slot_start) for s in after.slots) if after else None
    return low, high


def _positions(state: ScheduleState, task: Task, occupancy: Occupancy) -> Iterator[Slot]:
    """Legal alternative single-block positions: strictly free, not the current one, in order."""
    length = task.slot_sections
    if length < 1 or length > SECTIONS_PER_DAY:
        return
    current = sorted(task.slots, key=lambda s: s.key())
    low, high = _order_bounds(state, task)
    for info in sorted(state.window.day_mapping, key=lambda d: d.day_index):
        day = info.day_index
        taken = [(a, b) for a, b, owner in occupancy.get(day, []) if owner != task.state_id]
        for start in range(1, SECTIONS_PER_DAY - length + 2):
            end = start + length - 1
            if low is not None and not (day, start) > low:
                continue
            if high is not None and not (day, end) < high:
                continue
            if any(a <= end and start <= b for a, b in taken):
                continue
            slot = Slot(day=day, slot_start=start, slot_end=end)
            if [slot] != current:
                yield slot


def _first_day(task: Task) -> int:
    return min(s.day for s in task.slots)


def _tightness(state: ScheduleState, days: list[DayRhythm]) -> dict[str, Any]:
    """How movable the tasks around the problem days are (seed-origin §3.5 "Tightness")."""
    total = state.window.total_days
    focus: set[int] = set()
    for r in days:
        if r.heavy_adjacent or _critical_switch(r) or r.max_block >= 5:
            focus.update(d for d in (r.day - 1, r.day, r.day + 1) if 1 <= d <= total)
    movable_pool = [x for x in state.tasks if x.source == "task_item" and x.is_suggested]
    candidates = [x for x in movable_pool if _first_day(x) in focus] or movable_pool
    alternatives: dict[int, int] = {}
    occupancy = _occupancy(state)
    for task in candidates:
        count = 0
        for _ in _positions(state, task, occupancy):
            count += 1
            if count >= MAX_ALTERNATIVES:
                break
        alternatives[task.state_id] = count
    movable = [tid for tid, n in alternatives.items() if n > 0]
    avg = sum(alternatives[tid] for tid in movable) / len(movable) if movable else 0.0
    swaps: list[tuple[int, int]] = []
    examined = 0
    for i, a in enumerate(candidates):
        for b in candidates[i + 1 :]:
            if a.class_id == b.class_id or examined >= MAX_SWAP_PAIRS_EXAMINED:
                continue
            examined += 1
            if a.slot_sections == b.slot_sections and _order_ok(
                state, {a.state_id: list(b.slots), b.state_id: list(a.slots)}
            ):
                swaps.append((a.state_id, b.state_id))
    forced: list[int] = []
    for r in days:
        if not r.heavy_adjacent:
            continue
        on_day = {x.state_id for x in candidates if any(s.day == r.day for s in x.slots)}
        if not any(alternatives.get(tid, 0) for tid in on_day) and not any(
            a in on_day or b in on_day for a, b in swaps
        ):
            forced.append(r.day)
    if len(movable) >= 4 and (avg >= 2 or len(swaps) >= 2):
        level = "loose"
    elif not movable and not swaps:
        level = "locked"
    else:
        level = "tight"
    return {
        "candidate_task_count": len(candidates),
        "locally_movable_task_count": len(movable),
        "avg_local_alternatives": round(avg, 2),
        "cross_class_swap_options": len(swaps),
        "forced_heavy_adjacent_days": forced,
        "tightness_level": level,
    }


# -- decision ---------------------------------------------------------------------------------


@dataclass
class RepairDay:
    day: int
    pair: tuple[Task, Task]
    score: int


def _day_tasks(state: ScheduleState, day: int) -> list[tuple[Slot, Task]]:
    found = [
        (min((s for s in task.slots if s.day == day), key=lambda s: s.slot_start), task)
        for task in state.tasks
        if not task.is_course and any(s.day == day for s in task.slots)
    ]
    return sorted(found, key=lambda p: (p[0].slot_start, p[0].slot_end, p[1].state_id))


def _high(state: ScheduleState, task: Task) -> bool:
    meta = class_meta(state, task)
    return bool(meta and meta.high_intensity)


def _heavy_pair(state: ScheduleState, day: int) -> tuple[Task, Task] | None:
    tasks = [task for _, task in _day_tasks(state, day)]
    for a, b in zip(tasks, tasks[1:], strict=False):
        if (
            a.category
            and b.category
            and a.category != b.category
            and _high(state, a)
            and _high(state, b)
        ):
            return a, b
    return None


def _acceptable(r: DayRhythm, overview: dict[str, Any]) -> bool:
    return (
        overview["same_type_transition_ratio"] >= 0.80
        and overview["avg_switches_per_day"] <= 1.0
        and overview["max_switch_count"] <= 3
        and r.switch_count <= 2
        and r.fragmentation <= 0.45
    )


@dataclass
class Analysis:
    state: ScheduleState
    lang: Lang
    days: list[DayRhythm]
    overview: dict[str, Any]
    subjects: list[dict[str, Any]]
    profile: dict[str, Any]
    feasibility: dict[str, Any]
    repairable: list[RepairDay]
    _tightness: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def tightness(self) -> dict[str, Any]:
        if self._tightness is None:
            self._tightness = _tightness(self.state, self.days)
        return self._tightness

    def base_decision(self) -> dict[str, Any]:
        """The decision before candidates: primary problem, operation, forced, continue."""
        lang = self.lang
        feas = self.feasibility
        if not feas["is_feasible"]:
            problem = t(
                lang, "an_problem_capacity", required=feas["required_sections"],
                capacity=feas["capacity_sections"], gap=feas["capacity_gap"],
            )  # fmt: skip
            return _decision(problem, "ask_user", True, False)
        if self.profile["missing_profile_count"]:
            names = t(lang, "list_sep").join(self.profile["incomplete_subjects"])
            problem = t(
                lang, "an_problem_profile", count=self.profile["missing_profile_count"], names=names
            )
            return _decision(problem, "ask_user", False, False)
        if not self.repairable:
            return _decision("", "close", False, False)
        best = self.repairable[0]
        a, b = best.pair
        problem = t(
            lang, "an_problem_heavy", day_label=day_label(self.state, best.day, lang), a=a.state_id,
            aname=a.name, acat=a.category, b=b.state_id, bname=b.name, bcat=b.category,
        )  # fmt: skip
        if self.tightness["tightness_level"] == "locked":
            return _decision(problem, "close", True, False, focus_day=best.day)
        return _decision(problem, "swap", False, True, focus_day=best.day)


def _decision(
    problem: str, operation: str, forced: bool, cont: bool, focus_day: int | None = None
) -> dict[str, Any]:
    return {
        "primary_problem": problem,
        "recommended_operation": operation,
        "is_forced_imperfection": forced,
        "should_continue_optimize": cont,
        "focus_day": focus_day,
    }


@dataclass
class RhythmView:
    """The part of the analysis a move or swap can change: rhythm and repairable days."""

    days: list[DayRhythm]
    overview: dict[str, Any]
    repairable: list[RepairDay]


def _rhythm_view(state: ScheduleState) -> RhythmView:
    days = _rhythms(state)
    overview = _overview(days)
    repairable: list[RepairDay] = []
    for r in days:
        if not r.heavy_adjacent or _acceptable(r, overview):
            continue
        pair = _heavy_pair(state, r.day)
        if pair is None:
            continue
        score = 300 + 8 * r.switch_count + int(20 * r.fragmentation)
        if pair[0].class_id != pair[1].class_id:
            score += 15
        repairable.append(RepairDay(r.day, pair, score))
    repairable.sort(key=lambda x: (-x.score, x.day))
    return RhythmView(days, overview, repairable)


def analyse(state: ScheduleState, lang: Lang) -> Analysis:
    view = _rhythm_view(state)
    subjects = _subjects(state)
    return Analysis(
        state, lang, view.days, view.overview, subjects, _profile(subjects), _feasibility(state),
        view.repairable,
    )  # fmt: skip


# -- candidates ------------------------------------------------------------------------------
#
# Every candidate is first screened on a cheap what-if copy (slots exchanged, nothing else
# checked); the promising ones, best first, are then run with the real move/swap tool and
# re-analysed, until TOP_PER_DAY of them are confirmed. Only the MAX_REPAIR_DAYS highest-priority
# problem days are examined, so the report stays fast on long windows.


@dataclass
class Proposal:
    tool: str
    arguments: dict[str, int]
    moves: dict[int, list[Slot]]
    cost: int
    summary: str
    candidate_id: str
    score: int = 0
    effect: str = ""

    @property
    def rank(self) -> int:
        return self.score + (12 if self.tool == "swap" else 0)

    @property
    def key(self) -> str:
        args = self.arguments
        same = sorted([args["task_a"], args["task_b"]]) if self.tool == "swap" else args
        return self.tool + json.dumps(same, sort_keys=True)


def _after(analysis: Analysis) -> dict[str, Any]:
    base = analysis.base_decision()
    return {
        "can_close": not base["should_continue_optimize"],
        "primary_problem": base["primary_problem"],
        "recommended_operation": base["recommended_operation"],
        "heavy_adjacent_days": analysis.overview["heavy_adjacent_days"],
        "max_switch_count": analysis.overview["max_switch_count"],
        "same_type_transition_ratio": analysis.overview["same_type_transition_ratio"],
    }


def _judge(before: Analysis, after: RhythmView | Analysis, day: int, proposal: Proposal) -> bool:
    """Set effect and score of `proposal` from the analysis after it; True if it helps."""
    n_before, n_after = len(before.repairable), len(after.repairable)
    if n_after == 0:
        effect = "improve"
    elif n_after < n_before:
        effect = "partial_improve"
    elif n_after > n_before:
        effect = "regress"
    else:
        effect = "no_gain" if any(r.day == day for r in after.repairable) else "shift"
    ratio_gain = (
        after.overview["same_type_transition_ratio"] - before.overview["same_type_transition_ratio"]
    )
    proposal.effect = effect
    proposal.score = (
        1000 * (n_before - n_after)
        + 20 * (before.overview["max_switch_count"] - after.overview["max_switch_count"])
        + int(100 * ratio_gain)
        - proposal.cost
        + (10 if proposal.tool == "swap" else 0)
    )
    return effect in ("improve", "partial_improve")


def _what_if(state: ScheduleState, moves: dict[int, list[Slot]]) -> ScheduleState:
    tasks = [
        task.model_copy(update={"slots": moves[task.state_id]}) if task.state_id in moves else task
        for task in state.tasks
    ]
    return state.model_copy(update={"tasks": tasks})


def _proposals(before: Analysis, repair: RepairDay) -> Iterator[Proposal]:
    state, lang = before.state, before.lang
    members = [x for x in repair.pair if x.source == "task_item" and x.is_suggested]
    partners = sorted(
        (x for x in state.tasks if x.source == "task_item" and x.is_suggested),
        key=lambda x: x.state_id,
    )
    pairs = 0
    for m in members:
        for p in partners:
            if pairs >= MAX_SWAP_CANDIDATES:
                break
            if (
                p.state_id == m.state_id
                or p.class_id == m.class_id
                or p.slot_sections != m.slot_sections
            ):
                continue
            pairs += 1
            yield Proposal(
                "swap", {"task_a": m.state_id, "task_b": p.state_id},
                {m.state_id: list(p.slots), p.state_id: list(m.slots)}, 4,
                t(lang, "an_summary_swap", a=m.state_id, aname=m.name, b=p.state_id, bname=p.name),
                f"swap_{m.state_id}_{p.state_id}",
            )  # fmt: skip
    occupancy = _occupancy(state)
    for m in members:
        origin = min(m.slots, key=lambda s: s.key())
        for n, slot in enumerate(_positions(state, m, occupancy)):
            if n >= MAX_MOVE_POSITIONS:
                break
            label = range_label(state, slot.day, slot.slot_start, slot.slot_end, lang)
            yield Proposal(
                "move",
                {"task_id": m.state_id, "new_day": slot.day, "new_slot_start": slot.slot_start},
                {m.state_id: [slot]},
                2 * abs(slot.day - origin.day) + abs(slot.slot_start - origin.slot_start),
                t(lang, "an_summary_move", id=m.state_id, name=m.name, label=label),
                f"move_{m.state_id}_{slot.day}_{slot.slot_start}",
            )


def _day_candidates(before: Analysis, repair: RepairDay, ctx: ToolContext) -> list[dict[str, Any]]:
    screened: list[Proposal] = []
    seen: set[str] = set()
    for proposal in _proposals(before, repair):
        if proposal.key in seen:
            continue
        seen.add(proposal.key)
        if proposal.tool == "swap" and not _order_ok(before.state, proposal.moves):
            continue
        if _judge(
            before, _rhythm_view(_what_if(before.state, proposal.moves)), repair.day, proposal
        ):
            screened.append(proposal)
    screened.sort(key=lambda c: (-c.rank, c.tool, c.candidate_id))
    # the registry loads every tool module only when it is empty: make sure move/swap exist
    import planner_cli.tools.write  # noqa: F401

    confirmed: list[tuple[Proposal, dict[str, Any]]] = []
    for proposal in screened:
        result = run_tool(proposal.tool, before.state, proposal.arguments, ctx)
        if not result.ok:
            continue
        after = analyse(result.state, before.lang)
        if not _judge(before, after, repair.day, proposal):
            continue
        confirmed.append((proposal, _after(after)))
        if len(confirmed) == TOP_PER_DAY:
            break
    confirmed.sort(key=lambda c: (-c[0].rank, c[0].tool, c[0].candidate_id))
    return [
        {
            "candidate_id": p.candidate_id,
            "tool": p.tool,
            "arguments": p.arguments,
            "summary": p.summary,
            "effect": p.effect,
            "score": p.score,
            "after": after,
        }
        for p, after in confirmed
    ]


def _close_candidate(lang: Lang) -> dict[str, Any]:
    return {
        "candidate_id": "close",
        "tool": "close",
        "arguments": {},
        "summary": t(lang, "an_summary_close"),
        "effect": "close",
    }


def _candidates(analysis: Analysis, ctx: ToolContext) -> list[dict[str, Any]]:
    """The top candidates of the problem day whose best candidate scores highest."""
    best: tuple[int, int, int] | None = None
    chosen: list[dict[str, Any]] = []
    for repair in analysis.repairable[:MAX_REPAIR_DAYS]:
        cands = _day_candidates(analysis, repair, ctx)
        if not cands or cands[0]["score"] < 1:
            continue
        key = (-cands[0]["score"], -repair.score, repair.day)
        if best is None or key < best:
            best, chosen = key, cands
    return chosen


# -- envelope --------------------------------------------------------------------------------

_METRICS = (
    ("avg_switches_per_day", "an_m_avg_switches", "count", "lower_is_better"),
    ("max_switch_count", "an_m_max_switch", "count", "lower_is_better"),
    ("heavy_adjacent_days", "an_m_heavy_days", "days", "lower_is_better"),
    ("fragmented_count", "an_m_fragmented", "days", "lower_is_better"),
    ("longest_same_subject_run", "an_m_longest_run", "sections", "lower_is_better"),
    ("high_intensity_days", "an_m_high_days", "days", "info"),
    ("long_high_intensity_days", "an_m_long_high_days", "days", "lower_is_better"),
    ("compressed_run_count", "an_m_compressed", "days", "lower_is_better"),
    ("block_balance", "an_m_balance", "days", "closer_to_zero_is_better"),
    ("same_type_transition_ratio", "an_m_same_type", "ratio", "higher_is_better"),
    ("avg_block_size", "an_m_block_size", "sections", "info"),
)
_HEALTH_METRICS = (
    ("capacity_gap", "an_m_capacity_gap", "sections", "lower_is_better"),
    ("locally_movable_task_count", "an_m_movable", "count", "higher_is_better"),
    ("cross_class_swap_options", "an_m_swaps", "count", "higher_is_better"),
    ("missing_profile_count", "an_m_missing_profile", "count", "lower_is_better"),
)


def _schema(lang: Lang, health: bool) -> dict[str, dict[str, str]]:
    rows = _METRICS + (_HEALTH_METRICS if health else ())
    return {
        name: {"description": t(lang, key), "unit": unit, "direction": d}
        for name, key, unit, d in rows
    }


def _envelope(tool_name: str, **parts: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "tool": tool_name,
        "success": True,
        "metric_schema": {},
        "metrics": {},
        "issues": [],
    }
    out["next_actions"] = []
    out.update(parts)
    out.setdefault("error", "")
    out.setdefault("error_code", "")
    return out


def _fail(state: ScheduleState, tool_name: str, message: str, code: str) -> ToolResult:
    payload = _envelope(tool_name, success=False, error=message, error_code=code)
    return ToolResult(False, json.dumps(payload, ensure_ascii=False), state, payload)


def _sorted_issues(issues: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(issues, key=lambda i: SEVERITY_RANK[i["severity"]])


def _signal(analysis: Analysis, decision: dict[str, Any]) -> str:
    overview, tight = analysis.overview, analysis.tightness
    problem_days = sum(
        1 for r in analysis.days if _warn_switch(r) or r.heavy_adjacent or r.max_block >= 5
    )
    heavy = overview["heavy_adjacent_days"]
    return "|".join(
        [
            f"problem_days={problem_days}",
            f"heavy_adjacent_days={heavy}",
            f"max_switch_count={overview['max_switch_count']}",
            f"same_type_ratio={overview['same_type_transition_ratio']:.2f}",
            f"non_forced_heavy_days={heavy - len(tight['forced_heavy_adjacent_days'])}",
            f"local_moves={tight['locally_movable_task_count']}",
            f"swap_options={tight['cross_class_swap_options']}",
            f"tightness={tight['tightness_level']}",
            f"operation={decision['recommended_operation']}",
            f"missing_profile={analysis.profile['missing_profile_count']}",
            f"capacity_gap={analysis.feasibility['capacity_gap']}",
        ]
    )


@tool("analyze_health", AnalyzeHealthArgs, kind="read", json_output=True)
def analyze_health(state: ScheduleState, args: AnalyzeHealthArgs, ctx: ToolContext) -> ToolResult:
    lang = ctx.lang
    if args.dimensions is not None:
        given = [d.strip().lower() for d in args.dimensions if d.strip()]
        if given and not any(d in DIMENSIONS for d in given):
            return _fail(state, "analyze_health", t(lang, "an_dimensions_invalid"), "invalid_args")
    if not state.tasks:
        return _fail(state, "analyze_health", t(lang, "an_state_empty"), "state_empty")
    analysis = analyse(state, lang)
    decision = analysis.base_decision()
    candidates: list[dict[str, Any]] = []
    if decision["should_continue_optimize"]:
        candidates = _candidates(analysis, ctx)
        if candidates:
            decision["recommended_operation"] = candidates[0]["tool"]
        else:
            level = analysis.tightness["tightness_level"]
            decision.update(
                recommended_operation="close", should_continue_optimize=False,
                is_forced_imperfection=level in ("tight", "locked"),
            )  # fmt: skip
    decision["candidates"] = [*candidates, _close_candidate(lang)]
    decision["improvement_signal"] = _signal(analysis, decision)

    issues: list[dict[str, Any]] = []
    feas = analysis.feasibility
    if not feas["is_feasible"]:
        issues.append(
            _issue(
                "issue_feasibility_capacity_gap",
                "feasibility",
                "critical",
                "capacity_gap",
                ">",
                0,
                feas["capacity_gap"],
            )
        )
    profile = analysis.profile
    if profile["missing_profile_count"]:
        issues.append(
            _issue(
                "issue_semantic_profile_missing",
                "semantic_profile",
                "warning",
                "missing_profile_count",
                ">",
                0,
                profile["missing_profile_count"],
            )
        )
    rhythm_issues, actions = _rhythm_issues(analysis.days)
    issues += rhythm_issues
    metrics: dict[str, Any] = {
        **analysis.overview,
        "capacity_gap": feas["capacity_gap"],
        "tightness": analysis.tightness,
        "semantic_profile": profile,
        "subjects": analysis.subjects,
        "can_close": not decision["should_continue_optimize"],
    }
    metrics["locally_movable_task_count"] = analysis.tightness["locally_movable_task_count"]
    metrics["cross_class_swap_options"] = analysis.tightness["cross_class_swap_options"]
    metrics["missing_profile_count"] = profile["missing_profile_count"]
    if args.detail:
        metrics["days"] = [r.row() for r in analysis.days]
    payload = _envelope(
        "analyze_health",
        metric_schema=_schema(lang, True),
        metrics=metrics,
        issues=_sorted_issues(issues),
        next_actions=actions,
        feasibility=feas,
        decision=decision,
    )
    return ToolResult(True, json.dumps(payload, ensure_ascii=False), state, payload)


@tool("analyze_rhythm", AnalyzeRhythmArgs, kind="read", json_output=True)
def analyze_rhythm(state: ScheduleState, args: AnalyzeRhythmArgs, ctx: ToolContext) -> ToolResult:
    lang = ctx.lang
    if not state.tasks:
        return _fail(state, "analyze_rhythm", t(lang, "an_state_empty"), "state_empty")
    days = _rhythms(state)
    category = args.category.strip() if args.category and args.category.strip() else None
    include_pending = args.include_pending if args.include_pending is not None else True
    issues, actions = _rhythm_issues(days)
    metrics: dict[str, Any] = {
        **_overview(days),
        "subjects": _subjects(state, category, include_pending),
    }
    if args.detail:
        metrics["days"] = [r.row() for r in days]
    payload = _envelope(
        "analyze_rhythm",
        metric_schema=_schema(lang, False),
        metrics=metrics,
        issues=_sorted_issues(issues),
        next_actions=actions,
    )
    return ToolResult(True, json.dumps(payload, ensure_ascii=False), state, payload)
