"""Records the cassettes of fixtures/cassettes/ by running `planner plan --llm openai --record`
against the fake server, whose answers come from the scripted models below.

Run from the repository root: `python -m tests.fakes.record_cassettes [NAME…]`. Re-record when
prompts, tool texts or the rough layout change (the replay test then reports a cassette miss).
The scripted models answer like a model would: they read the task list of the overview in the
prompt (or the last tool result) and decide; positions always come from the tools (refs, or the
query result they just saw). Each cassette's `meta.expect` keeps the recorded run's outcome, exit
code and the sha256 of its `run` and `state`, which a replay must reproduce exactly.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from typing import Any

from tests.fakes.openai_server import Answer, FakeOpenAI, answer

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "fixtures" / "cassettes"
FAKE_KEY = "sk-fake-recording-key"
MODEL = "scripted-fake"

Model = Callable[[dict[str, Any]], Answer]

TASK_LINE = re.compile(
    r"^\[(?P<id>\d+)\](?P<name>.+?) \| (?:状态:|status: )(?P<status>\w+) \| "
    r"(?:类别:|category: )(?P<category>.+?) \| task_class_id:\s?(?P<cls>\d+) \| (?P<rest>.+)$",
    re.M,
)
ZH_SLOT = re.compile(r"第(\d+)天\(星期(\d)\)\((\d+)-(\d+)节\)")
EN_SLOT = re.compile(r"day (\d+) \((\w+)\) sections (\d+)-(\d+)")
EN_DAYS = {"Mon": 1, "Tue": 2, "Wed": 3, "Thu": 4, "Fri": 5, "Sat": 6, "Sun": 7}


def overview_tasks(prompt: str) -> list[dict[str, Any]]:
    """The task list of the last overview in `prompt` (zh or en), with slots."""
    start = max(prompt.rfind("任务清单"), prompt.rfind("Task list"))
    tasks = []
    for m in TASK_LINE.finditer(prompt[start:]):
        slots = [(int(d), int(w), int(a), int(b)) for d, w, a, b in ZH_SLOT.findall(m["rest"])] + [
            (int(d), EN_DAYS[w], int(a), int(b)) for d, w, a, b in EN_SLOT.findall(m["rest"])
        ]
        tasks.append(
            {
                "id": int(m["id"]),
                "name": m["name"],
                "status": m["status"],
                "category": m["category"],
                "class_id": int(m["cls"]),
                "slots": slots,
            }
        )
    return tasks


def user_text(request: dict[str, Any]) -> str:
    return "\n".join(
        m["content"]
        for m in request["messages"]
        if m["role"] == "user" and isinstance(m["content"], str)
    )


def rounds_seen(request: dict[str, Any]) -> int:
    """How many answers of ours are already in the conversation."""
    return sum(1 for m in request["messages"] if m["role"] == "assistant")


@dataclass
class Scenario:
    name: str
    export: str
    instruction: str
    model: Model
    args: list[str] = field(default_factory=list)
    llm: str = "openai"  # openai:PROFILE picks the instructor mode of that profile
    requires: tuple[str, ...] = ()  # tools that must be registered (the solver's)


# -- scripted models ----------------------------------------------------------------------


def probability_mornings(request: dict[str, Any]) -> Answer:
    """seed13, zh: 概率论 off the weekend and into weekday mornings, evenly."""
    text = user_text(request)
    if rounds_seen(request) == 0:
        late = [
            t["id"]
            for t in overview_tasks(text)
            if t["category"] == "概率论"
            and t["status"] == "suggested"
            and any(w >= 6 or b > 4 for _, w, _, b in t["slots"])
        ]
        if not late:
            return answer(
                {
                    "goal": "概率论都在工作日上午",
                    "done": True,
                    "summary": "概率论本来就都在工作日上午，无需调整。",
                }
            )
        # spread the whole chapter set (spread_even takes at least 2 tasks and keeps the ones
        # already in place when that is even)
        chapters = [
            t["id"]
            for t in overview_tasks(text)
            if t["category"] == "概率论" and t["status"] == "suggested"
        ]
        plan = {
            "goal": "概率论的复习都在工作日上午（第1-4节），周末不排",
            "steps": [
                {
                    "id": "s1",
                    "tool": "spread_even",
                    "args": {"task_ids": chapters, "day_scope": "workday", "before_section": 5},
                    "why": "把概率论任务在工作日上午均匀铺开（已在上午的可以不动）",
                },
                {
                    "id": "s2",
                    "tool": "list_tasks",
                    "args": {"category": "概率论", "status": "suggested"},
                    "depends_on": ["s1"],
                    "why": "核对结果",
                },
            ],
        }
        return answer(
            plan,
            reasoning="先找出周末或下午晚上的概率论任务，再用 spread_even 在工作日上午均匀分布。",
        )
    weekend = [
        t
        for t in overview_tasks(text)
        if t["category"] == "概率论" and any(w >= 6 for _, w, _, _ in t["slots"])
    ]
    summary = (
        "概率论的复习已全部挪到工作日上午，周末空出来了。"
        if not weekend
        else f"还有 {len(weekend)} 个概率论任务留在周末：工作日上午的空位不够。"
    )
    return answer({"goal": "概率论的复习都在工作日上午", "done": True, "summary": summary})


WEEK_BAD = {
    "goal": "Vocabulary in the mornings, calculus in the evenings",
    "steps": [
        {"id": "s1", "tool": "move", "args": {"task_id": 9, "new_day": 2, "new_slot_start": 9}}
    ],
}
WEEK_PLAN = json.loads(
    (ROOT / "fixtures" / "plans" / "week_vocab_mornings.json").read_text("utf-8")
)
WEEK_PLAN.pop("kind")
WEEK_PLAN.pop("version")
WEEK_PLAN["goal"] = "CET-4 lists in free weekday-morning sections, calculus review in the evenings"


def week_vocabulary(request: dict[str, Any]) -> Answer:
    """week.json, en, json_schema mode: a first answer that moves an existing task (re-asked),
    then the plan, then done after checking that nothing is pending."""
    messages = request["messages"]
    if rounds_seen(request) == 0:
        return answer(WEEK_BAD, prefix="Let me start by moving the first calculus item.")
    if "Correct your JSON" in messages[-1]["content"]:
        return answer(
            WEEK_PLAN, prefix="[9] is an existing task, so I leave it and place the pending ones."
        )
    pending = [t for t in overview_tasks(user_text(request)) if t["status"] == "pending"]
    summary = (
        "All eight tasks are placed: the vocabulary lists in free weekday-morning sections, the "
        "calculus review on the Tuesday to Thursday evenings and the exercise set on Saturday morning."
        if not pending
        else f"{len(pending)} tasks are still pending."
    )
    return answer({"goal": WEEK_PLAN["goal"], "done": True, "summary": summary})


REACT_PLACES = [  # (task, sections) in the order the model places them
    (14, 1),
    (15, 1),
    (16, 1),
    (17, 2),
    (10, 2),
    (11, 2),
    (12, 2),
    (13, 3),
]


def week_react(request: dict[str, Any]) -> Answer:
    """week.json, zh, ReAct: look for a free block, place one task, repeat; finish at the end."""
    n = rounds_seen(request)
    last = request["messages"][-1]["content"] if n else ""
    step, phase = divmod(n, 2)
    if step >= len(REACT_PLACES):
        return answer(
            {
                "thought": "八个任务都已排好",
                "action": "finish",
                "summary": "本周待办全部排好：单词在上午，高数复习在晚上。",
            }
        )
    task, span = REACT_PLACES[step]
    if phase == 0:
        evening = task in (10, 11, 12)
        query: dict[str, Any] = {"span": span, "slot_type": "pure", "limit": 1}
        if evening:
            query.update(after_section=8, day_start=2 + (task - 10))
        elif task in (14, 15, 16):
            query.update(day_scope="workday", before_section=5)
        elif task == 17:
            query.update(day=5)
        else:
            query.update(day_scope="weekend", before_section=5)
        return answer(
            {
                "thought": f"找一个能放 [{task}] 的 {span} 节空位",
                "action": "tool",
                "tool": "query_available_slots",
                "args": query,
            },
            reasoning=f"[{task}] 需要 {span} 节，先查空位。",
        )
    found = re.search(r'"slots": \[\{"day": (\d+), .*?"slot_start": (\d+)', last)
    if not found:
        return answer(
            {
                "thought": "没有空位了",
                "action": "finish",
                "summary": f"[{task}] 找不到空位，未能排入。",
            }
        )
    day, start = int(found[1]), int(found[2])
    return answer(
        {
            "thought": f"放到第{day}天第{start}节",
            "action": "tool",
            "tool": "place",
            "args": {"task_id": task, "day": day, "slot_start": start},
        }
    )


def exam_weekends(request: dict[str, Any]) -> Answer:
    """exam.yaml (physics only), en, md_json mode: physics review off the weekends."""
    text = user_text(request)
    physics = [t for t in overview_tasks(text) if t["category"] == "大学物理复习" and t["slots"]]
    weekend = sorted(t["id"] for t in physics if any(w >= 6 for _, w, _, _ in t["slots"]))
    if rounds_seen(request) == 0 and weekend:
        # the class keeps its order: the weekend blocks and everything after them move to the
        # weekdays after that weekend
        last_weekend_day = max(d for t in physics for d, w, _, _ in t["slots"] if w >= 6)
        first_moved = min(d for t in physics if t["id"] in weekend for d, _, _, _ in t["slots"])
        moved = sorted(
            t["id"] for t in physics if min(d for d, _, _, _ in t["slots"]) >= first_moved
        )
        plan = {
            "goal": "No physics review on Saturdays or Sundays",
            "steps": [
                {
                    "id": "s1",
                    "tool": "spread_even",
                    "args": {
                        "task_ids": moved,
                        "day_scope": "workday",
                        "day_start": last_weekend_day + 1,
                    },
                    "why": "the weekend blocks and the later ones (class order) move onto the weekdays after that weekend",
                },
                {
                    "id": "s2",
                    "tool": "query_target_tasks",
                    "args": {"category": "大学物理复习", "day_scope": "weekend", "enqueue": False},
                    "depends_on": ["s1"],
                    "why": "check that no physics block is left on a weekend",
                },
            ],
        }
        return answer(
            plan,
            prefix="The overview shows physics blocks on days 6 and 7; spread_even can move them to weekdays.",
        )
    summary = (
        "No physics review is left on a weekend; the weekend blocks moved to weekdays."
        if not weekend
        else f"{len(weekend)} physics blocks are still on a weekend: {weekend}."
    )
    return answer({"goal": "No physics review on weekends", "done": True, "summary": summary})


SEED13_PLAN = json.loads(
    (ROOT / "fixtures" / "plans" / "seed13_probability_mornings.json").read_text("utf-8")
)
SEED13_PLAN.pop("kind")
SEED13_PLAN.pop("version")


def seed13_every_other_day(request: dict[str, Any]) -> Answer:
    """seed13, zh, no rough layout: one 概率论 chapter every other weekday morning."""
    if rounds_seen(request) == 0:
        return answer(
            SEED13_PLAN,
            reasoning="五章按顺序隔天放：第3、5、9、11、12天上午都有2节空位，每章先查当天上午的空位再放。",
        )
    left = [
        t
        for t in overview_tasks(user_text(request))
        if t["category"] == "概率论" and t["status"] == "pending"
    ]
    summary = (
        "概率论五章已按顺序隔天排在工作日上午（第3、5、9、11、12天），周日没有安排。"
        "其他任务类（学习、作业）本次没有要求，仍待安排。"
        if not left
        else f"还有 {len(left)} 章概率论没有排上。"
    )
    return answer({"goal": SEED13_PLAN["goal"], "done": True, "summary": summary})


def comments_replan(request: dict[str, Any]) -> Answer:
    """comments.yaml, en: a first guess collides with a course; the model reads the failure and
    takes the positions from queries in round 2."""
    n = rounds_seen(request)
    last = request["messages"][-1]["content"]
    if n == 0:
        guess = {
            "goal": "Passages 2 and 3 on Wednesday and Thursday mornings",
            "steps": [
                {"id": "s1", "tool": "place", "args": {"task_id": 13, "day": 3, "slot_start": 1}},
                {
                    "id": "s2",
                    "tool": "place",
                    "args": {"task_id": 14, "day": 4, "slot_start": 1},
                    "depends_on": ["s1"],
                },
            ],
        }
        return answer(guess)
    if n == 1 and "→ failed" in last:
        steps: list[dict[str, Any]] = []
        for i, (task, day) in enumerate(((13, 3), (14, 4))):
            q, p = f"q{i + 1}", f"p{i + 1}"
            steps.append(
                {
                    "id": q,
                    "tool": "query_available_slots",
                    "args": {
                        "day": day,
                        "span": 2,
                        "before_section": 5,
                        "slot_type": "pure",
                        "limit": 1,
                    },
                }
            )
            deps = [q] + ([f"p{i}"] if i else [])
            steps.append(
                {
                    "id": p,
                    "tool": "place",
                    "args": {
                        "task_id": task,
                        "day": {"ref": f"{q}.slots[0].day"},
                        "slot_start": {"ref": f"{q}.slots[0].slot_start"},
                    },
                    "depends_on": deps,
                }
            )
        return answer(
            {"goal": "Passages 2 and 3 on Wednesday and Thursday mornings", "steps": steps},
            reasoning="Section 1 was taken by a course; ask the tool for the free morning block instead of guessing.",
        )
    placed = {t["id"] for t in overview_tasks(user_text(request)) if t["status"] == "suggested"}
    done = {13, 14} <= placed
    summary = (
        "Passage 2 is on Wednesday morning and Passage 3 on Thursday morning; the other tasks were not part of the request."
        if done
        else "The passages could not both be placed on those mornings."
    )
    return answer(
        {
            "goal": "Passages 2 and 3 on Wednesday and Thursday mornings",
            "done": True,
            "summary": summary,
        }
    )


SCENARIOS = [
    Scenario(
        "seed13_zh_probability_mornings",
        "fixtures/exports/seed13.yaml",
        "把概率论的复习挪到上午，周末空出来",
        probability_mornings,
        requires=("rough_layout", "spread_even"),
    ),
    Scenario(
        "week_en_vocabulary_reask",
        "fixtures/exports/week.json",
        "Put the CET-4 word lists into free weekday-morning sections and the calculus review in the evenings.",
        week_vocabulary,
        ["--no-rough", "--lang", "en"],
        llm="openai:vllm",
    ),
    Scenario(
        "week_zh_react",
        "fixtures/exports/week.json",
        "把这周的待办都排进去：单词放上午，高数复习放晚上",
        week_react,
        ["--no-rough", "--mode", "react"],
    ),
    Scenario(
        "exam_en_physics_off_weekends",
        "fixtures/exports/exam.yaml",
        "Keep my weekends free of physics review during the exam weeks.",
        exam_weekends,
        ["--lang", "en", "--task-class", "41"],
        llm="openai:llamacpp",
        requires=("rough_layout", "spread_even"),
    ),
    Scenario(
        "seed13_zh_every_other_day",
        "fixtures/exports/seed13.yaml",
        "概率论每隔一天上午复习一章，按章节顺序，周日不排",
        seed13_every_other_day,
        ["--no-rough"],
    ),
    Scenario(
        "comments_en_replan_after_failure",
        "fixtures/exports/comments.yaml",
        "Put reading passages 2 and 3 on Wednesday and Thursday mornings.",
        comments_replan,
        ["--no-rough", "--lang", "en"],
    ),
]


def sha(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def replay_args(cassette: dict[str, Any]) -> list[str]:
    """The `planner plan` arguments that replay a cassette (kept in its meta when recorded)."""
    return list(cassette["meta"]["replay_args"])


def record(scenario: Scenario) -> dict[str, Any]:
    from planner_cli.cli import main

    target = OUT / f"{scenario.name}.json"
    with FakeOpenAI([scenario.model] * 40) as server, tempfile.TemporaryDirectory() as tmp:
        env = {
            "OPENAI_API_KEY": FAKE_KEY,
            "OPENAI_BASE_URL": server.url,
            "PLANNER_MODEL": MODEL,
            "PLANNER_HOME": tmp,
        }
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        preview_path = Path(tmp) / "preview.json"
        argv = ["plan", scenario.export, scenario.instruction, "-o", str(preview_path)]
        argv += ["--llm", scenario.llm, "--record", str(target), *scenario.args]
        out, err = StringIO(), StringIO()
        try:
            with redirect_stdout(out), redirect_stderr(err):
                main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        if code not in (0, 3, 4):
            raise SystemExit(f"{scenario.name}: planner exited {code}\n{err.getvalue()}")
        preview = json.loads(preview_path.read_text("utf-8"))
    cassette = json.loads(target.read_text("utf-8"))
    cassette["meta"]["replay_args"] = [scenario.export, scenario.instruction, *scenario.args]
    cassette["meta"]["expect"] = {
        "exit_code": code,
        "outcome": preview["run"]["outcome"],
        "run_sha256": sha(preview["run"]),
        "state_sha256": sha(preview["state"]),
    }
    from planner_cli.io.files import atomic_write, dumps

    atomic_write(target, dumps(cassette))
    return cassette["meta"]["expect"]


def main(names: list[str]) -> None:
    os.chdir(ROOT)
    OUT.mkdir(parents=True, exist_ok=True)
    from planner_cli.tools.registry import registry

    chosen = [s for s in SCENARIOS if not names or s.name in names]
    for scenario in chosen:
        missing = [name for name in scenario.requires if name not in registry()]
        if missing:
            print(f"{scenario.name}: skipped, tools not registered: {', '.join(missing)}")
            continue
        expect = record(scenario)
        print(f"{scenario.name}: {expect['outcome']} (exit {expect['exit_code']})")


if __name__ == "__main__":
    main(sys.argv[1:])
