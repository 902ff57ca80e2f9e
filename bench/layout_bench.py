"""Greedy vs CP-SAT on seeded instances: prints the table of docs/benchmarks.md.

Run: python -m bench.layout_bench [--quick] [--repeat] [--sweep N] [--budget UNITS]
Objectives are the scorer's (solver/score.py), so both methods are compared on one scale;
`pending` is shown separately because one pending task weighs 100000. `--repeat` solves every
instance twice and checks that the two states are byte-identical. `--sweep N` adds N random
typical instances (7-14 days, 10-60 tasks, demand 0.2-0.9) and counts the proven ones.
*proof* is the CP-SAT time until the optimum was proven (every phase but the tie-break polish),
in deterministic units and seconds. Wall-clock times vary with the machine; nothing else does.
"""

from __future__ import annotations

import argparse
import random
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
DEMANDS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


@dataclass
class Row:
    instance: tuple[int, int, int, float]  # (seed, days, tasks, demand)
    greedy_pending: int
    greedy_obj: int
    cp_pending: int
    cp_obj: int
    status: str
    gap: float | None
    build_s: float
    solve_s: float
    identical: bool | None
    proof_dtime: float | None = None
    proof_s: float | None = None

    @property
    def name(self) -> str:
        _seed, days, tasks, demand = self.instance
        return f"{days}d x {tasks}t @{demand}"

    @property
    def typical(self) -> bool:
        _seed, days, tasks, demand = self.instance
        return days <= 14 and tasks <= 60 and demand <= 0.9

    @property
    def soft_ratio(self) -> str:
        """CP-SAT / greedy on the soft part (pending tasks taken out), when both place as many."""
        if self.cp_pending != self.greedy_pending:
            return "-"
        g = self.greedy_obj - 100000 * self.greedy_pending
        c = self.cp_obj - 100000 * self.cp_pending
        return f"{c / g:.2f}" if g else "-"


def run(
    instance: tuple[int, int, int, float], repeat: bool, settings: dict[str, float] | None = None
) -> Row:
    seed, days, tasks, demand = instance
    state = make_instance(seed, days, tasks, demand)
    greedy = rough_layout(state, solver="greedy")
    started = time.perf_counter()
    cp = rough_layout(state, solver="cpsat", settings=settings)
    total = time.perf_counter() - started
    identical = None
    if repeat:
        again = rough_layout(state, solver="cpsat", settings=settings)
        identical = dumps(again.state.dump()) == dumps(cp.state.dump())
    info = cp.metrics["solver"]
    solve = cp.timings.get("solve_s", 0.0)
    proof = proof_s = None
    if info["status"] == "OPTIMAL":
        phases = [k[: -len("_dtime")] for k in cp.timings if k.endswith("_dtime")]
        phases = [k for k in phases if k != "tie_break"]
        proof = sum(cp.timings[f"{k}_dtime"] for k in phases)
        proof_s = sum(cp.timings[f"{k}_s"] for k in phases)
    return Row(
        instance,
        greedy.metrics["pending"],
        greedy.metrics["objective"],
        cp.metrics["pending"],
        cp.metrics["objective"],
        info["status"],
        info.get("gap"),
        total - solve,
        solve,
        identical,
        proof,
        proof_s,
    )


def table(rows: list[Row]) -> str:
    head = (
        "| instance | greedy pending | greedy objective | CP-SAT pending | CP-SAT objective "
        "| soft ratio | status | gap | proof | build s | solve s | identical |"
    )
    lines = [head, "|" + "---|" * 12]
    for r in rows:
        gap = f"{r.gap:.1%}" if r.gap is not None else "-"
        same = {None: "-", True: "yes", False: "NO"}[r.identical]
        proof = f"{r.proof_dtime:.2f} u / {r.proof_s:.2f} s" if r.proof_s is not None else "-"
        lines.append(
            f"| {r.name} | {r.greedy_pending} | {r.greedy_obj} | {r.cp_pending} | {r.cp_obj} "
            f"| {r.soft_ratio} | {r.status} | {gap} | {proof} | {r.build_s:.2f} "
            f"| {r.solve_s:.2f} | {same} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the typical instances")
    parser.add_argument("--repeat", action="store_true", help="solve twice, compare the states")
    parser.add_argument("--sweep", type=int, default=0, help="N random typical instances too")
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="max_deterministic_time in units (default: configs/solver.yaml's); the wall "
        "limit becomes 5 s per unit so that it does not bind first",
    )
    args = parser.parse_args(argv)
    settings = None
    if args.budget is not None:
        settings = {"max_deterministic_time": args.budget, "time_limit_s": 5 * args.budget}
    rows = []
    for instance in (QUICK if args.quick else INSTANCES) + sweep(args.sweep):
        rows.append(run(instance, args.repeat, settings))
        print(table(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    print(table(rows))
    worse = [r.name for r in rows if (r.cp_pending, r.cp_obj) > (r.greedy_pending, r.greedy_obj)]
    better = sum(1 for r in rows if (r.cp_pending, r.cp_obj) < (r.greedy_pending, r.greedy_obj))
    print(f"\nCP-SAT better than greedy on {better}/{len(rows)}; worse on {len(worse)} {worse}")
    typical = [r for r in rows if r.typical]
    proven = [r for r in typical if r.proof_s is not None]
    fast = [r for r in proven if r.proof_s is not None and r.proof_s <= 2.0]
    gaps = sorted(r.gap or 0.0 for r in typical if r.proof_s is None)
    print(
        f"typical instances (<= 14 days, <= 60 tasks, demand <= 0.9): {len(typical)}; "
        f"proven OPTIMAL {len(proven)}, within 2 s {len(fast)}; "
        f"gaps of the others: {', '.join(f'{g:.1%}' for g in gaps) or '-'}"
    )
    return 1 if worse else 0


def sweep(n: int) -> list[tuple[int, int, int, float]]:
    """N seeded random typical instances (the same N always gives the same list)."""
    rng = random.Random(2026)
    return [
        (100 + i, rng.choice((7, 10, 14)), rng.randrange(10, 61, 5), rng.choice(DEMANDS))
        for i in range(n)
    ]


if __name__ == "__main__":
    sys.exit(main())
