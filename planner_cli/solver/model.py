"""The CP-SAT rough layout: one boolean per (task, candidate block), solved in lexicographic phases.

Phase 1 finds the largest placeable set (skipped when the greedy hint places all) on the pooled
model of solver/pooled.py, which is exact and proves the count in a fraction of the budget on
typical instances. Phase 2 minimises the weighted objective of spec/solver.md
(the same terms as solver/score.py, constants included, so the two agree exactly) over every
set of that size when the size is proven (OPTIMAL is then the true optimum), or over the
found set when it is not (status FEASIBLE, `restricted_to_set`). Phase 3, only after a proven
phase 2 and on at most a tenth of the budget, fixes the objective and minimises a
lexicographic tie-break (lower ids placed first, then earlier day and section first).
Formulation choices (measured, docs/benchmarks.md): per-block booleans with per-cell cliques,
because every soft term is a per-block constant or a per-cell sum (an interval/NoOverlap model,
which spec/solver.md prefers when faster, proved none of the dense 14-day instances the booleans
prove in 0.2-0.7 units); the class order as a plain linear precedence over
exactly-one blocks, with zero-length "phantom" positions for tasks that may stay unplaced
(faster than big-M, channelled start variables or the order encoding), and of chain tasks that
only the order tells apart the earlier one placed first (symmetry); long runs and context
switches either as a path through each day's sections (`_day_path`: an exact LP per day,
proofs 2-4x faster on dense 14-day instances) or per section boundary (`_long_runs`,
`_context_switches`: the smaller model, which found better layouts within the default budget
when phase 2 also chooses the placed set), `run_switch_model` in configs/solver.yaml; the
cost phases with CP-SAT's linearization level 2 (proofs several times faster on 14-day
instances).
Long windows with many candidate blocks go through solver/decompose.py (one week at a time).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from planner_cli.solver.pooled import Pooled, interchangeable, pool
from planner_cli.solver.problem import Problem, S, cell_of
from planner_cli.solver.score import term_values

LARGE_MODEL = 20000  # candidate blocks above which presolve is switched off
# candidate blocks above which `run_switch_model: auto` uses day paths (when the placed set is
# fixed): below, the per-boundary form proves the same optima, 5x faster on one-week exports
PATHS_ABOVE = 1000
# presolve probing of the count and tie-break phases (the cost phase keeps CP-SAT's default 2):
# level 0 proves the same counts in 0.4-0.97x the deterministic time and proves more
# tie-breaks within their share (14 instead of 10 of the 24 proven typical instances)
LIGHT_PROBING_LEVEL = 0
TIE_BREAK_SHARE = 0.1  # of max_deterministic_time, at most, for phase 3 (rarely proven: a polish)
STATUS_NAMES = {0: "UNKNOWN", 1: "MODEL_INVALID", 2: "FEASIBLE", 3: "INFEASIBLE", 4: "OPTIMAL"}


@dataclass
class SolveOutcome:
    assignment: dict[int, int]
    status: str  # OPTIMAL | FEASIBLE | UNKNOWN (no solution: caller falls back)
    objective: int | None
    bound: int | None
    placed_proven: bool
    tie_break: int | None = None
    phases: list[dict[str, Any]] = field(default_factory=list)
    build_s: float = 0.0
    solve_s: float = 0.0
    phase_times: list[tuple[str, float, float]] = field(
        default_factory=list
    )  # (phase, wall s, det. time)


@dataclass
class _Chosen:
    """What a block assignment covers: cells, study load per day, the class key of each cell."""

    cells: set[int]
    day_load: dict[int, int]
    cell_key: dict[int, str]
    blocks: dict[int, tuple[int, str]]  # first cell → (length, key)
    paths: dict[int, set[int]] = field(default_factory=dict)  # day → arcs taken (memo)

    @classmethod
    def of(cls, problem: Problem, assignment: dict[int, int]) -> _Chosen:
        cells: set[int] = set()
        load: dict[int, int] = {}
        keys: dict[int, str] = {}
        blocks: dict[int, tuple[int, str]] = {}
        for t, k in assignment.items():
            vt = problem.tasks[t]
            pl = vt.placements[k]
            cells.update(pl.cells)
            load[pl.day] = load.get(pl.day, 0) + vt.duration
            for c in pl.cells:
                keys.setdefault(c, vt.key)
            blocks[pl.cells[0]] = (len(pl.cells), vt.key)
        return cls(cells, load, keys, blocks)


class _Builder:
    """Variables and constraints, one method per rule (each opens with the rule it enforces)."""

    def __init__(
        self,
        problem: Problem,
        stability: int | None = None,
        active: set[int] | None = None,
        all_placed: bool = False,
        sizes: list[int] | None = None,
        paths: bool = False,
    ) -> None:
        """`active`: the only tasks that may be placed (None = all); `all_placed`: each of
        them gets exactly one block (phase 2 once the placed set is known); `sizes`: the rows
        are pooled segments (solver/pooled.py) holding up to that many blocks each; `paths`: runs
        and switches priced by the day-path formulation (`_day_path`)."""
        from ortools.sat.python import cp_model

        self.cp = cp_model
        self.p = problem
        self.stability = stability
        self.m = cp_model.CpModel()
        self.x: list[list[Any]] = [
            [self.m.new_bool_var(f"x{t}_{k}") for k in range(len(vt.placements))]
            if active is None or t in active
            else []
            for t, vt in enumerate(problem.tasks)
        ]
        self.lin = cp_model.LinearExpr
        self.placed = [self.lin.sum(row) if row else 0 for row in self.x]
        self.cover: dict[int, list[tuple[int, int]]] = {}
        for t, vt in enumerate(problem.tasks):
            for k, pl in enumerate(vt.placements if self.x[t] else ()):
                for c in pl.cells:
                    self.cover.setdefault(c, []).append((t, k))
        self.objective_terms: list[tuple[Any, int]] = []
        self.constant = 0
        self.aux: list[Any] = []
        # auxiliaries whose value follows from a block assignment (for complete hints)
        self.derived: list[tuple[Any, Any]] = []
        self.phantoms: dict[int, list[tuple[int, Any]]] = {}  # zero-length order positions
        self.all_placed = all_placed
        self.sizes = sizes
        self.paths = paths

    def hard(self) -> None:
        self.one_block_per_task()
        self.no_overlap()
        self.caps()
        if self.sizes is not None:
            self.segment_order()
        else:
            self.order()
            self.placed_first()

    def placed_total(self) -> Any:
        return self.lin.sum([self.placed[t] for t, row in enumerate(self.x) if row])

    # -- hard constraints ------------------------------------------------------------------

    def one_block_per_task(self) -> None:
        """A task gets at most one of its candidate blocks (none = unplaced); exactly one when
        the placed set is fixed."""
        for t, row in enumerate(self.x):
            if self.sizes is not None and self.sizes[t] > 1:
                self.m.add(self.lin.sum(row) <= self.sizes[t])
            elif self.all_placed and row:
                self.m.add_exactly_one(row)
            elif len(row) > 1:
                self.m.add_at_most_one(row)

    def no_overlap(self) -> None:
        """A free cell holds at most one block; a free water-course occurrence at most one guest."""
        by_occ: dict[tuple[int, int], list[Any]] = {}
        for t, vt in enumerate(self.p.tasks):
            for k, pl in enumerate(vt.placements if self.x[t] else ()):
                if pl.host is not None:
                    by_occ.setdefault(pl.host, []).append(self.x[t][k])
        for _c, items in self.cover.items():
            plain = [self.x[t][k] for t, k in items if self.p.tasks[t].placements[k].host is None]
            if len(plain) > 1:
                self.m.add_at_most_one(plain)
        for occ in sorted(by_occ):
            if len(by_occ[occ]) > 1:
                self.m.add_at_most_one(by_occ[occ])

    def caps(self) -> None:
        """Optional daily caps: study sections per day overall and per class."""
        caps = self.p.settings.caps
        if caps.max_study_sections_per_day is not None:
            per_day: dict[int, list[Any]] = {}
            for t, vt in enumerate(self.p.tasks):
                for k, pl in enumerate(vt.placements if self.x[t] else ()):
                    per_day.setdefault(pl.day, []).append(vt.duration * self.x[t][k])
            for day, terms in sorted(per_day.items()):
                room = max(0, caps.max_study_sections_per_day - self.p.day_study.get(day, 0))
                self.m.add(sum(terms) <= room)
        if caps.max_class_sections_per_day is not None:
            per_class: dict[tuple[int, int], list[Any]] = {}
            for t, vt in enumerate(self.p.tasks):
                if not vt.task.class_id:
                    continue
                for k, pl in enumerate(vt.placements if self.x[t] else ()):
                    per_class.setdefault((vt.task.class_id, pl.day), []).append(
                        vt.duration * self.x[t][k]
                    )
            for key, terms in sorted(per_class.items()):
                room = max(0, caps.max_class_sections_per_day - self.p.class_day_study.get(key, 0))
                self.m.add(sum(terms) <= room)

    def order(self) -> None:
        """Within a class, task k ends before task k+1 starts (unplaced tasks pass the order on).

        The plain linear form Σ(g+dur)·x - 1 < Σ g·x over exactly-one blocks. A task that may
        stay unplaced also gets "phantom" positions: zero-length blocks at every start of the
        later tasks' blocks and past the window's end, which occupy nothing and only carry the
        order (an unplaced task sits where the next placed one starts), so the order stays
        linear (measured faster than start variables channelled from the blocks).
        """
        for full_chain in self.p.chains:
            chain = [t for t in full_chain if self.x[t]]
            if len(chain) < 2:
                continue
            # where an unplaced task may sit: the start of a later task's block, or past the end
            positions: dict[int, list[int]] = {}
            if not self.all_placed:
                later = {self.p.days * S + 1}
                for t in reversed(chain):
                    positions[t] = sorted(later)
                    later |= {pl.g for pl in self.p.tasks[t].placements}
            starts: list[Any] = []
            ends: list[Any] = []
            for t in chain:
                vt = self.p.tasks[t]
                g = [pl.g for pl in vt.placements]
                start = self.lin.weighted_sum(self.x[t], g)
                end = self.lin.weighted_sum(self.x[t], [gi + vt.duration for gi in g])
                if positions:
                    ghosts = [self.m.new_bool_var(f"ph{t}_{gi}") for gi in positions[t]]
                    self.phantoms[t] = list(zip(positions[t], ghosts, strict=True))
                    self.aux.extend(ghosts)
                    self.m.add_exactly_one(self.x[t] + ghosts)
                    start += self.lin.weighted_sum(ghosts, positions[t])
                    end += self.lin.weighted_sum(ghosts, positions[t])
                starts.append(start)
                ends.append(end)
            for a, b in zip(range(len(chain)), range(1, len(chain)), strict=False):
                self.m.add(ends[a] <= starts[b])

    def placed_first(self) -> None:
        """Of consecutive chain tasks that only the order tells apart (solver/pooled.py), the
        earlier one is placed when the later one is: any solution maps onto one like it with
        the same blocks and cost (symmetry)."""
        if self.all_placed:
            return
        for chain in self.p.chains:
            for a, b in zip(chain, chain[1:], strict=False):
                if self.x[a] and self.x[b] and interchangeable(self.p.tasks[a], self.p.tasks[b]):
                    self.m.add(self.placed[b] <= self.placed[a])

    def segment_order(self) -> None:
        """Pooled rows: every block of a segment ends before every block of the next segment of
        its chain starts (a separator position between them; empty segments pass it on)."""
        horizon = self.p.days * S + 1
        for chain in self.p.chains:
            cuts = [self.m.new_int_var(0, horizon, f"cut{a}") for a in chain[:-1]]
            self.aux.extend(cuts)
            for before, after in zip(cuts, cuts[1:], strict=False):
                self.m.add(before <= after)
            for i, seg in enumerate(chain):
                for k, pl in enumerate(self.p.tasks[seg].placements):
                    if i < len(cuts):
                        self.m.add(cuts[i] > pl.g_end).only_enforce_if(self.x[seg][k])
                    if i > 0:
                        self.m.add(cuts[i - 1] <= pl.g).only_enforce_if(self.x[seg][k])

    def phantom_hint(self, assignment: dict[int, int]) -> list[tuple[Any, bool]]:
        """Phantom values consistent with `assignment`: an unplaced task sits at the start of
        the next placed task of its chain, or past the end when none follows."""
        out: list[tuple[Any, bool]] = []
        for full_chain in self.p.chains:
            chain = [t for t in full_chain if t in self.phantoms]
            at = self.p.days * S + 1
            for t in reversed(chain):
                if t in assignment:
                    at = self.p.tasks[t].placements[assignment[t]].g
                    out.extend((var, False) for _, var in self.phantoms[t])
                else:
                    out.extend((var, g == at) for g, var in self.phantoms[t])
        return out

    # -- objective -------------------------------------------------------------------------

    def objective(self, placed: int | None = None) -> None:
        """The weighted terms of spec/solver.md. `placed`: the placed count when the model fixes
        it (phase 2 choosing the set): the pending part is then a constant and the block
        coefficients stay on the soft terms' scale (with the dominant weight in them the LP
        bound could stay at the pending part, even on a 10-day, 20-task instance)."""
        p = self.p
        w = p.settings.weights
        fixed = term_values(p.state, p.settings)
        self.constant += w.unplaced * (fixed["unplaced"] - len(p.tasks))
        shift = w.unplaced
        if placed is not None:
            self.constant += w.unplaced * (len(p.tasks) - placed)
            shift = 0
        self.constant += w.steady_spread * fixed["steady_spread"]
        self.constant += w.rapid_finish * fixed["rapid_finish"]
        self.constant += w.late_section * fixed["late_section"]
        for t, vt in enumerate(p.tasks):
            self.constant += shift
            if self.stability is not None and vt.ref is not None:
                self.constant += self.stability
                if vt.ref_index is not None and self.x[t]:
                    self.objective_terms.append((self.x[t][vt.ref_index], -self.stability))
            for k, (steady, rapid, late) in enumerate(vt.costs if self.x[t] else ()):
                coef = (
                    w.steady_spread * steady
                    + w.rapid_finish * rapid
                    + w.late_section * late
                    - shift
                )
                if coef:
                    self.objective_terms.append((self.x[t][k], coef))
        self._day_over_mean(w.day_over_mean)
        if not w.long_run and not w.context_switch:
            return  # nothing to price (a path network priced at zero only slows the search)
        if self.paths:
            kinds: dict[int, dict[tuple[int, int, str], list[Any]]] = {}
            for t, vt in enumerate(self.p.tasks):
                for k, pl in enumerate(vt.placements if self.x[t] else ()):
                    kind = (pl.start, len(pl.cells), vt.key)
                    kinds.setdefault(pl.day, {}).setdefault(kind, []).append(self.x[t][k])
            for day in range(1, self.p.days + 1):
                self._day_path(day, kinds.get(day, {}), w.long_run, w.context_switch)
        else:
            self._long_runs(w.long_run)
            self._context_switches(w.context_switch)

    def _day_over_mean(self, weight: int) -> None:
        """Study sections of a day above the mean daily study load cost `day_over_mean` each."""
        per_day: dict[int, list[Any]] = {}
        for t, vt in enumerate(self.p.tasks):
            for k, pl in enumerate(vt.placements if self.x[t] else ()):
                per_day.setdefault(pl.day, []).append(vt.duration * self.x[t][k])
        mean = self.p.mean_load
        for day in range(1, self.p.days + 1):
            base = self.p.day_study.get(day, 0)
            if day not in per_day:
                self.constant += weight * max(0, base - mean)
                continue
            if weight == 0:
                continue
            excess = self.m.new_int_var(0, 12 * S, f"over{day}")
            self.aux.append(excess)
            self.derived.append(
                (excess, lambda c, d=day, b=base: max(0, b + c.day_load.get(d, 0) - mean))
            )
            self.m.add(excess >= base + sum(per_day[day]) - mean)
            self.objective_terms.append((excess, weight))

    def _occ(self, c: int) -> tuple[int, list[Any]]:
        fixed = 1 if c in self.p.study_key else 0
        return fixed, [self.x[t][k] for t, k in self.cover.get(c, ())]

    def _long_runs(self, weight: int) -> None:
        """Each window of limit+1 consecutive study sections costs `long_run` (= excess length)."""
        limit = self.p.settings.max_consecutive_study_sections
        if limit >= S:
            return
        for day in range(1, self.p.days + 1):
            for a in range(1, S - limit + 1):
                cells = [cell_of(day, s) for s in range(a, a + limit + 1)]
                fixed = 0
                terms: list[Any] = []
                possible = True
                for c in cells:
                    f, xs = self._occ(c)
                    if not f and not xs:
                        possible = False
                        break
                    fixed += f
                    terms.extend(xs)
                if not possible:
                    continue
                if fixed == limit + 1:
                    self.constant += weight
                    continue
                if weight == 0:
                    continue
                v = self.m.new_bool_var(f"run{day}_{a}")
                self.aux.append(v)
                self.derived.append((v, self._run_value(cells)))
                self.m.add(v >= fixed + sum(terms) - limit)
                self.objective_terms.append((v, weight))

    def _context_switches(self, weight: int) -> None:
        """Two touching study blocks of different classes cost `context_switch` (a break, even
        of one section, between them costs nothing).

        A switch between cells c1 and c2 needs a block (or fixed study) ending at c1 and another
        starting at c2: one block has one key. So only blocks ending at c1 and starting at c2
        enter, and boundaries no two such blocks of different keys can meet (inside aligned
        pairs, for instance) get no variable at all.
        """
        key_of = self.p.study_key
        ends: dict[int, list[tuple[Any, str]]] = {}
        starts: dict[int, list[tuple[Any, str]]] = {}
        for t, vt in enumerate(self.p.tasks):
            for k, pl in enumerate(vt.placements if self.x[t] else ()):
                cells = pl.cells
                ends.setdefault(cells[-1], []).append((self.x[t][k], vt.key))
                starts.setdefault(cells[0], []).append((self.x[t][k], vt.key))
        for day in range(1, self.p.days + 1):
            for s in range(1, S):
                c1, c2 = cell_of(day, s), cell_of(day, s + 1)
                if c1 in key_of and c2 in key_of:
                    self.constant += weight * (key_of[c1] != key_of[c2])
                    continue
                left = [(1, key_of[c1])] if c1 in key_of else ends.get(c1, [])
                right = [(1, key_of[c2])] if c2 in key_of else starts.get(c2, [])
                keys = {key for _, key in left} | {key for _, key in right}
                if not left or not right or len(keys) == 1 or weight == 0:
                    continue
                sw = self.m.new_bool_var(f"sw{day}_{s}")
                self.aux.append(sw)
                self.derived.append((sw, self._switch_value(c1, c2)))
                for key in sorted({key for _, key in left}):
                    mine = [var for var, k in left if k == key]
                    other = [var for var, k in right if k != key]
                    if other:
                        self.m.add(sw >= sum(mine) + sum(other) - 1)
                self.objective_terms.append((sw, weight))

    def _day_path(
        self, day: int, kinds: dict[tuple[int, int, str], list[Any]], w_long: int, w_ctx: int
    ) -> None:
        """`long_run` and `context_switch` of one day as a path through its sections.

        A day is read section by section; the state after a section is (class key of the study
        block ending there, length of the study run so far, capped at the limit). Arcs: an idle
        section, a fixed study section, or a candidate block of some key and length starting
        there, each priced by the switch and the run sections it adds. One unit of flow goes
        through the day, and the flow on the arcs of each (start, length, key) equals the
        blocks of that kind chosen, so the cheapest path prices exactly what the chosen blocks
        cost, and its LP relaxation is exact for each day given the kinds of blocks chosen
        (measured: proofs 2-4x faster than the per-boundary form, docs/benchmarks.md). States a
        later section cannot tell apart are merged: a key no block or fixed section starting
        next can follow counts as "another key", and a state before a section where nothing
        can start is "idle". `kinds`: the day's candidate blocks by (start, length, key).
        """
        limit = self.p.settings.max_consecutive_study_sections
        fixed = {s: self.p.study_key.get(cell_of(day, s)) for s in range(1, S + 1)}
        starting: dict[int, list[tuple[int, str]]] = {}
        for start, length, of_class in sorted(kinds):
            starting.setdefault(start, []).append((length, of_class))
        follow: dict[int, set[str]] = {}  # keys a block or fixed study starting at s may have
        for s in range(1, S + 2):
            follow[s] = {of_class for _, of_class in starting.get(s, ())}
            if fixed.get(s):
                follow[s].add(str(fixed[s]))

        def state(after: int, key: str | None, run: int) -> tuple[str | None, int]:
            keys = follow[after + 1]
            if not keys:
                return (None, 0)
            if key is not None and (key not in keys or not w_ctx):
                key = ""  # another key: it switches to whatever comes next
            return (key, min(run, limit) if w_long else 0)

        # arcs: (from section, from state, to section, to state, cost, kind)
        arcs: list[tuple[int, tuple[str | None, int], int, Any, int, Any]] = []
        reached: dict[int, set[tuple[str | None, int]]] = {0: {(None, 0)}}
        for pos in range(S):
            s = pos + 1
            for key, run in sorted(reached.get(pos, ()), key=lambda st: (st[0] is not None, st)):
                steps: list[tuple[int, str | None, Any]] = []
                if fixed[s]:
                    steps.append((1, fixed[s], "fixed"))
                else:
                    steps.append((1, None, "idle"))
                    steps.extend((size, nxt, (s, size, nxt)) for size, nxt in starting.get(s, ()))
                for size, then, kind in steps:
                    if then is None:
                        to, cost = state(s, None, 0), 0
                    else:
                        switch = key is not None and key != then
                        excess = max(0, run + size - limit)
                        to = state(pos + size, then, run + size)
                        cost = w_ctx * switch + w_long * excess
                    arcs.append((pos, (key, run), pos + size, to, cost, kind))
                    reached.setdefault(pos + size, set()).add(to)
        if not kinds:  # nothing to decide: the one path's cost is a constant
            self.constant += sum(arc[4] for arc in arcs)
            return
        flow = [self.m.new_bool_var(f"path{day}_{i}") for i in range(len(arcs))]
        self.aux.extend(flow)
        out: dict[Any, list[Any]] = {}
        into: dict[Any, list[Any]] = {}
        by_kind: dict[Any, list[Any]] = {}
        for arc, var in zip(arcs, flow, strict=True):
            out.setdefault((arc[0], arc[1]), []).append(var)
            into.setdefault((arc[2], arc[3]), []).append(var)
            by_kind.setdefault(arc[5], []).append(var)
            if arc[4]:
                self.objective_terms.append((var, arc[4]))
        self.m.add_exactly_one(out[(0, (None, 0))])
        for node, leaving in out.items():
            if node[0] > 0:
                self.m.add(sum(into.get(node, [])) == sum(leaving))
        for kind, xs in kinds.items():
            self.m.add(sum(xs) == sum(by_kind.get(kind, [])))
        index = {(arc[0], arc[1], arc[5]): i for i, arc in enumerate(arcs)}

        def taken(ch: _Chosen) -> set[int]:
            if day not in ch.paths:
                used: set[int] = set()
                pos, at = 0, (None, 0)
                while pos < S:
                    s = pos + 1
                    block = ch.blocks.get(cell_of(day, s))
                    kind: Any = "idle"
                    if fixed[s]:
                        kind = "fixed"
                    elif block is not None:
                        kind = (s, *block)
                    i = index[(pos, at, kind)]
                    used.add(i)
                    pos, at = arcs[i][2], arcs[i][3]
                ch.paths[day] = used
            return ch.paths[day]

        for i, var in enumerate(flow):
            self.derived.append((var, lambda ch, i=i: int(i in taken(ch))))

    def _switch_value(self, c1: int, c2: int) -> Any:
        study = self.p.study_key

        def value(ch: _Chosen) -> int:
            k1 = study.get(c1, ch.cell_key.get(c1))
            k2 = study.get(c2, ch.cell_key.get(c2))
            return int(k1 is not None and k2 is not None and k1 != k2)

        return value

    def _run_value(self, cells: list[int]) -> Any:
        study = self.p.study_key
        return lambda ch: int(all(c in study or c in ch.cells for c in cells))

    def objective_expr(self) -> Any:
        variables = [var for var, _ in self.objective_terms]
        coefs = [coef for _, coef in self.objective_terms]
        return self.lin.weighted_sum(variables, coefs) + self.constant

    def tie_break_expr(self) -> Any:
        """Lower state ids placed first (when the placed set may vary), then earlier blocks of
        lower state ids first: Σ (n - t)·g over placed tasks + Σ (n - t)·horizon over the
        others (g < horizon, so placing a task always lowers it)."""
        n = len(self.p.tasks)
        horizon = self.p.days * S + 1
        variables: list[Any] = []
        coefs: list[int] = []
        for t, vt in enumerate(self.p.tasks):
            for k, pl in enumerate(vt.placements if self.x[t] else ()):
                variables.append(self.x[t][k])
                coefs.append((n - t) * (pl.g - horizon))
        return self.lin.weighted_sum(variables, coefs) + horizon * n * (n + 1) // 2


def _params(solver: Any, settings: Any, wall: float, dtime: float) -> None:
    params = solver.parameters
    params.random_seed = settings.random_seed
    params.num_workers = settings.num_workers
    params.max_time_in_seconds = max(0.01, wall)
    params.max_deterministic_time = max(0.01, dtime)
    params.log_search_progress = settings.log_search_progress


def _write_hint(m: Any, pairs: list[tuple[Any, Any]]) -> None:
    """The model's hint: (variable, value) pairs, written into the proto in one go (add_hint
    per variable cost 0.3 s on 60 d x 400 t); every variable here is a plain (non-negated) one."""
    m.clear_hints()
    hint = m.proto.solution_hint
    hint.vars.extend(var.index for var, _ in pairs)
    hint.values.extend(int(value) for _, value in pairs)


def solve_cpsat(
    problem: Problem,
    hint: dict[int, int],
    stability: int | None = None,
    light_presolve: bool = False,
) -> SolveOutcome:
    """Solve the layout; `hint` (task index → block index) is the warm start (greedy).
    `light_presolve`: the cost phase probes lightly too (the slices of solver/decompose.py,
    whose small budget share a full probing pass could use up before the search starts)."""
    from ortools.sat.python import cp_model

    settings = problem.settings
    n = len(problem.tasks)
    budget = {"wall": settings.time_limit_s, "dtime": settings.max_deterministic_time}
    phases: list[dict[str, Any]] = []
    timings: list[tuple[str, float, float]] = []
    build_s = 0.0
    solve_started = time.perf_counter()
    if n == 0:
        return SolveOutcome({}, "OPTIMAL", None, None, True, 0, [], 0.0, 0.0)

    def build(
        active: set[int] | None = None,
        all_placed: bool = False,
        paths: bool = False,
        pooled: Pooled | None = None,
    ) -> _Builder:
        nonlocal build_s
        t0 = time.perf_counter()
        if pooled is not None:
            b = _Builder(pooled.problem, sizes=pooled.sizes)
        else:
            b = _Builder(problem, stability, active, all_placed, paths=paths)
        b.hard()
        build_s += time.perf_counter() - t0
        return b

    def run(
        b: _Builder,
        name: str,
        share: float,
        cap: float | None = None,
        level: int | None = None,
        probing: int | None = None,
    ) -> tuple[Any, Any]:
        solver = cp_model.CpSolver()
        dtime = budget["dtime"] * share if cap is None else min(budget["dtime"], cap)
        # only the deterministic budget is shared out: the wall clock is a global safety net,
        # so runs stay reproducible unless the whole time limit is exhausted
        wall = budget["wall"]
        _params(solver, settings, wall, dtime)
        if level is not None:  # the cost phase's LP (docs/benchmarks.md)
            solver.parameters.linearization_level = level
        if probing is not None:
            solver.parameters.cp_model_probing_level = probing
        if size > LARGE_MODEL:
            # presolve of a large model can eat the whole budget and hide even the hint
            solver.parameters.cp_model_presolve = False
        t0 = time.perf_counter()
        status = solver.solve(b.m)
        spent = time.perf_counter() - t0
        budget["wall"] = max(0.0, budget["wall"] - spent)
        budget["dtime"] = max(0.0, budget["dtime"] - solver.response_proto.deterministic_time)
        timings.append((name, round(spent, 3), round(solver.response_proto.deterministic_time, 3)))
        return solver, status

    def extract(b: _Builder, solver: Any) -> dict[int, int]:
        out: dict[int, int] = {}
        for t, row in enumerate(b.x):
            for k, var in enumerate(row):
                if solver.boolean_value(var):
                    out[t] = k
                    break
        return out

    def set_hint(b: _Builder, assignment: dict[int, int], solver: Any = None) -> None:
        pairs: list[tuple[Any, int]] = []
        for t, row in enumerate(b.x):
            chosen = assignment.get(t)
            pairs.extend((var, k == chosen) for k, var in enumerate(row))
        if solver is not None:  # a complete hint: the auxiliaries of the last solution too
            pairs.extend((var, solver.value(var)) for var in b.aux)
        else:
            pairs.extend(b.phantom_hint(assignment))
            if b.derived:
                covered = _Chosen.of(problem, assignment)
                pairs.extend((var, value(covered)) for var, value in b.derived)
        _write_hint(b.m, pairs)

    ok = (cp_model.OPTIMAL, cp_model.FEASIBLE)
    size = sum(len(vt.placements) for vt in problem.tasks)
    best = dict(hint)
    upper = n
    # -- phase 1: the largest placeable set -----------------------------------------------
    large = size > LARGE_MODEL
    if large and len(best) < n:
        # the placement phases rarely finish on a large model within the default budget:
        # keep the greedy set and spend the budget on its cost (the status says FEASIBLE)
        phases.append({"phase": "placed_search", "status": "SKIPPED_LARGE_MODEL"})
    if len(best) < n and not large:
        # the largest placeable set on the pooled model (exact: solver/pooled.py)
        pooled = pool(problem)
        most = build(pooled=pooled)
        most.m.maximize(most.placed_total())
        _write_hint(
            most.m,
            [
                (var, k in used)
                for row, used in zip(most.x, map(set, pooled.rows(best)), strict=True)
                for k, var in enumerate(row)
            ],
        )
        solver, status = run(most, "max_placed", 0.4, probing=LIGHT_PROBING_LEVEL)
        phases.append({"phase": "max_placed", "status": STATUS_NAMES.get(status, str(status))})
        if status in ok:
            rows = [[k for k, var in enumerate(row) if solver.boolean_value(var)] for row in most.x]
            found = pooled.assignment(rows)
            # as large as the hint: keep the hint, its interchangeable tasks in class order
            if len(found) > len(best):
                best = found
            else:
                same = pool(problem, interchangeable)
                best = same.assignment(same.rows(best))
            upper = min(n, int(round(solver.best_objective_bound)))
    placed_proven = len(best) >= upper
    phases.append({"phase": "placed", "placed": len(best), "of": n, "proven": placed_proven})

    # -- phase 2: the cheapest layout of that size ----------------------------------------
    choose_set = placed_proven and len(best) < n
    # runs and switches by day paths, except (auto) when the set is chosen too (with phantom
    # positions the larger model found worse layouts within the default budget) and on small
    # models (the boundary form is faster there): measured, docs/benchmarks.md
    paths = settings.run_switch_model == "day_paths" or (
        settings.run_switch_model == "auto" and not choose_set and size > PATHS_ABOVE
    )
    if choose_set:
        # any set of the proven size may be placed (phantoms carry the others' order)
        b = build(paths=paths)
        b.m.add(b.placed_total() == len(best))
    else:
        b = build(active=set(best), all_placed=True, paths=paths)
    b.objective(len(best) if choose_set else None)
    objective = b.objective_expr()
    b.m.minimize(objective)
    set_hint(b, best)
    # the soft terms relax poorly: every constraint in the LP, with cuts (level 2), except
    # when the set is chosen too, where the lighter LP found better layouts and proofs
    level = (
        settings.set_choice_linearization_level if choose_set else settings.cost_linearization_level
    )
    solver, status = run(
        b, "min_cost", 0.85, level=level, probing=LIGHT_PROBING_LEVEL if light_presolve else None
    )
    phases.append({"phase": "min_cost", "status": STATUS_NAMES.get(status, str(status))})
    if paths:
        phases[-1]["model"] = "day_paths"
    if status not in ok:
        return SolveOutcome(
            best,
            "UNKNOWN",
            None,
            None,
            placed_proven,
            None,
            phases,
            build_s,
            time.perf_counter() - solve_started,
            timings,
        )
    best = extract(b, solver)
    value = int(round(solver.objective_value))
    bound = int(round(solver.best_objective_bound))
    proven = status == cp_model.OPTIMAL and placed_proven
    if not placed_proven:  # the found set was fixed: other sets, maybe larger, not covered
        phases[-1]["restricted_to_set"] = True
        bound -= settings.weights.unplaced * max(0, upper - len(best))
    # every term is a non-negative count, and a proven placed count fixes the pending part
    bound = max(bound, settings.weights.unplaced * (n - len(best)) if placed_proven else 0)

    # -- phase 3: a unique optimum (tie-break) --------------------------------------------
    tie = None
    if status == cp_model.OPTIMAL and budget["dtime"] > 0 and budget["wall"] > 0:
        b.m.add(objective <= value)
        set_hint(b, best, solver)
        b.m.minimize(b.tie_break_expr())
        solver, status = run(
            b,
            "tie_break",
            1.0,
            cap=TIE_BREAK_SHARE * settings.max_deterministic_time,
            probing=LIGHT_PROBING_LEVEL,
        )
        phases.append({"phase": "tie_break", "status": STATUS_NAMES.get(status, str(status))})
        if status in ok:
            best = extract(b, solver)
            tie = int(round(solver.objective_value))
    return SolveOutcome(
        best,
        "OPTIMAL" if proven else "FEASIBLE",
        value,
        bound,
        placed_proven,
        tie,
        phases,
        build_s,
        time.perf_counter() - solve_started,
        timings,
    )
