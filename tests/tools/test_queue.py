"""Queue tools: seed-origin §6 scenario 14 (lifecycle) and the bookkeeping rules of §2.13."""

from __future__ import annotations

import json

from planner_cli.model.state import RuntimeQueue


def as_json(result):
    return json.loads(result.text)


def queued(state, ids, current=0):
    new = state.clone()
    new.runtime_queue = RuntimeQueue(pending_task_ids=list(ids), current_task_id=current)
    return new


def test_queue_lifecycle(s0, calls):
    result = calls.ok("query_target_tasks", s0, {})
    data = as_json(result)
    assert [item["task_id"] for item in data["items"]] == [3, 5, 6]
    assert data["enqueued"] == 3
    state = result.state

    popped = calls.ok("queue_pop_head", state)
    assert as_json(popped) == {
        "tool": "queue_pop_head",
        "has_head": True,
        "pending_count": 2,
        "completed_count": 0,
        "skipped_count": 0,
        "current": {
            "task_id": 3,
            "name": "线代1",
            "category": "线性代数",
            "status": "suggested",
            "duration": 2,
            "task_class_id": 7,
            "slots": [{"day": 1, "week": 12, "day_of_week": 1, "slot_start": 5, "slot_end": 6}],
        },
    }
    state = popped.state

    before = calls.schedule_part(state)
    failed = calls.call("queue_apply_head_move", state, {"new_day": 1, "new_slot_start": 1})
    assert not failed.ok
    out = as_json(failed)
    assert out == {
        "tool": "queue_apply_head_move",
        "success": False,
        "task_id": 3,
        "current_attempt": 1,
        "pending_count": 2,
        "completed_count": 0,
        "skipped_count": 0,
        "result": (
            "移动失败：第1天(星期1)第1-2节已被 [1]高等数学 占用。\n"
            "第1天(星期1)当前占用：[1]高等数学(1-2节) [3]线代1(5-6节)，占用4/12。\n"
            "空闲时段：3-4节、7-12节。"
        ),
    }
    # only the queue bookkeeping changed
    assert calls.schedule_part(failed.state) == before
    assert failed.state.runtime_queue.current_attempts == 1
    assert failed.state.runtime_queue.last_error == out["result"]
    state = failed.state

    status = as_json(calls.ok("queue_status", state))
    assert status["current_task_id"] == 3
    assert status["current_attempt"] == 1
    assert status["last_error"] == out["result"]
    assert status["next_task_ids"] == [5, 6]
    assert status["current"]["task_id"] == 3
    assert (status["pending_count"], status["completed_count"], status["skipped_count"]) == (
        2,
        0,
        0,
    )

    skipped = calls.ok("queue_skip_head", state, {"reason": "放不下"})
    assert as_json(skipped) == {
        "tool": "queue_skip_head",
        "success": True,
        "skipped_task_id": 3,
        "pending_count": 2,
        "skipped_count": 1,
        "reason": "放不下",
    }
    state = skipped.state
    assert state.runtime_queue.current_task_id == 0
    assert state.runtime_queue.last_error == ""

    text = calls.fails("queue_apply_head_move", state, {"new_day": 1, "new_slot_start": 1})
    assert json.loads(text)["result"] == "队列中没有正在处理的任务。请先调用 queue_pop_head。"

    again = calls.ok("query_target_tasks", state, {})
    assert as_json(again)["enqueued"] == 0
    assert again.state.runtime_queue.pending_task_ids == [5, 6]


def test_apply_success_moves_and_completes(s0, calls):
    state = calls.ok("queue_pop_head", queued(s0, [6, 5])).state
    result = calls.ok("queue_apply_head_move", state, {"new_day": 5, "new_slot_start": 9})
    out = as_json(result)
    assert out["success"] is True and out["task_id"] == 6
    assert out["current_attempt"] == 0
    assert (out["pending_count"], out["completed_count"], out["skipped_count"]) == (1, 1, 0)
    assert out["result"].startswith("已将 [6]英语1 从第4天(星期4)第1-2节移至第5天(星期5)第9-10节。")
    assert [s.key() for s in result.state.task(6).slots] == [(5, 9, 10)]
    assert result.changed == [6]
    queue = result.state.runtime_queue
    assert queue.completed_task_ids == [6] and queue.current_task_id == 0
    # the next pop takes the next head
    assert as_json(calls.ok("queue_pop_head", result.state))["current"]["task_id"] == 5


def test_apply_failures_accumulate_attempts(s0, calls):
    state = calls.ok("queue_pop_head", queued(s0, [6])).state
    for attempt in (1, 2, 3):
        result = calls.call("queue_apply_head_move", state, {"new_day": 9, "new_slot_start": 1})
        assert not result.ok
        assert as_json(result)["current_attempt"] == attempt
        assert calls.schedule_part(result.state) == calls.schedule_part(s0)
        state = result.state
    assert state.runtime_queue.current_task_id == 6  # no automatic skip
    assert state.runtime_queue.last_error == "移动失败：第9天不在规划窗口范围内（1-7）。"
    # a later success clears the error and the attempts
    done = calls.ok("queue_apply_head_move", state, {"new_day": 5, "new_slot_start": 1}).state
    assert done.runtime_queue.current_attempts == 0 and done.runtime_queue.last_error == ""


