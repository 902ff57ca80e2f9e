"""Greedy vs CP-SAT on seeded instances: prints the table of docs/benchmarks.md.

Run: /work/venv/bin/python -m bench.layout_bench [--quick] [--repeat] [--markdown]
Objectives are the scorer's (solver/score.py), so both methods are compared on one scale;
`pending` is shown separately because one pending task weighs 100000. `--repeat` solves every
instance twice and checks that the two states are byte-identical. Wall-clock times vary with
the machine; nothing else in the table does.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

from bench.generate import make_instance
from planner_cli.io.files import dumps
from planner_cli.solver.layout import rough_layout

# (seed, days, tasks, demand); the first eight are the "typical" group of the targets
INSTANCES = [
    (1, 7, 10, 0.3),
    (2, 7, 20, 0.6),
    (3, 7, 30, 0.9),
    (4, 10, 30, 0.5),
    (5, 14, 40, 0.7),
    (6, 14, 50, 0.5),
    (7, 14, 60, 0.8),
    (8, 14, 60, 0.9),
    (9, 21, 80, 1.0),
    (10, 28, 120, 1.2),
    (11, 30, 150, 0.5),
    (12, 45, 250, 0.8),
    (13, 60, 400, 0.9),
    (14, 60, 400, 1.5),
]
QUICK = INSTANCES[:8]


@dataclass
class Row:
    name: str
    greedy_pending: int
    greedy_obj: int
    cp_pending: int
    cp_obj: int
    status: str
    gap: float | None
    build_s: float
    solve_s: float
    identical: bool | None

    @property
    def soft_ratio(self) -> str:
        """CP-SAT / greedy on the soft part (pending tasks taken out), when both place as many."""
        if self.cp_pending != self.greedy_pending:
            return "-"
        g = self.greedy_obj - 100000 * self.greedy_pending
        c = self.cp_obj - 100000 * self.cp_pending
        return f"{c / g:.2f}" if g else "-"


def run(instance: tuple[int, int, int, float], repeat: bool) -> Row:
    seed, days, tasks, demand = instance
    state = make_instance(seed, days, tasks, demand)
    greedy = rough_layout(state, solver="greedy")
    started = time.perf_counter()
    cp = rough_layout(state, solver="cpsat")
    total = time.perf_counter() - started
    identical = None
    if repeat:
        again = rough_layout(state, solver="cpsat")
        identical = dumps(again.state.dump()) == dumps(cp.state.dump())
    info = cp.metrics["solver"]
    solve = cp.timings.get("solve_s", 0.0)
    return Row(
        f"{days}d x {tasks}t @{demand}",
        greedy.metrics["pending"],
        greedy.metrics["objective"],
        cp.metrics["pending"],
        cp.metrics["objective"],
        info["status"],
        info.get("gap"),
        total - solve,
        solve,
        identical,
    )


def table(rows: list[Row]) -> str:
    head = (
        "| instance | greedy pending | greedy objective | CP-SAT pending | CP-SAT objective "
        "| soft ratio | status | gap | build s | solve s | identical |"
    )
    lines = [head, "|" + "---|" * 11]
    for r in rows:
        gap = f"{r.gap:.1%}" if r.gap is not None else "-"
        same = {None: "-", True: "yes", False: "NO"}[r.identical]
        lines.append(
            f"| {r.name} | {r.greedy_pending} | {r.greedy_obj} | {r.cp_pending} | {r.cp_obj} "
            f"| {r.soft_ratio} | {r.status} | {gap} | {r.build_s:.2f} | {r.solve_s:.2f} | {same} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the typical instances")
    parser.add_argument("--repeat", action="store_true", help="solve twice, compare the states")
    args = parser.parse_args(argv)
    rows = []
    for instance in QUICK if args.quick else INSTANCES:
        rows.append(run(instance, args.repeat))
        print(table(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    print(table(rows))
    worse = [r.name for r in rows if (r.cp_pending, r.cp_obj) > (r.greedy_pending, r.greedy_obj)]
    better = sum(1 for r in rows if (r.cp_pending, r.cp_obj) < (r.greedy_pending, r.greedy_obj))
    print(f"\nCP-SAT better than greedy on {better}/{len(rows)}; worse on {len(worse)} {worse}")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
