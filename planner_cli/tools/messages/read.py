"""Texts of the read tools (get_overview, query_range, query_available_slots, query_target_tasks,
list_tasks, get_task_info); zh is the seed's wording (seed-origin §2.1–2.6), en a translation."""

MESSAGES: dict[str, dict[str, str]] = {
    "query_prefix": {"zh": "查询失败：", "en": "Query failed: "},
    # get_overview
    "ov_header": {
        "zh": "规划窗口共{days}天，每天12个时段，总计{total}个时段。",
        "en": "The planning window has {days} days, 12 sections a day, {total} sections in total.",
    },
    "ov_totals": {
        "zh": "当前已占用{occupied}个，空闲{free}个。课程占位条目{courses}个（仅用于占位统计）；任务条目：已安排(existing){existing}个、已预排(suggested){suggested}个、待安排(pending){pending}个。",
        "en": "{occupied} are occupied, {free} free. Course placeholders: {courses} (counted for occupancy only); task entries: existing {existing}, suggested {suggested}, pending {pending}.",
    },
    "ov_days_title": {"zh": "每日概况：", "en": "Per day:"},
    "ov_day": {
        "zh": "{day_label}：总占{total}/12（课程占{course}/12，任务占{task}/12） — 任务：{tasks}",
        "en": "{day_label}: {total}/12 in use (courses {course}/12, tasks {task}/12) — tasks: {tasks}",
    },
    "ov_day_task": {
        "zh": "[{id}]{name}({status},{a}-{b}节)",
        "en": "[{id}]{name}({status}, sections {a}-{b})",
    },
    "ov_none": {"zh": "无", "en": "none"},
    "ov_list_title": {
        "zh": "任务清单（全量，已过滤课程）：",
        "en": "Task list (complete, courses left out):",
    },
    "ov_list_empty": {"zh": "无任务条目。", "en": "No task entries."},
    "ov_item_head": {
        "zh": "[{id}]{name} | 状态:{status} | 类别:{category}",
        "en": "[{id}]{name} | status: {status} | category: {category}",
    },
    "ov_item_class": {"zh": " | task_class_id:{class_id}", "en": " | task_class_id: {class_id}"},
    "ov_item_need": {"zh": " | 需{n}个连续时段", "en": " | needs {n} consecutive sections"},
    "ov_item_slots": {"zh": " | 时段:{slots}", "en": " | slots: {slots}"},
    "slot_short": {"zh": "{day_label}({a}-{b}节)", "en": "{day_label} sections {a}-{b}"},
    "ov_classes_title": {
        "zh": "任务类约束（排课时请遵守）：",
        "en": "Task class constraints (respect them when scheduling):",
    },
    "ov_class": {
        "zh": "[{id}]{name}：策略={strategy}，总时段预算={budget}，允许嵌入水课={filler}",
        "en": "[{id}]{name}: strategy={strategy}, section budget={budget}, may use filler courses={filler}",
    },
    "ov_class_excluded_slots": {"zh": "，排除时段={blocks}", "en": ", excluded blocks={blocks}"},
    "ov_class_excluded_days": {"zh": "，排除星期={days}", "en": ", excluded weekdays={days}"},
    "strategy_steady": {"zh": "均匀分布", "en": "steady (spread evenly)"},
    "strategy_rapid": {"zh": "集中突击", "en": "rapid (as early as possible)"},
    "strategy_default": {"zh": "默认", "en": "default"},
    "yes": {"zh": "是", "en": "yes"},
    "no": {"zh": "否", "en": "no"},
    # query_range
    "qr_day_title": {"zh": "{day_label} 全天：", "en": "{day_label}, whole day:"},
    "qr_range_title": {"zh": "{label}：", "en": "{label}:"},
    "qr_pair": {"zh": "第{a}-{b}节：{who}", "en": "Sections {a}-{b}: {who}"},
    "qr_section": {"zh": "第{s}节：{who}", "en": "Section {s}: {who}"},
    "qr_free": {"zh": "空", "en": "free"},
    "qr_who": {"zh": "[{id}]{name}", "en": "[{id}]{name}"},
    "qr_who_locked": {"zh": "[{id}]{name}（固定）", "en": "[{id}]{name} (fixed)"},
    "qr_who_embed": {"zh": "[{id}]{name}（可嵌入）", "en": "[{id}]{name} (embeddable)"},
    "qr_runs": {"zh": "连续空闲区：{runs}", "en": "Free runs: {runs}"},
    "qr_run": {"zh": "第{a}-{b}节({n}时段)", "en": "sections {a}-{b} ({n} sections)"},
    "qr_run_one": {"zh": "第{a}节(1时段)", "en": "section {a} (1 section)"},
    "qr_embed": {"zh": "可嵌入：{items}", "en": "Embedding: {items}"},
    "qr_embed_sep": {"zh": "；", "en": "; "},
    "qr_embed_free": {
        "zh": "第{a}-{b}节已有[{id}]{name}（可嵌入）",
        "en": "sections {a}-{b} hold [{id}]{name} (embeddable)",
    },
    "qr_embed_taken": {
        "zh": "第{a}-{b}节已有[{id}]{name}（已嵌入[{gid}]{gname}）",
        "en": "sections {a}-{b} hold [{id}]{name} (already hosts [{gid}]{gname})",
    },
    "qr_embed_locked": {
        "zh": "第{a}-{b}节已有[{id}]{name}（固定，不可嵌入）",
        "en": "sections {a}-{b} hold [{id}]{name} (fixed, not embeddable)",
    },
    "qr_all_free": {
        "zh": "该范围{n}个时段全部空闲。",
        "en": "All {n} sections of this range are free.",
    },
    "qr_some_free": {
        "zh": "该范围{n}个时段中，{free}个空闲，{used}个被占用。",
        "en": "Of the {n} sections of this range, {free} are free and {used} occupied.",
    },
    # query_available_slots / spread_even filters (JSON errors: no prefix)
    "span_invalid": {
        "zh": "span={span} 非法，必须在 1~12",
        "en": "span={span} is invalid; it must be within 1~12",
    },
    "exact_incomplete": {
        "zh": "精确节次查询需要同时提供 section_from 和 section_to",
        "en": "an exact section query needs both section_from and section_to",
    },
    "exact_invalid": {
        "zh": "精确节次区间非法：{a}-{b}",
        "en": "invalid exact section range: {a}-{b}",
    },
    "day_and_range": {
        "zh": "day 与 day_start/day_end 不能同时传入",
        "en": "day and day_start/day_end cannot be given together",
    },
    "day_start_after_end": {
        "zh": "day_start={start} 不能大于 day_end={end}",
        "en": "day_start={start} must not be greater than day_end={end}",
    },
    # query_target_tasks / list_tasks
    "status_invalid": {
        "zh": 'status="{status}" 非法，仅支持 all/existing/suggested/pending',
        "en": 'status="{status}" is invalid; only all/existing/suggested/pending are supported',
    },
    "status_multi": {
        "zh": '{prefix}status 只支持单值 all/existing/suggested/pending，不支持 "{status}"。如需同时查看 existing+suggested，请使用 all',
        "en": '{prefix}status takes a single value all/existing/suggested/pending, not "{status}". To see existing+suggested together, use all',
    },
    "lt_pending_title": {"zh": "待安排任务共{n}个：", "en": "{n} pending tasks:"},
    "lt_suggested_title": {"zh": "已预排任务共{n}个：", "en": "{n} suggested tasks:"},
    "lt_existing_title": {"zh": "已安排任务共{n}个：", "en": "{n} existing tasks:"},
    "lt_pending_line": {
        "zh": "[{id}]{name} — 需{n}个连续时段，类别：{category}",
        "en": "[{id}]{name} — needs {n} consecutive sections, category: {category}",
    },
    "lt_suggested_line": {
        "zh": "[{id}]{name} — 已预排至 {slots}，类别：{category}",
        "en": "[{id}]{name} — suggested at {slots}, category: {category}",
    },
    "lt_existing_line": {
        "zh": "  [{id}]{name}({tags}) — {slots}",
        "en": "  [{id}]{name}({tags}) — {slots}",
    },
    "lt_tag_sep": {"zh": ",", "en": ", "},
    "lt_fixed": {"zh": "固定", "en": "fixed"},
    "lt_embeddable": {"zh": "可嵌入", "en": "embeddable"},
    "lt_all_header": {
        "zh": "共{total}个任务，已安排(existing){existing}个，已预排(suggested){suggested}个，待安排(pending){pending}个。",
        "en": "{total} tasks: existing {existing}, suggested {suggested}, pending {pending}.",
    },
    "lt_all_existing": {"zh": "已安排(existing)：", "en": "Existing:"},
    "lt_all_suggested": {"zh": "已预排(suggested)：", "en": "Suggested:"},
    "lt_all_pending": {"zh": "待安排(pending)：", "en": "Pending:"},
    "lt_all_suggested_line": {
        "zh": "  [{id}]{name}({category}) — {slots}",
        "en": "  [{id}]{name}({category}) — {slots}",
    },
    "lt_all_pending_line": {
        "zh": "  [{id}]{name}({category}) — 需{n}个连续时段",
        "en": "  [{id}]{name}({category}) — needs {n} consecutive sections",
    },
    "lt_bucket_all": {"zh": "任务", "en": "tasks"},
    "lt_bucket_pending": {"zh": "待安排(pending)任务", "en": "pending tasks"},
    "lt_bucket_suggested": {"zh": "已预排(suggested)任务", "en": "suggested tasks"},
    "lt_bucket_existing": {"zh": "已安排(existing)任务", "en": "existing tasks"},
    "lt_empty": {
        "zh": "查询结果为空：当前没有{bucket}。",
        "en": "Empty result: there are no {bucket}.",
    },
    "lt_empty_category": {
        "zh": '查询结果为空：category="{category}" 下没有{bucket}。',
        "en": 'Empty result: there are no {bucket} in category="{category}".',
    },
    "lt_category_ids_hint": {
        "zh": "category 参数按任务类名称匹配，不支持 task_class_ids 列表。",
        "en": " The category argument matches a task class name; lists of task_class_ids are not supported.",
    },
    # get_task_info
    "ti_head": {"zh": "[{id}]{name}", "en": "[{id}]{name}"},
    "ti_kind": {
        "zh": "类别：{category} | 状态：{status}",
        "en": "Category: {category} | status: {status}",
    },
    "ti_status_pending": {"zh": "待安排(pending)", "en": "pending"},
    "ti_status_suggested": {"zh": "已预排(suggested)", "en": "suggested"},
    "ti_status_locked": {"zh": "已安排(existing,固定)", "en": "existing (fixed)"},
    "ti_status_existing": {"zh": "已安排(existing)", "en": "existing"},
    "ti_source_event": {"zh": "来源：课程表", "en": "Source: timetable"},
    "ti_source_item": {"zh": "来源：任务", "en": "Source: task"},
    "ti_embeddable": {
        "zh": "可嵌入：是（允许在此时段嵌入其他任务）",
        "en": "Embeddable: yes (other tasks may be embedded in its sections)",
    },
    "ti_slots": {"zh": "占用时段：", "en": "Occupied sections:"},
    "ti_slots_none": {"zh": "占用时段：无", "en": "Occupied sections: none"},
    "ti_slot_line": {"zh": "  {label}", "en": "  {label}"},
    "ti_need": {"zh": "需要时段：{n}个连续时段", "en": "Needs: {n} consecutive sections"},
    "ti_original_need": {
        "zh": "原始需求：{n}个连续时段",
        "en": "Original need: {n} consecutive sections",
    },
    "ti_guests_none": {"zh": "当前嵌入任务：无", "en": "Embedded tasks: none"},
    "ti_guests": {"zh": "当前嵌入任务：{items}", "en": "Embedded tasks: {items}"},
    "ti_guest_item": {"zh": "[{id}]{name}（{label}）", "en": "[{id}]{name} ({label})"},
    "ti_guest_sep": {"zh": "；", "en": "; "},
    "ti_host": {"zh": "嵌入宿主：[{id}]{name}", "en": "Embedded in: [{id}]{name}"},
}
