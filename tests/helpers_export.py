"""A small valid export to derive test cases from (one change per test)."""

from __future__ import annotations

import copy
from typing import Any

BASE: dict[str, Any] = {
    "kind": "smartflow-export",
    "version": 1,
    "user_id": 1,
    "semester": {"start_date": "2026-09-07", "weeks": 20},
    "window": {"start": {"week": 5, "day_of_week": 1}, "end": {"week": 5, "day_of_week": 7}},
    "schedule_events": [
        {"id": 101, "name": "高等数学", "type": "course"},
        {"id": 102, "name": "思政", "type": "course", "can_be_embedded": True},
        {"id": 150, "name": "复习概率 第一章", "type": "task", "rel_id": 201},
    ],
    "schedules": [
        {"event_id": 101, "week": 5, "day_of_week": 1, "section_from": 1, "section_to": 2},
        {"event_id": 101, "week": 5, "day_of_week": 3, "section_from": 3, "section_to": 4},
        {
            "event_id": 102,
            "week": 5,
            "day_of_week": 2,
            "section_from": 3,
            "section_to": 4,
            "embedded_task_id": 203,
        },
        {"event_id": 102, "week": 5, "day_of_week": 4, "section_from": 3, "section_to": 4},
        {"event_id": 150, "week": 5, "day_of_week": 1, "section": 5},
        {"event_id": 150, "week": 5, "day_of_week": 1, "section": 6},
    ],
    "task_classes": [
        {
            "id": 10,
            "name": "概率论",
            "start_date": "2026-10-05",
            "end_date": "2026-10-11",
            "total_slots": 8,
            "strategy": "steady",
        },
        {
            "id": 11,
            "name": "英语",
            "start_date": "2026-10-05",
            "end_date": "2026-10-11",
            "strategy": "rapid",
        },
    ],
    "task_items": [
        {"id": 201, "category_id": 10, "order": 1, "content": "第一章", "status": "applied"},
        {"id": 202, "category_id": 10, "order": 2, "content": "第二章"},
        {
            "id": 203,
            "category_id": 10,
            "order": 3,
            "content": "第三章",
            "status": "applied",
            "embedded_time": {"week": 5, "day_of_week": 2, "section_from": 3, "section_to": 4},
        },
        {"id": 204, "category_id": 10, "order": 4, "content": "第四章", "status": "unscheduled"},
        {"id": 301, "category_id": 11, "order": 1, "content": "单词 1", "duration": 1},
    ],
}


def export(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data.update(changes)
    return data
