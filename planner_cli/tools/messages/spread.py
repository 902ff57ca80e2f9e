"""Texts of spread_even (seed-origin §2.15): failure prefix 均匀化调整失败：, result lines."""

MESSAGES: dict[str, dict[str, str]] = {
    "spread_prefix": {"zh": "均匀化调整失败：", "en": "Even spreading failed: "},
    "spread_short": {
        "zh": "{prefix}跨度={span} 可用坑位不足：required={required}, got={got}。",
        "en": "{prefix}span={span}: not enough candidate slots: required={required}, got={got}.",
    },
    "spread_infeasible": {
        "zh": "{prefix}候选坑位中找不到同时满足不冲突与同任务类顺序约束的方案。",
        "en": "{prefix}no assignment of the candidate slots avoids conflicts and keeps the class order.",
    },
    "spread_done": {
        "zh": "均匀化调整完成：共处理 {n} 个任务，候选坑位 {m} 个。",
        "en": "Even spreading done: {n} tasks processed, {m} candidate slots.",
    },
    "spread_no_change": {
        "zh": "规划结果与当前落位一致，无需调整。",
        "en": "The plan matches the current positions; nothing to change.",
    },
    "spread_changes": {"zh": "本次调整：", "en": "Changes:"},
    "spread_change_line": {
        "zh": "  [{id}]{name}：{old} -> {new}{suffix}",
        "en": "  [{id}]{name}: {old} -> {new}{suffix}",
    },
}
