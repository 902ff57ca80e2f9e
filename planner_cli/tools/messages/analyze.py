"""Texts of analyze_health / analyze_rhythm (seed-origin §2.16, §3.5); zh first, en a translation."""

MESSAGES: dict[str, dict[str, str]] = {
    "an_dimensions_invalid": {"zh": "dimensions 全部非法", "en": "all dimensions are invalid"},
    "an_state_empty": {
        "zh": "当前日程状态为空，无法分析。",
        "en": "The schedule state is empty; nothing to analyse.",
    },
    "an_problem_capacity": {
        "zh": "可用时段不足：待安排任务共需{required}个时段，窗口内仅剩{capacity}个空闲时段，缺口{gap}个。",
        "en": "Capacity short by {gap} sections: pending tasks need {required}, the window has {capacity} free.",
    },
    "an_problem_profile": {
        "zh": "{count}个任务类缺少学科画像（subject_type/difficulty_level/cognitive_intensity）：{names}。",
        "en": "{count} task classes lack a subject profile (subject_type/difficulty_level/cognitive_intensity): {names}.",
    },
    "an_problem_heavy": {
        "zh": "{day_label}高强度科目相邻：[{a}]{aname}({acat}) 与 [{b}]{bname}({bcat})。",
        "en": "{day_label}: high-intensity subjects back to back: [{a}]{aname}({acat}) and [{b}]{bname}({bcat}).",
    },
    "an_summary_swap": {
        "zh": "交换 [{a}]{aname} 与 [{b}]{bname} 的位置",
        "en": "swap the positions of [{a}]{aname} and [{b}]{bname}",
    },
    "an_summary_move": {"zh": "将 [{id}]{name} 移至{label}", "en": "move [{id}]{name} to {label}"},
    "an_summary_close": {
        "zh": "结束优化，保持当前安排",
        "en": "stop optimising and keep the current schedule",
    },
    # metric descriptions (metric_schema)
    "an_m_avg_switches": {"zh": "每天平均科目切换次数", "en": "average subject switches per day"},
    "an_m_max_switch": {"zh": "单日最多科目切换次数", "en": "most subject switches on one day"},
    "an_m_heavy_days": {
        "zh": "存在高强度科目相邻的天数",
        "en": "days with two high-intensity subjects back to back",
    },
    "an_m_fragmented": {
        "zh": "碎片化的天数（切换≥3或碎片率≥0.55）",
        "en": "fragmented days (switches ≥ 3 or fragmentation ≥ 0.55)",
    },
    "an_m_longest_run": {
        "zh": "同一科目最长连续节数",
        "en": "longest run of one subject, in sections",
    },
    "an_m_high_days": {"zh": "含高强度科目的天数", "en": "days with any high-intensity section"},
    "an_m_long_high_days": {
        "zh": "高强度连续≥4节的天数",
        "en": "days with a high-intensity run of 4 or more sections",
    },
    "an_m_compressed": {"zh": "过度集中的天数", "en": "days with an overlong block"},
    "an_m_balance": {
        "zh": "碎片化天数减过度集中天数",
        "en": "fragmented days minus compressed days",
    },
    "an_m_same_type": {
        "zh": "相邻节次同类型学科的比例",
        "en": "share of neighbouring sections with the same subject type",
    },
    "an_m_block_size": {
        "zh": "同科目连续块的平均节数",
        "en": "average length of a same-subject block, in sections",
    },
    "an_m_capacity_gap": {
        "zh": "待安排需求超出空闲容量的节数",
        "en": "sections of pending demand beyond free capacity",
    },
    "an_m_movable": {
        "zh": "可局部移动的任务数",
        "en": "tasks with at least one legal alternative position",
    },
    "an_m_swaps": {"zh": "可行的跨任务类交换数", "en": "legal cross-class swaps"},
    "an_m_missing_profile": {
        "zh": "缺少画像的任务类数",
        "en": "task classes with an incomplete profile",
    },
}
