"""Renderings of a schedule for people: terminal week grid, Markdown, HTML, iCalendar, diff lines.

Pure functions of a ScheduleState (plus section times for HTML/ICS); the CLI writes the result.
"""
