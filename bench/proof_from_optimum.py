"""How much of a proof is the bound: the cost phase started from the proven optimum.

Run: python -m bench.proof_from_optimum [--instances 5,7,19,21] [--find UNITS] [--budget UNITS]

Each instance (an index into the 32 typical instances of `python -m bench.layout_bench --quick
--sweep 24`) is solved first with `--find` deterministic units, to get its proven optimum, then
again with `--budget` units (the shipped default: 3) with that optimum handed over as the hint.
Whatever the second solve spends is spent on the bound alone: if it is above the time target,
no better starting layout or search can meet the target there. Meaningful for instances whose
tasks all get placed (the hint then skips phase 1); the defaults are the dense 14-day ones.
"""

from __future__ import annotations

import argparse

from bench.generate import make_instance
from bench.layout_bench import QUICK, sweep
from planner_cli.solver.greedy import greedy_layout
from planner_cli.solver.model import solve_cpsat
from planner_cli.solver.problem import Problem, build_problem
from planner_cli.solver.settings import coerce_settings


def problem_of(instance: tuple[int, int, int, float], units: float) -> Problem:
    state = make_instance(*instance)
    variable = sorted(
        t.state_id
        for t in state.tasks
        if t.is_pending and not t.is_course and t.source == "task_item"
    )
    settings = coerce_settings({"max_deterministic_time": units, "time_limit_s": 20 * units})
    return build_problem(state, variable, settings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", default="5,7,19,21", help="indexes of typical instances")
    parser.add_argument("--find", type=float, default=12.0, help="units to find the optimum")
    parser.add_argument("--budget", type=float, default=3.0, help="units of the second solve")
    args = parser.parse_args(argv)
    typical = QUICK + sweep(24)
    print("| instance | optimum | from the optimum: status | bound | cost phase units | wall s |")
    print("|---|---|---|---|---|---|")
    for index in (int(i) for i in args.instances.split(",")):
        instance = typical[index]
        _seed, days, tasks, demand = instance
        label = f"{days}d x {tasks}t @{demand}"
        first = problem_of(instance, args.find)
        found = solve_cpsat(first, greedy_layout(first, []))
        if found.status != "OPTIMAL" or len(found.assignment) < len(first.tasks):
            print(f"| {label} | not proven with {args.find} units (or tasks pending) | | | | |")
            continue
        again = solve_cpsat(problem_of(instance, args.budget), found.assignment)
        cost = [(wall, det) for name, wall, det in again.phase_times if name == "min_cost"]
        wall, det = cost[0] if cost else (0.0, 0.0)
        print(
            f"| {label} | {found.objective} | {again.status} | {again.bound} | {det:.2f} "
            f"| {wall:.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
