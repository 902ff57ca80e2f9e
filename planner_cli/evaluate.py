"""CI regression evaluation (spec/cli.md "eval"): suites of cases, hard checks, metric baselines.

Decisions where the spec is silent (docs/cron.md): checks about positions look at the tasks the
planner controls (suggested in the final state) and fail when their selector matches nothing;
every tracked metric is "lower is better" and regresses beyond max(abs, rel × |baseline|) from
configs/eval.yaml; failed checks and regressions both exit 3; results carry no wall-clock data
except the JUnit `time` attributes.
"""

from __future__ import annotations

import datetime as dt
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from planner_cli import __version__
from planner_cli.errors import ConfigError, InputError, PlannerError, Problem
from planner_cli.io.files import atomic_write, dumps, read_data, validate_as
from planner_cli.model.state import ScheduleState, Slot, Task

SUITE_KIND = "planner-eval-suite"
CASE_KIND = "planner-eval-case"
BASELINE_KIND = "planner-eval-baseline"
CASE_ID = r"^[a-z0-9][a-z0-9_.-]{0,63}$"
WEEKEND = (6, 7)
DEFAULT_TRACKED = (
    "objective",
    "pending",
    "hard_violations",
    "moved",
    "changes",
    "context_switches",
    "max_day_load",
    "failed_steps",
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- the suite schema -------------------------------------------------------------------------


class Tasks(_Model):
    """Which study tasks a check is about (all given fields must match)."""

    class_id: int | None = None
    category: str | None = Field(default=None, description="The task class name, e.g. 概率论.")
    names: list[str] | None = None
    name_contains: str | None = None

    @model_validator(mode="after")
    def _something(self) -> Tasks:
        if (
            self.class_id is None
            and not self.category
            and not self.names
            and not self.name_contains
        ):
            raise ValueError("give at least one of class_id, category, names, name_contains")
        return self

    def matches(self, task: Task) -> bool:
        if task.is_course:
            return False
        if self.class_id is not None and task.class_id != self.class_id:
            return False
        if self.category and task.category != self.category:
            return False
        if self.names and task.name not in self.names:
            return False
        return not (self.name_contains and self.name_contains not in task.name)

    def label(self) -> str:
        parts = []
        if self.class_id is not None:
            parts.append(f"class {self.class_id}")
        if self.category:
            parts.append(self.category)
        if self.names:
            parts.append("/".join(self.names))
        if self.name_contains:
            parts.append(f"*{self.name_contains}*")
        return " ".join(parts)


class InSections(_Model):
    """Every slot of the selected suggested tasks lies within sections first..last."""

    tasks: Tasks
    first: int = Field(default=1, ge=1, le=12)
    last: int = Field(default=12, ge=1, le=12)


class OnDays(_Model):
    """The selected suggested tasks sit only on these weekdays and/or before/from a day."""

    tasks: Tasks
    days_of_week: list[int] | None = None
    before: str | None = Field(
        default=None, description="WEEK:DAY or a date; every slot strictly before."
    )
    not_before: str | None = Field(
        default=None, description="WEEK:DAY or a date; no slot before it."
    )

    @field_validator("days_of_week")
    @classmethod
    def _weekdays(cls, value: list[int] | None) -> list[int] | None:
        if value is not None and any(not 1 <= v <= 7 for v in value):
            raise ValueError("weekdays must be between 1 and 7")
        return value


class MaxPerDay(_Model):
    """The selected tasks use at most `sections` sections on any one day (spread them out)."""

    tasks: Tasks
    sections: int = Field(ge=0)


class Position(_Model):
    """A named task starts exactly here (e.g. after a swap)."""

    task: str | int = Field(description="A task name (unique in the state) or a state_id.")
    week: int = Field(ge=1)
    day_of_week: int = Field(ge=1, le=7)
    slot_start: int = Field(ge=1, le=12)


class Threshold(_Model):
    min: float | None = None
    max: float | None = None


class Expect(_Model):
    exit_code: int | None = None
    outcome: str | list[str] | None = None
    error_contains: str | None = None
    no_violations: bool = True
    all_placed: bool = False
    no_weekend: bool = False
    free_days: list[str] = Field(default_factory=list)
    past_frozen: bool = False
    max_moved: int | None = Field(default=None, ge=0)
    in_sections: list[InSections] = Field(default_factory=list)
    on_days: list[OnDays] = Field(default_factory=list)
    max_per_day: list[MaxPerDay] = Field(default_factory=list)
    positions: list[Position] = Field(default_factory=list)
    metrics: dict[str, Threshold] = Field(default_factory=dict)


class CaseDefaults(_Model):
    solver: Literal["cpsat", "greedy"] | None = None
    time_limit: float | None = Field(default=None, gt=0)
    seed: int | None = Field(default=None, ge=0)
    lang: Literal["zh", "en"] = "zh"
    mode: Literal["plan-solve", "react"] = "plan-solve"


class Case(CaseDefaults):
    id: str = Field(pattern=CASE_ID)
    description: str = ""
    input: str = Field(description="An export or a state, relative to the suite file.")
    instruction: str | None = None
    plan: str | None = Field(default=None, description="A plan file (no LLM).")
    cassette: str | None = Field(
        default=None, description="A replay cassette of the LLM exchanges."
    )
    now: str | None = None
    task_class: list[int] | None = None
    rough: bool = Field(default=True, description="Rough layout before planning (plan/cassette).")
    expect: Expect = Field(default_factory=Expect)

    @model_validator(mode="after")
    def _one_source(self) -> Case:
        if self.plan and self.cassette:
            raise ValueError("give a plan or a cassette, not both")
        return self


class Suite(_Model):
    kind: Literal["planner-eval-suite"]
    version: Literal[1]
    name: str = ""
    defaults: CaseDefaults = Field(default_factory=CaseDefaults)
    cases: list[dict[str, Any]]


# -- loading ----------------------------------------------------------------------------------


def _resolve(base: Path, value: str | None) -> str | None:
    if value is None:
        return None
    p = Path(value)
    return str(p if p.is_absolute() else base / p)


def _load_file(path: Path) -> list[Case]:
    data = read_data(path)
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind == CASE_KIND:
        body = {k: v for k, v in data.items() if k not in ("kind", "version")}
        if data.get("version") != 1:
            raise InputError(str(path), [Problem("version", "expected 1")])
        raws, defaults = [body], CaseDefaults()
    else:
        suite = validate_as(Suite, data, str(path))
        raws, defaults = suite.cases, suite.defaults
    cases = []
    for i, raw in enumerate(raws):
        merged = {**defaults.model_dump(exclude_none=True), **raw} if isinstance(raw, dict) else raw
        prefix = f"cases[{i}]" if kind != CASE_KIND else ""
        try:
            case = validate_as(Case, merged, str(path))
        except InputError as exc:
            raise InputError(
                str(path),
                [
                    Problem(".".join(p for p in (prefix, q.path) if p), q.message)
                    for q in exc.problems
                ],
            ) from None
        base = path.parent
        cases.append(
            case.model_copy(
                update={
                    "input": _resolve(base, case.input),
                    "plan": _resolve(base, case.plan),
                    "cassette": _resolve(base, case.cassette),
                }
            )
        )
    return cases


def load_suite(path: str | Path) -> list[Case]:
    """Cases of a suite file, or of every *.yaml/*.yml file of a directory (sorted, not nested)."""
    root = Path(path)
    if root.is_dir():
        files = sorted(
            p
            for p in root.iterdir()
            if p.suffix in (".yaml", ".yml") and not p.name.startswith(".")
        )
        if not files:
            raise InputError(str(root), [Problem("", "no suite files (*.yaml) in this directory")])
    else:
        files = [root]
    cases = [case for f in files for case in _load_file(f)]
    seen: dict[str, int] = defaultdict(int)
    for case in cases:
        seen[case.id] += 1
    duplicates = sorted(k for k, n in seen.items() if n > 1)
    if duplicates:
        raise InputError(str(root), [Problem("cases", f"duplicate case id {duplicates[0]!r}")])
    if not cases:
        raise InputError(str(root), [Problem("cases", "the suite has no cases")])
    return cases


# -- checks -------------------------------------------------------------------------------------


@dataclass
class Check:
    """One expectation's verdict; only a failed check keeps a detail."""

    name: str
    ok: bool
    detail: str = ""

    def __post_init__(self) -> None:
        if self.ok:
            self.detail = ""


def _g(slot: Slot) -> tuple[int, int]:
    return (slot.day, slot.slot_start)


def _where(state: ScheduleState, slot: Slot) -> str:
    info = state.day_info(slot.day)
    week = f"W{info.week}D{info.day_of_week}" if info else "?"
    return f"day {slot.day} ({week}) §{slot.slot_start}-{slot.slot_end}"


def _day_of(text: str, state: ScheduleState) -> tuple[int, int] | None:
    """WEEK:DAY or a date → (week, day_of_week)."""
    parts = text.split(":")
    if len(parts) >= 2 and all(p.strip().isdigit() for p in parts[:2]):
        return int(parts[0]), int(parts[1])
    try:
        date = dt.date.fromisoformat(text.strip())
    except ValueError:
        return None
    if state.semester is None:
        return None
    days = (date - dt.date.fromisoformat(state.semester.start_date)).days
    return days // 7 + 1, days % 7 + 1


def _week_day(state: ScheduleState, day: int) -> tuple[int, int]:
    info = state.day_info(day)
    return (info.week, info.day_of_week) if info else (0, 0)


def state_problems(state: ScheduleState) -> list[str]:
    """Hard-rule violations, found without the solver: overlaps, class order, class rules."""
    problems = []
    placed = sorted((t for t in state.tasks if t.slots), key=lambda t: t.state_id)
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            for sa in a.slots:
                for sb in b.slots:
                    if not sa.overlaps(sb.day, sb.slot_start, sb.slot_end):
                        continue
                    embedded = (a.embed_host == b.state_id and b.can_embed) or (
                        b.embed_host == a.state_id and a.can_embed
                    )
                    if not embedded:
                        problems.append(
                            f"tasks {a.state_id} and {b.state_id} overlap on {_where(state, sa)}"
                        )
    chains: dict[int, list[Task]] = defaultdict(list)
    for task in placed:
        if task.in_order_chain and not task.is_course:
            chains[task.class_id].append(task)
    for tasks in chains.values():
        tasks.sort(key=lambda t: (t.task_order, t.state_id))
        for early, late in zip(tasks, tasks[1:], strict=False):
            if early.task_order == late.task_order:
                continue
            end = max((s.day, s.slot_end) for s in early.slots)
            start = min(_g(s) for s in late.slots)
            if not end < start:
                problems.append(
                    f"task {late.state_id} (order {late.task_order}) does not start after task "
                    f"{early.state_id} (order {early.task_order}) ends"
                )
    for task in placed:
        if not task.is_suggested:
            continue
        meta = state.task_class(task.class_id) if task.class_id else None
        if meta is None:
            continue
        for slot in task.slots:
            _, dow = _week_day(state, slot.day)
            if dow in meta.excluded_days_of_week:
                problems.append(
                    f"task {task.state_id} on an excluded weekday: {_where(state, slot)}"
                )
            for block in meta.excluded_slots:
                if slot.slot_start <= 2 * block and 2 * block - 1 <= slot.slot_end:
                    problems.append(
                        f"task {task.state_id} in excluded block {block}: {_where(state, slot)}"
                    )
            date = _date(state, slot.day)
            inside = date is None or not (meta.start_date and meta.end_date)
            if not inside and not meta.start_date <= str(date) <= meta.end_date:
                problems.append(
                    f"task {task.state_id} outside its class dates "
                    f"{meta.start_date}..{meta.end_date}: {_where(state, slot)}"
                )
    return problems


def _date(state: ScheduleState, day: int) -> dt.date | None:
    if state.semester is None:
        return None
    week, dow = _week_day(state, day)
    if not week:
        return None
    start = dt.date.fromisoformat(state.semester.start_date)
    return start + dt.timedelta(days=(week - 1) * 7 + dow - 1)


def _selected(state: ScheduleState, selector: Tasks) -> list[Task]:
    return [t for t in state.tasks if t.is_suggested and selector.matches(t)]


def _none_matched(name: str, selector: Tasks) -> Check:
    return Check(name, False, f"no suggested task matches {selector.label()}")


def _check_in_sections(state: ScheduleState, rule: InSections) -> Check:
    name = f"in_sections {rule.tasks.label()} §{rule.first}-{rule.last}"
    tasks = _selected(state, rule.tasks)
    if not tasks:
        return _none_matched(name, rule.tasks)
    bad = [
        f"{t.state_id} {t.name} at {_where(state, s)}"
        for t in tasks
        for s in t.slots
        if s.slot_start < rule.first or s.slot_end > rule.last
    ]
    return Check(name, not bad, "; ".join(bad))


def _check_on_days(state: ScheduleState, rule: OnDays) -> Check:
    name = f"on_days {rule.tasks.label()}"
    tasks = _selected(state, rule.tasks)
    if not tasks:
        return _none_matched(name, rule.tasks)
    before = _day_of(rule.before, state) if rule.before else None
    not_before = _day_of(rule.not_before, state) if rule.not_before else None
    bad = []
    for task in tasks:
        for slot in task.slots:
            week_day = _week_day(state, slot.day)
            if rule.days_of_week is not None and week_day[1] not in rule.days_of_week:
                bad.append(f"{task.state_id} {task.name} at {_where(state, slot)}")
            elif before is not None and not week_day < before:
                bad.append(f"{task.state_id} {task.name} not before {rule.before}")
            elif not_before is not None and week_day < not_before:
                bad.append(f"{task.state_id} {task.name} before {rule.not_before}")
    return Check(name, not bad, "; ".join(bad))


def _check_max_per_day(state: ScheduleState, rule: MaxPerDay) -> Check:
    name = f"max_per_day {rule.tasks.label()} ≤ {rule.sections}"
    tasks = [t for t in state.tasks if t.slots and rule.tasks.matches(t)]
    if not tasks:
        return _none_matched(name, rule.tasks)
    load: dict[int, int] = defaultdict(int)
    for task in tasks:
        for slot in task.slots:
            load[slot.day] += slot.length
    bad = [f"day {day}: {n} sections" for day, n in sorted(load.items()) if n > rule.sections]
    return Check(name, not bad, "; ".join(bad))


def _check_position(state: ScheduleState, rule: Position) -> Check:
    name = f"position {rule.task} at W{rule.week}D{rule.day_of_week} §{rule.slot_start}"
    if isinstance(rule.task, int):
        found = [t for t in state.tasks if t.state_id == rule.task]
    else:
        found = [t for t in state.tasks if t.name == rule.task]
    if len(found) != 1:
        return Check(name, False, f"{len(found)} tasks are called {rule.task!r}")
    task = found[0]
    if not task.slots:
        return Check(name, False, "the task is not placed")
    first = min(task.slots, key=lambda s: s.key())
    actual = (*_week_day(state, first.day), first.slot_start)
    ok = actual == (rule.week, rule.day_of_week, rule.slot_start)
    return Check(name, ok, "" if ok else f"it starts at W{actual[0]}D{actual[1]} §{actual[2]}")


def _check_past_frozen(
    original: ScheduleState, state: ScheduleState, changes: list[dict[str, Any]], now: str
) -> Check:
    from planner_cli.solver.layout import parse_now

    moment = parse_now(now, original).g
    bad = []
    for change in changes:
        for slot in change.get("to") or []:
            if (slot["day"] - 1) * 12 + slot["slot_start"] < moment:
                bad.append(f"{change['state_id']} {change['name']} {change['type']} into the past")
        for slot in change.get("from") or []:
            task = original.task(change["state_id"])
            if (
                task is not None
                and task.is_existing
                and (slot["day"] - 1) * 12 + slot["slot_start"] < moment
            ):
                bad.append(f"{change['state_id']} {change['name']} was fixed in the past")
    for task in state.tasks:
        if task.is_suggested and any((s.day - 1) * 12 + s.slot_start < moment for s in task.slots):
            old = original.task(task.state_id)
            if old is None or [s.key() for s in old.slots] != [s.key() for s in task.slots]:
                continue
            bad.append(f"{task.state_id} {task.name} is still suggested in the past")
    return Check(f"past_frozen before {now}", not bad, "; ".join(bad))


def run_checks(
    case: Case, preview: dict[str, Any] | None, exit_code: int, error: str
) -> list[Check]:
    """Every expectation of the case, in a fixed order; checks needing a preview fail without."""
    from planner_cli.io.loader import parse_state

    expect = case.expect
    checks: list[Check] = []
    if expect.exit_code is not None:
        got = f"got {exit_code}: {error}" if error else f"got {exit_code}"
        checks.append(Check(f"exit_code {expect.exit_code}", exit_code == expect.exit_code, got))
    if expect.error_contains is not None:
        ok = expect.error_contains in error
        checks.append(Check("error_contains", ok, f"error was: {error or '(none)'}"))
    if preview is None:
        if expect.exit_code != 1:
            checks.append(Check("preview", False, error or "no preview"))
        return checks
    state = parse_state(preview["state"], "preview", "state")
    original = parse_state(preview["original_state"], "preview", "original_state")
    outcome = (preview.get("run") or {}).get("outcome")
    metrics = flat_metrics(preview)
    if expect.outcome is not None:
        allowed = [expect.outcome] if isinstance(expect.outcome, str) else expect.outcome
        checks.append(Check(f"outcome {'|'.join(allowed)}", outcome in allowed, f"got {outcome}"))
    if case.cassette and outcome == "fallback" and not _allows(expect.outcome, "fallback"):
        notes = (preview.get("run") or {}).get("notes") or []
        checks.append(Check("llm usable", False, "; ".join(notes) or "the run fell back"))
    if expect.no_violations:
        problems = state_problems(state)
        reported = metrics.get("hard_violations", 0)
        if reported:
            problems.append(f"the preview reports {reported:g} hard violation(s)")
        checks.append(Check("no_violations", not problems, "; ".join(problems)))
    if expect.all_placed:
        pending = [f"{t.state_id} {t.name}" for t in state.tasks if t.is_pending]
        checks.append(Check("all_placed", not pending, "pending: " + ", ".join(pending)))
    if expect.no_weekend:
        bad = [
            f"{t.state_id} {t.name} at {_where(state, s)}"
            for t in state.tasks
            if t.is_suggested and not t.is_course
            for s in t.slots
            if _week_day(state, s.day)[1] in WEEKEND
        ]
        checks.append(Check("no_weekend", not bad, "; ".join(bad)))
    for text in expect.free_days:
        target = _day_of(text, state)
        bad = [
            f"{t.state_id} {t.name} at {_where(state, s)}"
            for t in state.tasks
            if t.is_suggested and not t.is_course
            for s in t.slots
            if _week_day(state, s.day) == target
        ]
        detail = "; ".join(bad) if target else f"{text!r} is not WEEK:DAY or a date"
        checks.append(Check(f"free_day {text}", bool(target) and not bad, detail))
    if expect.past_frozen:
        if case.now is None:
            checks.append(Check("past_frozen", False, "the case gives no `now`"))
        else:
            checks.append(
                _check_past_frozen(original, state, preview.get("changes") or [], case.now)
            )
    if expect.max_moved is not None:
        moved = [c for c in preview.get("changes") or [] if c["type"] in ("move", "unplace")]
        checks.append(
            Check(
                f"max_moved {expect.max_moved}",
                len(moved) <= expect.max_moved,
                f"{len(moved)} moved: " + ", ".join(f"{c['state_id']} {c['name']}" for c in moved),
            )
        )
    checks.extend(_check_in_sections(state, rule) for rule in expect.in_sections)
    checks.extend(_check_on_days(state, rule) for rule in expect.on_days)
    checks.extend(_check_max_per_day(state, rule) for rule in expect.max_per_day)
    checks.extend(_check_position(state, rule) for rule in expect.positions)
    for key, threshold in sorted(expect.metrics.items()):
        value = metrics.get(key)
        if value is None:
            checks.append(Check(f"metric {key}", False, "the preview has no such metric"))
            continue
        low_ok = threshold.min is None or value >= threshold.min
        high_ok = threshold.max is None or value <= threshold.max
        bounds = f"[{'' if threshold.min is None else f'{threshold.min:g}'}, "
        bounds += f"{'' if threshold.max is None else f'{threshold.max:g}'}]"
        checks.append(Check(f"metric {key} in {bounds}", low_ok and high_ok, f"got {value:g}"))
    return checks


def _allows(expected: str | list[str] | None, outcome: str) -> bool:
    return expected is not None and outcome in (
        [expected] if isinstance(expected, str) else expected
    )


def flat_metrics(preview: dict[str, Any]) -> dict[str, float]:
    """The preview's numbers that a baseline tracks, under flat names."""
    metrics = preview.get("metrics") or {}
    out: dict[str, float] = {}
    for key in ("objective", "pending", "hard_violations", "moved", "context_switches"):
        value = metrics.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[key] = value
    day_load = metrics.get("day_load")
    if isinstance(day_load, list) and day_load:
        out["max_day_load"] = max(day_load)
    for name, term in sorted((metrics.get("terms") or {}).items()):
        if isinstance(term, dict) and isinstance(term.get("cost"), int | float):
            out[f"terms.{name}"] = term["cost"]
    out["changes"] = len(preview.get("changes") or [])
    run = preview.get("run") or {}
    out["failed_steps"] = sum(
        1
        for rnd in run.get("rounds") or []
        for step in rnd.get("steps") or []
        if step.get("status") == "failed"
    )
    if isinstance(run.get("llm_calls"), int):
        out["llm_calls"] = run["llm_calls"]
    return out


# -- running ----------------------------------------------------------------------------------


@dataclass
class CaseResult:
    id: str
    description: str
    exit_code: int
    outcome: str
    checks: list[Check]
    metrics: dict[str, float]
    error: str = ""
    duration_s: float = 0.0
    regressions: list[str] = field(default_factory=list)
    improvements: list[str] = field(default_factory=list)

    @property
    def failed_checks(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    @property
    def passed(self) -> bool:
        return not self.failed_checks and not self.regressions

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "description": self.description,
            "passed": self.passed,
            "exit_code": self.exit_code,
            "outcome": self.outcome,
            "error": self.error,
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks],
            "metrics": self.metrics,
            "regressions": self.regressions,
            "improvements": self.improvements,
        }


