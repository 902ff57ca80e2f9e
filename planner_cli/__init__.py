"""planner: a Plan-and-Solve batch optimizer for student timetables."""

__version__ = "0.1.0"
