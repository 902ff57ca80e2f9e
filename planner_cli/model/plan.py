"""Plans (formats.md §4): `Plan`, `Step`, `Ref` and the checks a plan passes before any step runs.

Decisions where the spec is silent: every argument value (nested ones and list items too) may be
a `{"ref": "<step>.<path>"}` object, and the step it names must be an ancestor of the step (a
dependency, directly or through others); plans reject unknown argument names even for tools that
ignore them when called directly; `done: true` with a `summary` and no steps is how a model ends
a run; step ids sort "naturally" (s2 before s10) wherever ties are broken.
"""

from __future__ import annotations

import copy
import re
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    ValidationError,
    ValidationInfo,
    create_model,
    model_validator,
)
from pydantic.json_schema import DEFAULT_REF_TEMPLATE, GenerateJsonSchema, SkipJsonSchema
from pydantic_core import core_schema

from planner_cli.errors import InputError, Problem
from planner_cli.model.state import SECTIONS_PER_DAY, ScheduleState, Task

MAX_STEPS = 40
STEP_ID = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"
_SEGMENT = r"(?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|\*)\])"
REF_PATTERN = rf"^[A-Za-z][A-Za-z0-9_-]{{0,31}}{_SEGMENT}+$"

# Argument names whose values are task state_ids, days and sections (any tool, any depth).
TASK_ID_KEYS = frozenset(
    {"task_id", "task_a", "task_b", "task_ids", "task_item_id", "task_item_ids"}
)
DAY_KEYS = frozenset({"day", "new_day", "day_start", "day_end"})
SECTION_KEYS = frozenset({"slot_start", "slot_end", "new_slot_start", "section_from", "section_to"})

# What each write tool demands of the tasks it names (seed-origin §2.8–2.15):
# "pending" = place; "suggested" = move-like tools; "placed" = swap; "any" = unplace.
# Every one of them refuses locked tasks.
WRITE_TARGETS: dict[str, str] = {
    "place": "pending",
    "move": "suggested",
    "batch_move": "suggested",
    "spread_even": "suggested",
    "min_context_switch": "suggested",
    "swap": "placed",
    "unplace": "any",
}


_SCHEMAS: dict[tuple[Any, ...], dict[str, Any]] = {}


def natural_key(step_id: str) -> tuple[Any, ...]:
    """Sort key of step ids: digit runs compare as numbers, so s2 < s10."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", step_id))


# -- references ---------------------------------------------------------------------------


class Ref(BaseModel):
    """A value taken, when the step runs, from the structured result of an earlier step."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ref: str = Field(
        pattern=REF_PATTERN,
        description=(
            'A step id and a path into that step\'s structured result, e.g. "s4.slots[0].day" '
            '(field names after ".", list indexes in [], [*] maps over every item, e.g. '
            '"s1.items[*].task_id"). The step must be listed in depends_on.'
        ),
    )

    @property
    def step_id(self) -> str:
        return re.split(r"[.\[]", self.ref, maxsplit=1)[0]

    @property
    def path(self) -> list[str | int]:
        """The path after the step id: field names, list indexes, and "*" for [*]."""
        out: list[str | int] = []
        for name, index in re.findall(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+|\*)\]", self.ref):
            if name:
                out.append(name)
            else:
                out.append("*" if index == "*" else int(index))
        return out


class RefError(Exception):
    """A reference that does not resolve against the results it is given."""


def resolve_ref(ref: Ref, results: Mapping[str, Any]) -> Any:
    """The value at `ref` in `results[step_id]` (a step's ToolResult.data)."""
    if ref.step_id not in results:
        raise RefError(f"ref {ref.ref!r}: step {ref.step_id} has no result")
    return _walk(results[ref.step_id], ref.path, ref.ref, ref.step_id)


def _walk(value: Any, path: list[str | int], text: str, where: str) -> Any:
    for i, part in enumerate(path):
        if part == "*":
            if not isinstance(value, list):
                raise RefError(f"ref {text!r}: {where} is not a list")
            rest = path[i + 1 :]
            return [_walk(item, rest, text, f"{where}[{n}]") for n, item in enumerate(value)]
        if isinstance(part, int):
            if not isinstance(value, list):
                raise RefError(f"ref {text!r}: {where} is not a list")
            if part >= len(value):
                raise RefError(
                    f"ref {text!r}: index {part} is out of range ({where} has {len(value)} items)"
                )
            value = value[part]
            where = f"{where}[{part}]"
            continue
        if not isinstance(value, dict) or part not in value:
            raise RefError(f"ref {text!r}: {where} has no field {part!r}")
        value = value[part]
        where = f"{where}.{part}"
    return value