Producer = Callable[[str, Any, dict[str, Any]], tuple[dict[str, Any], int]]


def case_options(case: Case, llm: str = "replay", record: bool = False) -> Any:
    """The batch item options that run this case (`llm`: replay = its cassette, or openai)."""
    from planner_cli.batch import ItemOptions

    spec: str | None = None
    if case.cassette:
        spec = f"replay:{case.cassette}" if llm == "replay" else "openai"
    elif not case.plan:
        spec = "none"
    return ItemOptions(
        now=case.now,
        instruction=case.instruction,
        llm=spec,
        plan_file=case.plan,
        mode=case.mode,
        solver=case.solver,
        seed=case.seed,
        time_limit=case.time_limit,
        task_class=tuple(case.task_class) if case.task_class else None,
        lang=case.lang,
        record=case.cassette if (record and case.cassette and llm == "openai") else None,
        rough=case.rough,
    )


def run_case(
    case: Case,
    settings: dict[str, Any],
    llm: str = "replay",
    record: bool = False,
    produce: Producer | None = None,
) -> CaseResult:
    """Produce the case's preview the way `planner plan` would, then check it."""
    from planner_cli.batch import produce_preview

    produce = produce or produce_preview
    started = time.perf_counter()
    preview: dict[str, Any] | None = None
    error = ""
    try:
        preview, code = produce(case.input, case_options(case, llm, record), settings)
    except PlannerError as exc:
        code, error = exc.exit_code, " ".join("; ".join(exc.lines()).split())
    outcome = str((preview.get("run") or {}).get("outcome") or "completed") if preview else "error"
    checks = run_checks(case, preview, code, error)
    return CaseResult(
        case.id,
        case.description,
        code,
        outcome,
        checks,
        flat_metrics(preview) if preview else {},
        error,
        time.perf_counter() - started,
    )


