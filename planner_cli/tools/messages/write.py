"""Texts of the write tools (place, move, swap, batch_move, unplace) and min_context_switch.

zh is the seed's wording (seed-origin §2.8–2.12, §2.14); en is a faithful translation.
"""

MESSAGES: dict[str, dict[str, str]] = {
    # failure prefixes
    "place_prefix": {"zh": "放置失败：", "en": "Place failed: "},
    "move_prefix": {"zh": "移动失败：", "en": "Move failed: "},
    "swap_prefix": {"zh": "交换失败：", "en": "Swap failed: "},
    "batch_move_prefix": {"zh": "批量移动失败：", "en": "Batch move failed: "},
    "unplace_prefix": {"zh": "移除失败：", "en": "Unplace failed: "},
    "mcs_prefix": {"zh": "减少上下文切换失败：", "en": "Context-switch reduction failed: "},
    # shared by the success texts: a task that landed inside a water course
    "write_embed_suffix": {
        "zh": "（嵌入宿主：[{hid}]{hname}）",
        "en": " (embedded in host [{hid}]{hname})",
    },
    # place
    "place_not_pending": {
        "zh": "{prefix}[{id}]{name} 不是待安排任务，无法放置。",
        "en": "{prefix}[{id}]{name} is not a pending task and cannot be placed.",
    },
    "place_done": {
        "zh": "已将 [{id}]{name} 预排到{label}。",
        "en": "Placed [{id}]{name} at {label} (suggested).",
    },
    "place_done_embedded": {
        "zh": "已将 [{id}]{name} 预排并嵌入到{label}（宿主：[{hid}]{hname}）。",
        "en": "Placed [{id}]{name} embedded in {label} (host: [{hid}]{hname}) (suggested).",
    },
    # move
    "move_pending": {
        "zh": "{prefix}[{id}]{name} 当前为待安排状态，请使用 place 放置。",
        "en": "{prefix}[{id}]{name} is pending; use place to place it.",
    },
    "move_existing": {
        "zh": "{prefix}[{id}]{name} 当前为已安排（existing）任务，不允许 move；仅 suggested 任务可移动。",
        "en": "{prefix}[{id}]{name} is an already scheduled (existing) task and cannot be moved; only suggested tasks can be moved.",
    },
    "move_done": {
        "zh": "已将 [{id}]{name} 从{old}移至{new}{suffix}。",
        "en": "Moved [{id}]{name} from {old} to {new}{suffix}.",
    },
    # swap
    "swap_self": {
        "zh": "{prefix}不能与自己交换。",
        "en": "{prefix}a task cannot be swapped with itself.",
    },
    "swap_not_placed": {
        "zh": "{prefix}[{id}]{name} 不是已落位任务。",
        "en": "{prefix}[{id}]{name} is not a placed task.",
    },
    "swap_duration": {
        "zh": "{prefix}[{a}]{aname} 占{x}个时段，[{b}]{bname} 占{y}个时段，时长不同无法直接交换。",
        "en": "{prefix}[{a}]{aname} takes {x} sections and [{b}]{bname} takes {y} sections; different lengths cannot be swapped directly.",
    },
    "swap_conflict": {
        "zh": "{prefix}[{id}]{name} 的新位置{label}与 [{cid}]{cname} 冲突。",
        "en": "{prefix}the new position of [{id}]{name}, {label}, conflicts with [{cid}]{cname}.",
    },
    "swap_done": {"zh": "交换完成：", "en": "Swap done:"},
    "swap_done_line": {
        "zh": "  [{id}]{name}：{old} → {new}{suffix}",
        "en": "  [{id}]{name}: {old} → {new}{suffix}",
    },
    # batch_move
    "batch_move_no_moves": {
        "zh": "{prefix}缺少 moves 参数",
        "en": "{prefix}the moves argument is missing",
    },
    "batch_move_not_array": {
        "zh": "{prefix}moves 参数必须是数组",
        "en": "{prefix}moves must be an array",
    },
    "batch_move_bad_item": {
        "zh": "{prefix}moves[{i}] 不是有效对象",
        "en": "{prefix}moves[{i}] is not a valid object",
    },
    "batch_move_bad_field": {
        "zh": "{prefix}moves[{i}].{name} 缺失或无效",
        "en": "{prefix}moves[{i}].{name} is missing or invalid",
    },
    "batch_move_empty": {
        "zh": "{prefix}移动列表为空。",
        "en": "{prefix}the move list is empty.",
    },
    "batch_move_limit": {
        "zh": "{prefix}当前最多支持 2 条移动请求。请改用队列化逐项处理（queue_pop_head + queue_apply_head_move）。",
        "en": "{prefix}at most 2 move requests are supported per call. Process the tasks one by one with the queue instead (queue_pop_head + queue_apply_head_move).",
    },
    "batch_move_duplicate": {
        "zh": "{prefix}任务ID {id} 在移动列表中出现了多次（第{i}条与第{j}条移动请求）；同一任务在一次批量移动中只能出现一次。",
        "en": "{prefix}task ID {id} appears more than once in the move list (move requests {i} and {j}); each task may appear only once per batch move.",
    },
    "batch_move_rollback": {
        "zh": "批量移动失败，全部回滚，无任何变更。\n{reason}",
        "en": "Batch move failed; everything was rolled back, nothing changed.\n{reason}",
    },
    "batch_move_item": {
        "zh": "{reason}（第{i}条移动请求）",
        "en": "{reason} (move request {i})",
    },
    "batch_move_conflict": {
        "zh": "冲突：[{id}]{name} → {label}，该位置已被 [{cid}]{cname} 占用。",
        "en": "Conflict: [{id}]{name} → {label}; that position is taken by [{cid}]{cname}.",
    },
    "batch_move_done": {
        "zh": "批量移动完成，{n}个任务全部成功：",
        "en": "Batch move done, all {n} tasks moved:",
    },
    "batch_move_done_line": {
        "zh": "  [{id}]{name} → {label}{suffix}",
        "en": "  [{id}]{name} → {label}{suffix}",
    },
    # unplace
    "unplace_already_pending": {
        "zh": "{prefix}[{id}]{name} 已经是待安排状态。",
        "en": "{prefix}[{id}]{name} is already pending.",
    },
    "unplace_no_slots": {
        "zh": "{prefix}[{id}]{name} 没有已落位的时段，无法移除。",
        "en": "{prefix}[{id}]{name} has no placed sections to remove.",
    },
    "unplace_done": {
        "zh": "已将 [{id}]{name} 从{old}移除，恢复为待安排状态。",
        "en": "Removed [{id}]{name} from {old}; it is pending again.",
    },
    "unplace_guest_released": {
        "zh": "嵌入任务 [{id}]{name} 随宿主一并恢复为待安排状态。",
        "en": "Embedded task [{id}]{name} is pending again together with its host.",
    },
    # min_context_switch
    "set_missing_ids": {
        "zh": "{prefix}缺少必填参数 task_ids（兼容单值 task_id）。",
        "en": "{prefix}missing required argument task_ids (a single task_id is also accepted).",
    },
    "set_too_few": {
        "zh": "{prefix}task_ids 至少需要 2 个有效任务 ID",
        "en": "{prefix}task_ids needs at least 2 valid task IDs",
    },
    "set_not_suggested": {
        "zh": "{prefix}[{id}]{name} 不是 suggested 任务，仅 suggested 可参与该工具",
        "en": "{prefix}[{id}]{name} is not a suggested task; only suggested tasks can take part in this tool",
    },
    "set_multi_slot": {
        "zh": "{prefix}[{id}]{name} 当前包含 {k} 段时段，暂不支持该形态",
        "en": "{prefix}[{id}]{name} currently has {k} separate blocks; this shape is not supported",
    },
    "set_conflict": {
        "zh": "{prefix}[{id}]{name} 的目标位置{label}与 [{cid}]{cname} 冲突。",
        "en": "{prefix}the target position of [{id}]{name}, {label}, conflicts with [{cid}]{cname}.",
    },
    "mcs_done": {
        "zh": "最少上下文切换重排完成：共处理 {n} 个任务，上下文切换次数 {before} -> {after}。",
        "en": "Context-switch reduction done: {n} tasks processed, context switches {before} -> {after}.",
    },
    "mcs_no_change": {
        "zh": "当前任务顺序已是较优结果，无需调整。",
        "en": "The current order is already the better arrangement; nothing to change.",
    },
    "mcs_changes": {"zh": "本次调整：", "en": "Changes:"},
    "mcs_change_line": {
        "zh": "  [{id}]{name}：{old} -> {new}{suffix}",
        "en": "  [{id}]{name}: {old} -> {new}{suffix}",
    },
    "mcs_not_allowed": {
        "zh": "已拒绝执行 min_context_switch：当前未授权打乱顺序。如需使用该工具，请先由用户明确说明“允许打乱顺序”。",
        "en": "Refused to run min_context_switch: reordering has not been allowed. To use this tool the user must first explicitly say that reordering is allowed.",
    },
}
