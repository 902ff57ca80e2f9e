"""Texts shared by every tool: labels, occupancy lines, conflicts, order and lock messages."""

MESSAGES: dict[str, dict[str, str]] = {
    # labels
    "weekday": {"zh": "星期{dow}", "en": "{dow_name}"},
    "day_label": {"zh": "第{day}天({weekday})", "en": "day {day} ({weekday})"},
    "day_label_bare": {"zh": "第{day}天", "en": "day {day}"},
    "range_label": {"zh": "{day_label}第{a}-{b}节", "en": "{day_label} sections {a}-{b}"},
    "range_label_one": {"zh": "{day_label}第{a}节", "en": "{day_label} section {a}"},
    "sections": {"zh": "{a}-{b}节", "en": "sections {a}-{b}"},
    "section_one": {"zh": "{a}节", "en": "section {a}"},
    "occupant": {"zh": "[{id}]{name}({a}-{b}节)", "en": "[{id}]{name}(sections {a}-{b})"},
    "occupancy": {
        "zh": "{day_label}当前占用：{items}，占用{used}/12。",
        "en": "{day_label} now occupied: {items}; {used}/12 sections in use.",
    },
    "occupancy_empty": {
        "zh": "{day_label}当前占用：0/12。",
        "en": "{day_label} now occupied: 0/12.",
    },
    "free_hint": {"zh": "空闲时段：{runs}。", "en": "Free sections: {runs}."},
    "list_sep": {"zh": "、", "en": ", "},
    "pending_left": {"zh": "待安排任务剩余：{count}个。", "en": "Pending tasks left: {count}."},
    # failures shared by the write tools ({prefix} is the tool's failure prefix)
    "missing_arg": {
        "zh": "{prefix}缺少必填参数 {name}。",
        "en": "{prefix}missing required argument {name}.",
    },
    "invalid_arg": {
        "zh": "{prefix}参数非法：{detail}。",
        "en": "{prefix}invalid argument: {detail}.",
    },
    "task_not_found": {
        "zh": "{prefix}任务ID {id} 不存在。",
        "en": "{prefix}task ID {id} does not exist.",
    },
    "day_out_of_window": {
        "zh": "{prefix}第{day}天不在规划窗口范围内（1-{total}）。",
        "en": "{prefix}day {day} is outside the planning window (1-{total}).",
    },
    "start_below_1": {
        "zh": "{prefix}起始时段 {start} 不能小于1",
        "en": "{prefix}start section {start} must not be less than 1",
    },
    "end_above_12": {
        "zh": "{prefix}结束时段 {end} 不能大于12",
        "en": "{prefix}end section {end} must not be greater than 12",
    },
    "start_after_end": {
        "zh": "{prefix}起始时段 {start} 不能大于结束时段 {end}",
        "en": "{prefix}start section {start} must not be greater than end section {end}",
    },
    "locked": {
        "zh": "{prefix}[{id}]{name} 是固定课程，不可操作",
        "en": "{prefix}[{id}]{name} is a fixed course and cannot be changed",
    },
    "conflict": {
        "zh": "{prefix}{label}已被 [{cid}]{cname} 占用。",
        "en": "{prefix}{label} is already taken by [{cid}]{cname}.",
    },
    "conflict_locked": {
        "zh": "{prefix}{label}已被 [{cid}]{cname}（固定）占用。",
        "en": "{prefix}{label} is already taken by [{cid}]{cname} (fixed).",
    },
    "host_has_guest": {
        "zh": "{prefix}[{id}]{name} 当前嵌入了 [{gid}]{gname}，请先移除嵌入任务。",
        "en": "{prefix}[{id}]{name} currently hosts [{gid}]{gname}; unplace the embedded task first.",
    },
    "order_after": {
        "zh": "顺序约束不满足：[{id}]{name} 不能放到{label}。它必须晚于同任务类前一个任务 [{pid}]{pname} 的结束位置（{plabels}）。",
        "en": "Order constraint violated: [{id}]{name} cannot go to {label}. It must come after the end of the previous task of its class, [{pid}]{pname} ({plabels}).",
    },
    "order_before": {
        "zh": "顺序约束不满足：[{id}]{name} 不能放到{label}。它必须早于同任务类后一个任务 [{pid}]{pname} 的开始位置（{plabels}）。",
        "en": "Order constraint violated: [{id}]{name} cannot go to {label}. It must come before the start of the next task of its class, [{pid}]{pname} ({plabels}).",
    },
    "unknown_tool": {
        "zh": '工具调用失败：未知工具 "{name}"。可用工具：{names}',
        "en": 'Tool call failed: unknown tool "{name}". Available tools: {names}',
    },
    "whitelist": {
        "zh": "参数非法：{keys}。请仅使用当前工具 schema 中声明的参数字段。",
        "en": "Invalid arguments: {keys}. Use only the argument fields declared in this tool's schema.",
    },
    "whitelist_day_from": {
        "zh": "参数非法：{keys}。请仅使用当前工具 schema 中声明的参数字段；day_from/day_to 不受支持，请改用 day_start/day_end。",
        "en": "Invalid arguments: {keys}. Use only the argument fields declared in this tool's schema; day_from/day_to are not supported, use day_start/day_end.",
    },
}

EN_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