# -- baseline -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tolerance:
    abs: float = 0.0
    rel: float = 0.0

    def allows(self, old: float, new: float) -> bool:
        return new <= old + max(self.abs, self.rel * abs(old))


def tolerances(settings: dict[str, Any]) -> tuple[dict[str, Tolerance], Tolerance, tuple[str, ...]]:
    """(per-metric tolerances, the default, tracked metric names) from the `eval` settings."""
    section = settings.get("eval") or {}
    raw = section.get("tolerance") or {}
    if not isinstance(raw, dict):
        raise ConfigError("eval.tolerance: expected a mapping of metric → {abs, rel}")
    out: dict[str, Tolerance] = {}
    for key, value in raw.items():
        if not isinstance(value, dict) or set(value) - {"abs", "rel"}:
            raise ConfigError(f"eval.tolerance.{key}: expected {{abs: N, rel: F}}")
        try:
            out[key] = Tolerance(float(value.get("abs", 0)), float(value.get("rel", 0)))
        except (TypeError, ValueError):
            raise ConfigError(f"eval.tolerance.{key}: abs and rel must be numbers") from None
        if out[key].abs < 0 or out[key].rel < 0:
            raise ConfigError(f"eval.tolerance.{key}: tolerances must not be negative")
    default = out.pop("default", Tolerance())
    tracked = section.get("tracked") or list(DEFAULT_TRACKED)
    if not isinstance(tracked, list) or not all(isinstance(x, str) for x in tracked):
        raise ConfigError("eval.tracked: expected a list of metric names")
    return out, default, tuple(tracked)


