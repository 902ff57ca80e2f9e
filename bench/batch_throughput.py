"""Batch throughput: exports per second of `planner batch` at 1 and 2 local workers.

Generates N small, realistic one-week exports (seeded, so every run sees the same inputs) in a
temp dir, runs the batch library on them once per worker count into a fresh output directory,
checks that every worker count wrote byte-identical previews, and prints exports/s and the
speed-up. A final run over the first output shows the cost of a rerun that skips everything.

    python bench/batch_throughput.py                      # 200 exports, cpsat, workers 1 and 2
    python bench/batch_throughput.py --exports 50 --solver greedy --workers 1 2 4
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SEMESTER_START = dt.date(2026, 9, 7)
COURSES = ["高等数学", "线性代数", "大学英语", "大学物理", "程序设计", "数据结构", "概率论"]
WATER = ["思政", "形势与政策", "军事理论"]
CLASSES = [
    ("高数复习", "quantitative", "high", "steady"),
    ("线代练习", "quantitative", "high", "steady"),
    ("四级词汇", "memory", "low", "rapid"),
    ("物理实验报告", "mixed", "medium", "rapid"),
    ("英语阅读", "reading", "medium", "steady"),
]


def make_export(index: int, seed: int = 0) -> dict[str, Any]:
    """One student's week: 4-6 courses (one or two embeddable), 2 task classes, 6-11 items."""
    rng = random.Random(seed * 100_003 + index)
    week = rng.randint(3, 16)
    monday = SEMESTER_START + dt.timedelta(weeks=week - 1)
    taken: set[tuple[int, int]] = set()
    events: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    names = rng.sample(COURSES, rng.randint(3, 5)) + rng.sample(WATER, rng.randint(1, 2))
    for i, name in enumerate(names):
        event_id = 101 + i
        water = name in WATER
        events.append({"id": event_id, "name": name, "type": "course", "can_be_embedded": water})
        for _ in range(rng.randint(1, 3)):
            day, block = rng.randint(1, 5), rng.randint(1, 5)
            if (day, block) in taken:
                continue
            taken.add((day, block))
            rows.append(
                {
                    "event_id": event_id,
                    "week": week,
                    "day_of_week": day,
                    "section_from": 2 * block - 1,
                    "section_to": 2 * block,
                }
            )
    classes, items = [], []
    item_id = 201
    for k, (name, subject, level, strategy) in enumerate(rng.sample(CLASSES, 2)):
        class_id = 10 + k
        count = rng.randint(3, 6)
        classes.append(
            {
                "id": class_id,
                "name": name,
                "mode": "auto",
                "start_date": monday.isoformat(),
                "end_date": (monday + dt.timedelta(days=6)).isoformat(),
                "total_slots": 2 * count,
                "strategy": strategy,
                "allow_filler_course": rng.random() < 0.5,
                "excluded_slots": [6] if rng.random() < 0.5 else [],
                "excluded_days_of_week": [7] if rng.random() < 0.3 else [],
                "subject_type": subject,
                "difficulty_level": level,
                "cognitive_intensity": level,
            }
        )
        for order in range(1, count + 1):
            items.append(
                {
                    "id": item_id,
                    "category_id": class_id,
                    "order": order,
                    "content": f"{name} 第{order}讲",
                    "duration": rng.choice([1, 2, 2, 2, 3]),
                }
            )
            item_id += 1
    return {
        "kind": "smartflow-export",
        "version": 1,
        "user_id": 1000 + index,
        "semester": {"start_date": SEMESTER_START.isoformat(), "weeks": 20},
        "window": {
            "start": {"week": week, "day_of_week": 1},
            "end": {"week": week, "day_of_week": 7},
        },
        "schedule_events": events,
        "schedules": rows,
        "task_classes": classes,
        "task_items": items,
    }


def generate(folder: Path, count: int, seed: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"student{i:04d}.json"
        path.write_text(json.dumps(make_export(i, seed), ensure_ascii=False), encoding="utf-8")
        paths.append(path)
    return paths


def _cpu() -> float:
    """CPU seconds of this process and its reaped children (the pool's workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def run(
    inputs: Path, out: Path, workers: int, solver: str, settings: dict[str, Any]
) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one batch run."""
    from planner_cli.batch import ItemOptions, Progress, run_batch

    cpu = _cpu()
    started = time.perf_counter()
    report = run_batch(
        [str(inputs)],
        out,
        ItemOptions(solver=solver),
        settings,
        workers=workers,
        progress=Progress(0, io.StringIO(), tty=False),
    )
    elapsed = time.perf_counter() - started
    cpu = _cpu() - cpu
    errors = [i for i in report.items if i.exit_code == 1]
    if errors:
        sys.exit(f"bench: {len(errors)} item(s) failed, e.g. {errors[0].name}: {errors[0].message}")
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exports", type=int, default=200)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--solver", choices=["cpsat", "greedy"], default="cpsat")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from planner_cli.settings import load_settings

    settings = load_settings()
    with tempfile.TemporaryDirectory(prefix="planner-bench-") as tmp:
        root = Path(tmp)
        inputs = root / "exports"
        generate(inputs, args.exports, args.seed)
        print(f"{args.exports} generated one-week exports, solver {args.solver}")
        rates = {}
        outputs = {}
        for workers in args.workers:
            out = root / f"out-{workers}"
            elapsed, cpu = run(inputs, out, workers, args.solver, settings)
            rates[workers] = args.exports / elapsed
            outputs[workers] = {p.name: p.read_bytes() for p in out.glob("*.preview.json")}
            print(
                f"  workers {workers}: {elapsed:7.2f} s  {rates[workers]:7.1f} exports/s"
                f"  ({1000 * cpu / args.exports:.0f} ms CPU per export)"
            )
        first = args.workers[0]
        same = all(outputs[w] == outputs[first] for w in args.workers)
        print(f"  previews identical across worker counts: {'yes' if same else 'NO'}")
        for workers in args.workers[1:]:
            print(
                f"  speed-up {workers} vs {first} worker(s): {rates[workers] / rates[first]:.2f}x"
            )
        elapsed, _ = run(inputs, root / f"out-{first}", first, args.solver, settings)
        print(f"  rerun, all skipped as unchanged: {args.exports / elapsed:7.1f} exports/s")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
