"""The one exception tree of planner; every error maps to a stable exit code (spec/cli.md).

PlannerError                      exit 1 unless stated
├── InputError                    unreadable or invalid file: one `error: FILE: field: message` line per problem
├── ConfigError                   bad settings
├── UsageError                    wrong options (exit 2)
├── StaleError                    `apply` refused a preview whose input hash differs (exit 5)
├── LockError                     `batch` could not take its lock (exit 75)
├── StoreError                    the session store failed (unreachable, corrupt snapshot)
└── LLMError                      the LLM endpoint is unusable (the engine turns it into a fallback)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One validation problem: a dotted field path (`schedules[3].section`) and a message."""

    path: str
    message: str

    def render(self, file: str) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"error: {file}: {where}{self.message}"


class PlannerError(Exception):
    exit_code = 1

    def lines(self) -> list[str]:
        return [f"error: {self}"]


class InputError(PlannerError):
    def __init__(self, file: str, problems: list[Problem]) -> None:
        self.file = file
        self.problems = problems
        super().__init__("; ".join(p.render(file) for p in problems))

    def lines(self) -> list[str]:
        return [p.render(self.file) for p in self.problems]


class ConfigError(PlannerError):
    pass


class UsageError(PlannerError):
    exit_code = 2


class StaleError(PlannerError):
    exit_code = 5


class LockError(PlannerError):
    exit_code = 75


class StoreError(PlannerError):
    pass


class LLMError(PlannerError):
    exit_code = 4