def load_baseline(path: str | Path) -> dict[str, dict[str, Any]]:
    data = read_data(path)
    if not isinstance(data, dict) or data.get("kind") != BASELINE_KIND:
        raise InputError(str(path), [Problem("kind", f"expected {BASELINE_KIND!r}")])
    if data.get("version") != 1:
        raise InputError(str(path), [Problem("version", "expected 1")])
    cases = data.get("cases")
    if not isinstance(cases, dict) or not all(isinstance(v, dict) for v in cases.values()):
        raise InputError(str(path), [Problem("cases", "expected a mapping of case id → record")])
    return cases


def compare(
    results: Sequence[CaseResult], baseline: dict[str, dict[str, Any]], settings: dict[str, Any]
) -> list[str]:
    """Mark regressions and improvements on each result; return notes about the baseline itself."""
    per_metric, default, tracked = tolerances(settings)
    notes = []
    for result in results:
        record = baseline.get(result.id)
        if record is None:
            notes.append(f"{result.id}: not in the baseline (new case)")
            continue
        if record.get("passed") and result.failed_checks:
            result.regressions.append("passed in the baseline, fails now")
        old_metrics = record.get("metrics") or {}
        for key in tracked:
            old, new = old_metrics.get(key), result.metrics.get(key)
            if not isinstance(old, int | float):
                continue
            if new is None:
                result.regressions.append(f"{key}: {old:g} in the baseline, missing now")
                continue
            if not per_metric.get(key, default).allows(old, new):
                result.regressions.append(f"{key}: {old:g} → {new:g}")
            elif new < old:
                result.improvements.append(f"{key}: {old:g} → {new:g}")
    ids = {r.id for r in results}
    notes.extend(
        f"{k}: in the baseline but not in the suite" for k in sorted(baseline) if k not in ids
    )
    return notes


