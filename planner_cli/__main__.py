"""`python -m planner_cli`."""

from planner_cli.cli import main

main()
