"""Texts of the queue tools (seed-origin §2.13); zh is the seed's wording, en a translation."""

MESSAGES: dict[str, dict[str, str]] = {
    "queue_no_current_apply": {
        "zh": "队列中没有正在处理的任务。请先调用 queue_pop_head。",
        "en": "No task is being processed in the queue. Call queue_pop_head first.",
    },
    "queue_no_current_skip": {
        "zh": "没有可跳过的 current 任务，请先 queue_pop_head。",
        "en": "There is no current task to skip; call queue_pop_head first.",
    },
}