def substitute_refs(value: Any, resolve: Callable[[Ref], Any]) -> Any:
    """`value` (plain JSON data) with every `{"ref": …}` object replaced by `resolve(ref)`."""
    if isinstance(value, dict):
        if set(value) == {"ref"} and isinstance(value["ref"], str):
            return resolve(Ref(ref=value["ref"]))
        return {k: substitute_refs(v, resolve) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute_refs(v, resolve) for v in value]
    return value


def iter_refs(value: Any, path: str = "") -> Iterator[tuple[str, Ref]]:
    """Every reference inside plain JSON data, with its field path."""
    if isinstance(value, dict):
        if set(value) == {"ref"} and isinstance(value["ref"], str):
            yield path, Ref.model_construct(ref=value["ref"])
            return
        for key, item in value.items():
            yield from iter_refs(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from iter_refs(item, f"{path}[{n}]")


class RefOr:
    """Annotation: the value may also be a `{"ref": …}` object (validated as `Ref`).

    Validation errors of the plain value stay those of its own type (no union noise), and the
    JSON schema offers `anyOf: [<type>, Ref]`.
    """

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        inner = handler(source)
        ref_schema = handler.generate_schema(Ref)

        def validate(value: Any, nxt: core_schema.ValidatorFunctionWrapHandler) -> Any:
            if isinstance(value, Ref):
                return value
            if isinstance(value, dict) and "ref" in value:
                return Ref.model_validate(value)
            return nxt(value)

        def serialize(value: Any, nxt: core_schema.SerializerFunctionWrapHandler) -> Any:
            return value.model_dump() if isinstance(value, Ref) else nxt(value)

        # The serializer's schema carries Ref so that JSON schema generation sees its definition.
        return core_schema.no_info_wrap_validator_function(
            validate,
            inner,
            serialization=core_schema.wrap_serializer_function_ser_schema(
                serialize, schema=core_schema.union_schema([inner, ref_schema])
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        union = schema["serialization"]["schema"]  # type: ignore[typeddict-item]
        return {"anyOf": [handler(union["choices"][0]), handler(union["choices"][1])]}


def _with_refs(annotation: Any) -> Any:
    """`annotation` with every model replaced by its ref-accepting twin and list items ref-able."""
    origin = typing.get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return args_model(annotation)
    if origin is list:
        (item,) = typing.get_args(annotation) or (Any,)
        return list[Annotated[_with_refs(item), RefOr()]]  # type: ignore[misc]
    if origin in (Union, types.UnionType):
        return Union[tuple(_with_refs(a) for a in typing.get_args(annotation))]  # noqa: UP007
    if origin is Annotated:
        base, *meta = typing.get_args(annotation)
        return Annotated[(_with_refs(base), *meta)]  # type: ignore[valid-type]
    return annotation


@cache
def args_model(model: type[BaseModel]) -> type[BaseModel]:
    """The plan-side twin of a tool's argument model: same fields, types and defaults; any value
    may be a Ref; unknown argument names are rejected. Descriptions are left out: the prompt's
    tool catalogue shows them once (llm/prompts.py)."""
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        annotation = _with_refs(info.annotation)
        if info.metadata:
            annotation = Annotated[(annotation, *info.metadata)]
        field_kwargs: dict[str, Any] = {}
        if info.default_factory is not None:
            field_kwargs["default_factory"] = info.default_factory
        elif not info.is_required():
            field_kwargs["default"] = info.default
        fields[name] = (Annotated[annotation, RefOr()], Field(**field_kwargs))
    return create_model(  # type: ignore[call-overload,no-any-return]
        model.__name__,
        __config__=ConfigDict(extra="forbid"),
        __module__=__name__,
        **fields,
    )


class CompactJsonSchema(GenerateJsonSchema):
    """JSON schema without per-field titles and with nested anyOf flattened (shorter prompts)."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def generate(self, schema: Any, mode: Any = "validation") -> Any:
        return _flatten_any_of(super().generate(schema, mode=mode))


def _flatten_any_of(node: Any) -> Any:
    if isinstance(node, list):
        return [_flatten_any_of(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _flatten_any_of(v) for k, v in node.items()}
    if "anyOf" in out:
        flat: list[Any] = []
        for option in out["anyOf"]:
            if isinstance(option, dict) and set(option) == {"anyOf"}:
                flat.extend(option["anyOf"])
            else:
                flat.append(option)
        out["anyOf"] = flat
    return out


def compact_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(schema_generator=CompactJsonSchema)


# -- steps and plans ----------------------------------------------------------------------


class Step(BaseModel):
    """One tool call of a plan."""

    model_config = ConfigDict(extra="forbid")

    # the tool's own argument model and kind, set on each generated per-tool subclass
    tool_args: ClassVar[type[BaseModel] | None] = None
    tool_kind: ClassVar[str] = "read"

    # Field meanings are told once, in Plan.steps (every per-tool subclass repeats these fields).
    id: str = Field(pattern=STEP_ID)
    tool: str
    args: Any = None
    depends_on: list[str] = Field(default_factory=list)
    why: str | None = None

    def call_args(self) -> dict[str, Any]:
        """The arguments as plain JSON data (refs as `{"ref": …}`), only those given."""
        if isinstance(self.args, BaseModel):
            return self.args.model_dump(mode="json", exclude_unset=True)
        return dict(self.args or {})

    @model_validator(mode="after")
    def _tool_rules(self) -> Step:
        # Without refs the tool's own model sees the exact call, so its validators apply now.
        tool_args = type(self).tool_args
        if tool_args is None:
            return self
        data = self.call_args()
        if next(iter_refs(data), None) is None:
            try:
                tool_args.model_validate(data)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                raise ValueError(
                    f"args.{where}: {first['msg']}" if where else first["msg"]
                ) from None
        return self


class Plan(BaseModel):
    """A schedule plan: tool calls with dependencies, validated against the current state and
    then run in dependency order. Answer with done=true and a summary (and no steps) when the
    user's request is fully handled."""

    model_config = ConfigDict(extra="forbid")

    # tool name → kind (read / write / queue), set on each generated Plan class
    tool_kinds: ClassVar[dict[str, str]] = {}

    kind: SkipJsonSchema[Literal["schedule-plan"]] = "schedule-plan"
    version: SkipJsonSchema[Literal[1]] = 1
    goal: str = Field(
        description="The user's goal in one sentence, in your own words (what 'done' looks like)."
    )
    steps: list[Step] = Field(
        default_factory=list,
        description=(
            'The tool calls, at most 40. Each step: "id" (unique, e.g. "s1"); "tool"; "args", '
            "the tool's arguments as in the tool catalogue, where any value may instead be "
            '{"ref": "<step id>.<path>"}, e.g. {"ref": "s4.slots[0].day"}, taken from the '
            'structured result of that step when this one runs; "depends_on", the ids of the '
            "steps that must finish first (every step a ref names, and every write this step "
            'must see; if one of them fails, this step is skipped); "why", one short sentence. '
            "Read before you write; independent reads may run in parallel."
        ),
    )
    done: bool = Field(
        default=False,
        description="true only when nothing is left to do; then steps is empty and summary is set.",
    )
    summary: str | None = Field(
        default=None,
        description=(
            "Required with done=true: what changed and what could not be done and why, for the "
            "user, in the user's language."
        ),
    )

    @classmethod
    def model_json_schema(  # type: ignore[override]
        cls,
        by_alias: bool = True,
        ref_template: str = DEFAULT_REF_TEMPLATE,
        schema_generator: type[GenerateJsonSchema] = CompactJsonSchema,
        mode: Any = "validation",
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The compact schema by default (instructor sends this one to the model), cached per
        class because it is asked for on every LLM call."""
        # instructor wraps the model in a fresh subclass on every call: key on our own class
        own = next((c for c in cls.__mro__ if "tool_kinds" in c.__dict__), cls)
        key = (own, by_alias, ref_template, schema_generator, mode, tuple(sorted(kwargs.items())))
        if key not in _SCHEMAS:
            _SCHEMAS[key] = super().model_json_schema(
                by_alias, ref_template, schema_generator, mode, **kwargs
            )
        return copy.deepcopy(_SCHEMAS[key])

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> Plan:
        context = info.context if isinstance(info.context, dict) else {}
        problems = check_plan(self, context)
        if problems:
            raise PlanInvalid(problems)
        return self

    def dump(self) -> dict[str, Any]:
        """The plan as a plan file (JSON data), arguments only as given."""
        out: dict[str, Any] = {"kind": self.kind, "version": self.version, "goal": self.goal}
        out["steps"] = [step_json(s) for s in self.steps]
        if self.done:
            out["done"] = True
        if self.summary is not None:
            out["summary"] = self.summary
        return out


def step_json(step: Step) -> dict[str, Any]:
    out: dict[str, Any] = {"id": step.id, "tool": step.tool, "args": step.call_args()}
    out["depends_on"] = list(step.depends_on)
    if step.why is not None:
        out["why"] = step.why
    return out


class PlanInvalid(ValueError):
    """A plan that fails its checks; carries one Problem per finding."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(f"{p.path}: {p.message}" for p in problems))


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


@dataclass(frozen=True)
class ToolInfo:
    """What a plan needs to know of one tool (a view of registry.ToolSpec)."""

    name: str
    args: type[BaseModel]
    kind: str


def _infos(specs: Mapping[str, Any]) -> tuple[ToolInfo, ...]:
    return tuple(ToolInfo(name, spec.args, spec.kind) for name, spec in sorted(specs.items()))


def plan_model(specs: Mapping[str, Any] | None = None) -> type[Plan]:
    """The Plan class whose steps are a union discriminated on `tool`, one member per tool.

    `specs` maps names to objects with `.args` and `.kind` (registry.ToolSpec); by default the
    registry as it is now, so tools registered later (rough_layout) are included when present.
    """
    if specs is None:
        from planner_cli.tools.registry import registry

        specs = registry()
    return _plan_model(_infos(specs))


@cache
def _plan_model(infos: tuple[ToolInfo, ...]) -> type[Plan]:
    if not infos:
        raise ValueError("no tools are registered")
    members = []
    for info in infos:
        args = args_model(info.args)
        required = any(f.is_required() for f in info.args.model_fields.values())
        args_field = Field(...) if required else Field(default_factory=args)
        member = create_model(  # type: ignore[call-overload]
            f"{_camel(info.name)}Step",
            __base__=Step,
            __module__=__name__,
            tool=(Literal[info.name], ...),  # type: ignore[arg-type]
            args=(args, args_field),
        )
        member.tool_args = info.args
        member.tool_kind = info.kind
        members.append(member)
    union: Any = (
        Annotated[Union[tuple(members)], Field(discriminator="tool")]  # noqa: UP007
        if len(members) > 1
        else members[0]
    )
    model = create_model(  # type: ignore[call-overload]
        "Plan",
        __base__=Plan,
        __module__=__name__,
        __doc__=Plan.__doc__,
        steps=(list[union], Plan.model_fields["steps"]),
    )
    model.tool_kinds = {info.name: info.kind for info in infos}
    return model  # type: ignore[no-any-return]


# -- checks -------------------------------------------------------------------------------


def _cycle(steps: list[Step]) -> list[str] | None:
    """One dependency cycle (ids, first repeated at the end), or None."""
    deps = {s.id: [d for d in s.depends_on if d != s.id] for s in steps}
    colour: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = 1
        stack.append(node)
        for nxt in sorted(deps.get(node, []), key=natural_key):
            if nxt not in deps:
                continue
            if colour.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in colour:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        colour[node] = 2
        return None

    for sid in sorted(deps, key=natural_key):
        if sid not in colour:
            found = visit(sid)
            if found:
                return found
    return None


def ancestors(steps: list[Step]) -> dict[str, set[str]]:
    """Every step's transitive dependencies (for an acyclic plan with known ids)."""
    deps = {s.id: set(s.depends_on) for s in steps}
    out: dict[str, set[str]] = {}

    def of(sid: str) -> set[str]:
        if sid not in out:
            out[sid] = set()
            acc: set[str] = set()
            for d in deps.get(sid, ()):
                acc |= {d} | of(d)
            out[sid] = acc
        return out[sid]

    for sid in deps:
        of(sid)
    return out


def check_plan(plan: Plan, context: Mapping[str, Any]) -> list[Problem]:
    """Structure checks, then (with `context["state"]`) semantic checks against the state."""
    problems: list[Problem] = []
    max_steps = int(context.get("max_steps") or MAX_STEPS)
    steps = plan.steps
    if len(steps) > max_steps:
        problems.append(Problem("steps", f"at most {max_steps} steps (got {len(steps)})"))
    if plan.done:
        if steps:
            problems.append(Problem("steps", "must be empty when done is true"))
        if not (plan.summary or "").strip():
            problems.append(Problem("summary", "required when done is true"))
    elif not steps:
        problems.append(
            Problem("steps", "a plan needs at least one step (or done=true with a summary)")
        )
    first: dict[str, int] = {}
    for i, step in enumerate(steps):
        if step.id in first:
            problems.append(
                Problem(
                    f"steps[{i}].id",
                    f"duplicate step id {step.id!r} (also steps[{first[step.id]}])",
                )
            )
        else:
            first[step.id] = i
    structure_ok = not problems
    for i, step in enumerate(steps):
        for dep in step.depends_on:
            if dep == step.id:
                problems.append(Problem(f"steps[{i}].depends_on", "a step cannot depend on itself"))
                structure_ok = False
            elif dep not in first:
                problems.append(Problem(f"steps[{i}].depends_on", f"unknown step {dep!r}"))
                structure_ok = False
    if structure_ok:
        cycle = _cycle(steps)
        if cycle:
            problems.append(Problem("steps", "dependency cycle: " + " -> ".join(cycle)))
            structure_ok = False
    if structure_ok:
        above = ancestors(steps)
        for i, step in enumerate(steps):
            for path, ref in iter_refs(step.call_args()):
                where = f"steps[{i}].args.{path}"
                if ref.step_id not in first:
                    problems.append(Problem(where, f"ref {ref.ref!r} names unknown step"))
                elif ref.step_id not in above[step.id]:
                    problems.append(
                        Problem(
                            where,
                            f"ref {ref.ref!r} names step {ref.step_id}, which is not among this "
                            f"step's dependencies; add {ref.step_id!r} to depends_on",
                        )
                    )
    state = context.get("state")
    if isinstance(state, ScheduleState):
        problems.extend(_state_problems(plan, state))
    return problems


def _int_values(value: Any) -> list[int]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, int) and not isinstance(v, bool)]
    return []


def _keyed(value: Any, path: str = "") -> Iterator[tuple[str, str, Any]]:
    """(path, key, value) of every field inside the arguments, refs excluded."""
    if isinstance(value, dict):
        if set(value) == {"ref"}:
            return
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            yield here, str(key), item
            yield from _keyed(item, here)
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _keyed(item, f"{path}[{n}]")


def _task_label(task: Task) -> str:
    return f"[{task.state_id}]{task.name}"


def _state_problems(plan: Plan, state: ScheduleState) -> list[Problem]:
    problems: list[Problem] = []
    days = state.window.total_days
    placed_by_plan: set[int] = set()
    unplaced_by_plan: set[int] = set()
    lays_out = any(s.tool == "rough_layout" for s in plan.steps)
    for step in plan.steps:
        args = step.call_args()
        if step.tool == "place":
            placed_by_plan.update(_int_values(args.get("task_id")))
        if step.tool == "unplace":
            unplaced_by_plan.update(_int_values(args.get("task_id")))
    for i, step in enumerate(plan.steps):
        args = step.call_args()
        need = WRITE_TARGETS.get(step.tool)
        for path, key, value in _keyed(args):
            where = f"steps[{i}].args.{path}"
            if key in TASK_ID_KEYS:
                for task_id in _int_values(value):
                    task = state.task(task_id)
                    if task is None:
                        problems.append(Problem(where, f"task {task_id} does not exist"))
                    elif need is not None:
                        message = _target_problem(
                            task, need, step.tool, placed_by_plan, unplaced_by_plan, lays_out
                        )
                        if message:
                            problems.append(Problem(where, message))
            elif key in DAY_KEYS:
                for day in _int_values(value):
                    if not 1 <= day <= days:
                        problems.append(
                            Problem(where, f"day {day} is outside the planning window (1..{days})")
                        )
            elif key in SECTION_KEYS:
                for section in _int_values(value):
                    if not 1 <= section <= SECTIONS_PER_DAY:
                        problems.append(
                            Problem(
                                where,
                                f"section {section} is outside 1..{SECTIONS_PER_DAY}",
                            )
                        )
    return problems


def _target_problem(
    task: Task,
    need: str,
    tool: str,
    placed_by_plan: set[int],
    unplaced_by_plan: set[int],
    lays_out: bool,
) -> str | None:
    """Why `tool` would refuse `task` whatever else the plan does, or None."""
    label = _task_label(task)
    if task.locked:
        return f"{label} is a locked course; it never moves"
    may_become_pending = task.state_id in unplaced_by_plan
    may_become_placed = task.state_id in placed_by_plan or lays_out
    if need == "pending" and task.is_placed and not may_become_pending:
        return f"{label} is already placed ({task.label}); {tool} only places pending tasks"
    if need == "suggested":
        if task.is_existing and not may_become_pending:
            return (
                f"{label} is an existing task (a fact of the timetable); {tool} only moves "
                "suggested tasks"
            )
        if task.is_pending and not may_become_placed:
            return f"{label} is pending; place it first ({tool} only moves suggested tasks)"
    if need == "placed" and task.is_pending and not may_become_placed:
        return f"{label} is pending; {tool} only exchanges placed tasks"
    return None


# -- plan files ---------------------------------------------------------------------------


def _loc_path(loc: tuple[int | str, ...], tool_names: set[str]) -> str:
    parts = list(loc)
    # the discriminated union adds the tool name after steps[i]; it is not a field
    if (
        len(parts) >= 3
        and parts[0] == "steps"
        and isinstance(parts[1], int)
        and parts[2] in tool_names
    ):
        del parts[2]
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and (part[:1].isupper() or "[" in part):
            continue  # a union member's type name, not a field
        else:
            out += ("." if out else "") + str(part)
    return out


def plan_problems(exc: ValidationError, model: type[Plan]) -> list[Problem]:
    """The problems of a failed plan validation, each with its field path."""
    names = set(getattr(model, "tool_kinds", {}))
    out: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for error in exc.errors(include_url=False):
        cause = (error.get("ctx") or {}).get("error")
        base = _loc_path(error["loc"], names)
        if isinstance(cause, PlanInvalid):
            found = [
                Problem(f"{base}.{p.path}" if base else p.path, p.message) for p in cause.problems
            ]
        else:
            message = str(error["msg"]).removeprefix("Value error, ")
            if error["type"] == "extra_forbidden":
                message = "unknown field (not allowed here)"
            elif error["type"] == "missing":
                message = "required field is missing"
            elif error["type"] == "union_tag_invalid":
                message = f"unknown tool {error['input'].get('tool')!r}; known tools: " + ", ".join(
                    sorted(names)
                )
            found = [Problem(base, message)]
        for problem in found:
            key = (problem.path, problem.message)
            if key not in seen:
                seen.add(key)
                out.append(problem)
    return out


def parse_plan(
    data: Any,
    name: str,
    state: ScheduleState | None = None,
    *,
    max_steps: int = MAX_STEPS,
    specs: Mapping[str, Any] | None = None,
) -> Plan:
    """A plan file (kind schedule-plan, version 1) → Plan; InputError with field paths."""
    if not isinstance(data, dict):
        raise InputError(name, [Problem("", "a plan must be a mapping of fields")])
    problems: list[Problem] = []
    if data.get("kind", "schedule-plan") != "schedule-plan":
        problems.append(Problem("kind", f"expected 'schedule-plan' (got {data.get('kind')!r})"))
    if data.get("version", 1) != 1:
        problems.append(Problem("version", f"expected 1 (got {data.get('version')!r})"))
    if problems:
        raise InputError(name, problems)
    model = plan_model(specs)
    try:
        return model.model_validate(data, context={"state": state, "max_steps": max_steps})
    except ValidationError as exc:
        raise InputError(name, plan_problems(exc, model)) from None
