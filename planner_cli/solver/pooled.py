"""The placed-count model: tasks that only their class order tells apart, pooled.

Consecutive tasks of one class chain with the same duration and candidate blocks (a
"segment") are interchangeable up to the order as far as placing goes: any set of
non-overlapping blocks they use can be handed out in time order. So the largest placeable set
is found on a model with one row of blocks per segment (at most its size of them) and the
order only between segments
(a separator position between consecutive segments), which is exact, smaller and free of the
symmetric and phantom positions of the per-task model (measured: proves the placed count where
the per-task maximisation kept a trivial bound, docs/benchmarks.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from planner_cli.solver.problem import Problem, VarTask


def same_blocks(a: VarTask, b: VarTask) -> bool:
    return (a.duration, a.placements) == (b.duration, b.placements)


def interchangeable(a: VarTask, b: VarTask) -> bool:
    """Nothing but the class order tells the two tasks apart, costs included."""
    return (
        a.ref is None
        and b.ref is None
        and (a.duration, a.placements, a.costs) == (b.duration, b.placements, b.costs)
    )


@dataclass
class Pooled:
    problem: Problem  # one task (the first member) per segment; chains of segment indexes
    members: list[list[int]]  # segment → task indexes of the original problem, in class order

    @property
    def sizes(self) -> list[int]:
        return [len(m) for m in self.members]

    def rows(self, assignment: dict[int, int]) -> list[list[int]]:
        """The blocks each segment uses in a task assignment (a hint for the pooled model)."""
        return [sorted(assignment[t] for t in m if t in assignment) for m in self.members]

    def assignment(self, rows: list[list[int]]) -> dict[int, int]:
        """Blocks per segment handed to its first tasks in time order (class order holds;
        applied to a task assignment's rows, it keeps its cells and cost)."""
        out: dict[int, int] = {}
        for s, (segment, chosen) in enumerate(zip(self.members, rows, strict=True)):
            placements = self.problem.tasks[s].placements
            ordered = sorted(chosen, key=lambda k: placements[k].g)
            for t, k in zip(segment, ordered, strict=False):
                out[t] = k
        return out


def pool(problem: Problem, same: Callable[[VarTask, VarTask], bool] = same_blocks) -> Pooled:
    """Segments of chain tasks that `same` does not tell apart; with `interchangeable`,
    `assignment(rows(a))` is `a` with the same cost and its interchangeable tasks placed in
    class order."""
    members: list[list[int]] = []
    chains: list[list[int]] = []
    in_chain: set[int] = set()
    for chain in problem.chains:
        segments: list[int] = []
        for t in chain:
            vt = problem.tasks[t]
            if segments and same(problem.tasks[members[segments[-1]][-1]], vt):
                members[segments[-1]].append(t)
            else:
                segments.append(len(members))
                members.append([t])
            in_chain.add(t)
        if len(segments) > 1:
            chains.append(segments)
    members.extend([t] for t in range(len(problem.tasks)) if t not in in_chain)
    tasks = [problem.tasks[m[0]] for m in members]
    return Pooled(dataclasses.replace(problem, tasks=tasks, chains=chains), members)
