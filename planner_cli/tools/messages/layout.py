"""Texts of the rough_layout tool and of the reasons a task stays pending after a layout."""

MESSAGES: dict[str, dict[str, str]] = {
    "layout_prefix": {"zh": "粗排失败：", "en": "Rough layout failed: "},
    "layout_done": {
        "zh": "粗排完成：共 {total} 个任务，已落位 {placed} 个，未落位 {pending} 个（求解器 {solver}，状态 {status}，目标值 {objective}）。",
        "en": "Rough layout done: {total} tasks, {placed} placed, {pending} left pending (solver {solver}, status {status}, objective {objective}).",
    },
    "layout_nothing": {
        "zh": "粗排完成：范围内没有需要安排的任务。",
        "en": "Rough layout done: nothing in scope to lay out.",
    },
    "layout_placed_line": {"zh": "  [{id}]{name} -> {label}", "en": "  [{id}]{name} -> {label}"},
    "layout_placed_head": {"zh": "本次落位：", "en": "Placed:"},
    "layout_pending_head": {"zh": "未落位任务及原因：", "en": "Left pending, and why:"},
    "layout_pending_line": {"zh": "  [{id}]{name}：{reason}", "en": "  [{id}]{name}: {reason}"},
    "layout_bad_task": {"zh": "{prefix}{detail}", "en": "{prefix}{detail}"},
    "reason_window": {
        "zh": "任务类时间窗（{start} 至 {end}）与规划窗口没有可用的交集日期",
        "en": "the class window ({start} to {end}) has no usable day in the planning window",
    },
    "reason_window_now": {
        "zh": "任务类时间窗（{start} 至 {end}）在当前时刻之后没有可用的日期",
        "en": "the class window ({start} to {end}) has no usable day after now",
    },
    "reason_exclusions": {
        "zh": "排除的节次/星期（excluded_slots、excluded_days_of_week）使任务类时间窗内没有连续 {duration} 节的位置",
        "en": "the excluded blocks and weekdays (excluded_slots, excluded_days_of_week) leave no {duration}-section block in the class window",
    },
    "reason_occupied": {
        "zh": "截至任务类结束日期 {end}，所有连续 {duration} 节的位置都已被课程或其他任务占用",
        "en": "every {duration}-section block up to the class end date {end} is taken by courses or other tasks",
    },
    "reason_capacity": {
        "zh": "容量不足：截至任务类结束日期 {end}，可用的 {count} 个连续 {duration} 节位置已被本次安排的其他任务占满",
        "en": "capacity: the {count} free {duration}-section blocks up to the class end date {end} went to other tasks of this layout",
    },
    "reason_order": {
        "zh": "顺序约束：在同任务类前一个已落位任务 {before} 与后一个已落位任务 {after} 之间没有空闲位置",
        "en": "order: no free block between the placed siblings {before} (before) and {after} (after)",
    },
    "reason_caps": {
        "zh": "每日学习节数上限（caps）已满",
        "en": "the daily study caps are reached",
    },
    "reason_search": {
        "zh": "求解在时间限制内未找到包含该任务的方案（可提高 --time-limit）",
        "en": "the search found no layout including it within the time limit (raise --time-limit)",
    },
    "reason_manual": {
        "zh": "任务类为手动模式（mode: manual），不参与自动粗排",
        "en": "the class is in manual mode (mode: manual) and is not laid out automatically",
    },
}
