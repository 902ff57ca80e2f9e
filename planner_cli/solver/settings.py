"""Solver settings: the typed form of configs/solver.yaml (weights, limits, caps, determinism).

The defaults here equal the shipped configs/solver.yaml (a test keeps them equal), so the scorer
and the solver work without reading files; `SolverSettings.from_dict` accepts the merged
`settings["solver"]` section (unknown keys are an error, naming the key).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planner_cli.errors import ConfigError


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Weights(_Model):
    unplaced: int = Field(default=100000, ge=0)
    steady_spread: int = Field(default=3, ge=0)
    rapid_finish: int = Field(default=2, ge=0)
    late_section: int = Field(default=1, ge=0)
    day_over_mean: int = Field(default=2, ge=0)
    long_run: int = Field(default=4, ge=0)
    context_switch: int = Field(default=1, ge=0)


class Caps(_Model):
    max_study_sections_per_day: int | None = Field(default=None, ge=0, le=12)
    max_class_sections_per_day: int | None = Field(default=None, ge=0, le=12)


def _late_default() -> dict[str, int]:
    return {"quantitative": 3, "mixed": 1, "reading": 1, "memory": 0, "high_intensity": 3}


class SolverSettings(_Model):
    time_limit_s: float = Field(default=10.0, gt=0)
    max_deterministic_time: float = Field(default=3.0, gt=0)
    random_seed: int = Field(default=0, ge=0)
    num_workers: int = Field(default=1, ge=1, le=64)
    align_pairs: bool = True
    log_search_progress: bool = False
    cost_linearization_level: int = Field(default=2, ge=0, le=2)
    set_choice_linearization_level: int = Field(default=1, ge=0, le=2)
    run_switch_model: Literal["auto", "day_paths", "boundaries"] = "auto"
    caps: Caps = Field(default_factory=lambda: Caps())
    max_consecutive_study_sections: int = Field(default=4, ge=1, le=12)
    late_section_from: int = Field(default=9, ge=1, le=13)
    late_penalty: dict[str, int] = Field(default_factory=_late_default)
    stability: int = Field(default=20, ge=0)
    weights: Weights = Field(default_factory=lambda: Weights())

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None, **overrides: Any) -> SolverSettings:
        """Settings from the merged `solver` section plus non-None keyword overrides."""
        merged = dict(data or {})
        merged.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls.model_validate(merged)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ConfigError(f"solver settings: {where}: {first['msg']}") from None

    def late_weight(self, subject_type: str, high_intensity: bool) -> int:
        """Penalty per late section for a class of this profile."""
        value = self.late_penalty.get(subject_type.strip().lower(), 0)
        if high_intensity:
            value = max(value, self.late_penalty.get("high_intensity", 0))
        return value


def coerce_settings(settings: SolverSettings | dict[str, Any] | None) -> SolverSettings:
    if isinstance(settings, SolverSettings):
        return settings
    return SolverSettings.from_dict(settings)