def baseline_document(results: Iterable[CaseResult]) -> dict[str, Any]:
    return {
        "kind": BASELINE_KIND,
        "version": 1,
        "planner": __version__,
        "cases": {
            r.id: {"passed": not r.failed_checks, "outcome": r.outcome, "metrics": r.metrics}
            for r in sorted(results, key=lambda r: r.id)
        },
    }


# -- reports ----------------------------------------------------------------------------------


@dataclass
class EvalReport:
    suite: str
    results: list[CaseResult]
    notes: list[str] = field(default_factory=list)
    baseline: str | None = None

    @property
    def exit_code(self) -> int:
        return 0 if all(r.passed for r in self.results) else 3

    def counts(self) -> tuple[int, int, int]:
        passed = sum(1 for r in self.results if r.passed)
        regressed = sum(1 for r in self.results if r.regressions)
        return passed, len(self.results) - passed, regressed

    def rows(self) -> list[list[str]]:
        rows = []
        for r in self.results:
            ok = sum(1 for c in r.checks if c.ok)
            rows.append(
                [
                    r.id,
                    r.outcome,
                    str(r.exit_code),
                    f"{ok}/{len(r.checks)}",
                    _num(r.metrics.get("objective")),
                    _num(r.metrics.get("pending")),
                    _num(r.metrics.get("moved")),
                    "ok" if r.passed else ("REGRESSED" if r.regressions else "FAILED"),
                ]
            )
        return rows

    def table(self) -> str:
        header = ["case", "outcome", "exit", "checks", "objective", "pending", "moved", "result"]
        rows = [header, *self.rows()]
        widths = [max(_width(row[i]) for row in rows) for i in range(len(header))]
        lines = [
            "  ".join(_pad(cell, widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows
        ]
        lines.extend(self._details())
        lines.append(self.verdict())
        return "\n".join(lines)

    def _details(self) -> list[str]:
        lines = []
        for r in self.results:
            for check in r.failed_checks:
                lines.append(f"{r.id}: check {check.name} failed: {check.detail}")
            lines.extend(f"{r.id}: regression: {text}" for text in r.regressions)
        lines.extend(f"note: {n}" for n in self.notes)
        return lines

    def verdict(self) -> str:
        passed, failed, regressed = self.counts()
        text = f"eval: {len(self.results)} case(s): {passed} passed, {failed} failed"
        if self.baseline:
            text += f"; {regressed} regressed against {self.baseline}"
        return text

    def json(self) -> dict[str, Any]:
        passed, failed, regressed = self.counts()
        return {
            "kind": "planner-eval-results",
            "version": 1,
            "planner": __version__,
            "suite": self.suite,
            "baseline": self.baseline,
            "passed": passed,
            "failed": failed,
            "regressed": regressed,
            "exit_code": self.exit_code,
            "notes": self.notes,
            "cases": [r.public() for r in self.results],
        }

    def markdown(self) -> str:
        header = ["case", "outcome", "exit", "checks", "objective", "pending", "moved", "result"]
        lines = [f"# planner eval: {self.suite}", "", self.verdict() + ".", ""]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join("---" for _ in header) + "|")
        for row in self.rows():
            lines.append("| " + " | ".join(_md(cell) for cell in row) + " |")
        for r in self.results:
            if r.passed and not r.improvements:
                continue
            lines.extend(["", f"## {r.id}", ""])
            if r.description:
                lines.extend([r.description, ""])
            lines.extend(
                f"- check **{_md(c.name)}** failed: {_md(c.detail)}" for c in r.failed_checks
            )
            lines.extend(f"- regression: {_md(text)}" for text in r.regressions)
            lines.extend(f"- improvement: {_md(text)}" for text in r.improvements)
            if r.error:
                lines.append(f"- error: `{r.error}`")
        if self.notes:
            lines.extend(["", "## Notes", ""])
            lines.extend(f"- {_md(n)}" for n in self.notes)
        return "\n".join(lines) + "\n"

    def junit(self) -> str:
        import xml.etree.ElementTree as ET

        passed, failed, _ = self.counts()
        errors = sum(1 for r in self.results if r.exit_code == 1 and not r.passed)
        suites = ET.Element("testsuites", name="planner-eval")
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=self.suite,
            tests=str(len(self.results)),
            failures=str(failed - errors),
            errors=str(errors),
            time=f"{sum(r.duration_s for r in self.results):.3f}",
        )
        for r in self.results:
            case = ET.SubElement(
                suite, "testcase", classname="planner-eval", name=r.id, time=f"{r.duration_s:.3f}"
            )
            problems = [f"{c.name}: {c.detail}" for c in r.failed_checks]
            problems.extend(f"regression: {text}" for text in r.regressions)
            if problems:
                tag = "error" if r.exit_code == 1 and r.error else "failure"
                node = ET.SubElement(case, tag, message=problems[0], type=tag)
                node.text = "\n".join(problems) + (f"\n{r.error}" if r.error else "")
            out = ET.SubElement(case, "system-out")
            out.text = f"outcome={r.outcome} exit={r.exit_code} " + " ".join(
                f"{k}={v:g}" for k, v in sorted(r.metrics.items())
            )
        ET.indent(suites)
        return (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            + ET.tostring(suites, encoding="unicode")
            + "\n"
        )


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _width(text: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def run_suite(
    suite: str | Path,
    settings: dict[str, Any],
    *,
    llm: str = "replay",
    record: bool = False,
    baseline: str | Path | None = None,
    update_baseline: bool = False,
    only: Sequence[str] | None = None,
    produce: Producer | None = None,
) -> EvalReport:
    """Run every case (or those in `only`), compare with the baseline or rewrite it."""
    cases = load_suite(suite)
    if only:
        unknown = sorted(set(only) - {c.id for c in cases})
        if unknown:
            raise InputError(str(suite), [Problem("cases", f"no case with id {unknown[0]!r}")])
        cases = [c for c in cases if c.id in only]
    tolerances(settings)  # a bad configuration fails before any case runs
    results = [run_case(case, settings, llm, record, produce) for case in cases]
    report = EvalReport(str(suite), results, baseline=str(baseline) if baseline else None)
    if baseline is not None and update_baseline:
        previous: dict[str, Any] = {}
        if only and Path(baseline).exists():
            previous = load_baseline(baseline)
        document = baseline_document(results)
        document["cases"] = dict(sorted({**previous, **document["cases"]}.items()))
        atomic_write(baseline, dumps(document))
        report.notes.append(f"baseline {baseline} rewritten ({len(document['cases'])} cases)")
    elif baseline is not None:
        report.notes.extend(compare(results, load_baseline(baseline), settings))
    return report