def test_apply_uses_move_rules_on_the_current_task(s0, calls):
    # the current task is an existing course: move refuses it, the queue records the attempt
    state = calls.ok("queue_pop_head", queued(s0, [1])).state
    result = calls.call("queue_apply_head_move", state, {"new_day": 5, "new_slot_start": 1})
    assert not result.ok
    assert as_json(result)["result"] == (
        "移动失败：[1]高等数学 当前为已安排（existing）任务，不允许 move；仅 suggested 任务可移动。"
    )


def test_apply_without_queue(s0, calls):
    text = calls.fails("queue_apply_head_move", s0, {"new_day": 5, "new_slot_start": 1})
    assert json.loads(text) == {
        "tool": "queue_apply_head_move",
        "success": False,
        "pending_count": 0,
        "completed_count": 0,
        "skipped_count": 0,
        "result": "队列中没有正在处理的任务。请先调用 queue_pop_head。",
    }
    text = calls.fails("queue_apply_head_move", s0, {"new_day": 5, "new_slot_start": 1}, lang="en")
    assert (
        json.loads(text)["result"]
        == "No task is being processed in the queue. Call queue_pop_head first."
    )


def test_pop_returns_the_current_task_again(s0, calls):
    state = calls.ok("queue_pop_head", queued(s0, [3, 5])).state
    again = calls.ok("queue_pop_head", state)
    assert as_json(again)["current"]["task_id"] == 3
    assert as_json(again)["pending_count"] == 1
    assert calls.snapshot(again.state) == calls.snapshot(state)


def test_pop_shows_last_error_of_the_current_task(s0, calls):
    state = calls.ok("queue_pop_head", queued(s0, [6])).state
    state = calls.call("queue_apply_head_move", state, {"new_day": 9, "new_slot_start": 1}).state
    assert as_json(calls.ok("queue_pop_head", state))["last_error"] == (
        "移动失败：第9天不在规划窗口范围内（1-7）。"
    )


def test_pop_on_empty_queue(s0, calls):
    result = calls.ok("queue_pop_head", s0)
    assert as_json(result) == {
        "tool": "queue_pop_head",
        "has_head": False,
        "pending_count": 0,
        "completed_count": 0,
        "skipped_count": 0,
    }
    assert result.state is s0  # no queue is created for nothing


def test_pop_drops_ids_of_tasks_that_no_longer_exist(s0, calls):
    result = calls.ok("queue_pop_head", queued(s0, [42, 5]))
    assert as_json(result)["current"]["task_id"] == 5
    assert result.state.runtime_queue.pending_task_ids == []


def test_skip_without_current(s0, calls):
    text = calls.fails("queue_skip_head", queued(s0, [3]))
    assert json.loads(text) == {
        "tool": "queue_skip_head",
        "success": False,
        "reason": "没有可跳过的 current 任务，请先 queue_pop_head。",
    }
    text = calls.fails("queue_skip_head", s0, lang="en")
    assert (
        json.loads(text)["reason"] == "There is no current task to skip; call queue_pop_head first."
    )


def test_skip_never_changes_the_schedule(s0, calls):
    state = calls.ok("queue_pop_head", queued(s0, [3])).state
    skipped = calls.ok("queue_skip_head", state)
    assert calls.schedule_part(skipped.state) == calls.schedule_part(s0)
    assert as_json(skipped)["reason"] == ""


def test_status_without_queue(s0, calls):
    result = calls.ok("queue_status", s0)
    assert as_json(result) == {
        "tool": "queue_status",
        "pending_count": 0,
        "completed_count": 0,
        "skipped_count": 0,
        "current_task_id": 0,
        "current_attempt": 0,
        "last_error": "",
        "next_task_ids": [],
    }
    assert result.state is s0


def test_status_shows_at_most_five_next_ids(s0, calls):
    state = queued(s0, [3, 5, 6, 1, 2, 4, 7])
    assert as_json(calls.ok("queue_status", state))["next_task_ids"] == [3, 5, 6, 1, 2]


def test_queue_json_survives_quotes_in_messages(builders, calls):
    b = builders
    state = b.make_state([b.item(1, 'say "hi"', 9, 0, slots=[(1, 1, 2)])])
    state = calls.ok("queue_pop_head", queued(state, [1])).state
    result = calls.call("queue_apply_head_move", state, {"new_day": 9, "new_slot_start": 1})
    assert json.loads(result.text)["task_id"] == 1
    assert json.loads(calls.ok("queue_status", result.state).text)["current"]["name"] == 'say "hi"'


def test_apply_checks_the_current_task_before_its_arguments(s0, calls):
    """seed-origin §2.13: "no current task" comes first, even when arguments are missing."""
    text = calls.fails("queue_apply_head_move", queued(s0, [6]), {})
    out = json.loads(text)
    assert out["result"] == "队列中没有正在处理的任务。请先调用 queue_pop_head。"
    assert "error" not in out


def test_apply_missing_argument_is_a_result_and_no_attempt(s0, calls):
    state = calls.ok("queue_pop_head", queued(s0, [6])).state
    for args, name in (({"new_slot_start": 9}, "new_day"), ({"new_day": 5}, "new_slot_start")):
        result = calls.call("queue_apply_head_move", state, args)
        assert not result.ok
        assert as_json(result) == {
            "tool": "queue_apply_head_move",
            "success": False,
            "task_id": 6,
            "current_attempt": 0,
            "pending_count": 0,
            "completed_count": 0,
            "skipped_count": 0,
            "result": f"缺少必填参数 {name}。",
        }
        assert result.state.runtime_queue.current_attempts == 0
        assert calls.schedule_part(result.state) == calls.schedule_part(s0)
