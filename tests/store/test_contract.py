"""The session store contract (planning.md "Sessions"), run against SQLite and a real Redis."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from planner_cli.errors import StoreError
from planner_cli.io.loader import load_any
from planner_cli.model.state import RuntimeQueue
from planner_cli.store import DEFAULT_TTL_S, Conversation, Snapshot, StageCompaction, Turn

S0 = Path(__file__).resolve().parents[2] / "fixtures" / "states" / "s0.json"


def snapshot(note: str = "把线代挪到上午") -> Snapshot:
    original = load_any(S0).state
    state = original.clone()
    state.runtime_queue = RuntimeQueue(pending_task_ids=[5, 6], current_task_id=3, last_error="x")
    state.tasks[1].embedded_by = [4]
    state.tasks[3].embed_host = 2
    return Snapshot(
        runtime={"round": 2, "outcome": "partial", "steps": [{"id": "s1", "status": "success"}]},
        conversation=Conversation(
            turns=[
                Turn(instruction=note, plan={"goal": "mornings", "steps": []}, summary="完成"),
                Turn(instruction="周末空出来", outcome="partial"),
            ]
        ),
        state=state,
        original_state=original,
        compaction={"plan": StageCompaction(summary="第1轮：…", watermark=1)},
    )


def test_round_trip_returns_an_equal_snapshot(backend):
    snap = snapshot()
    backend.store.save("alice-1", snap)
    loaded = backend.store.load("alice-1")
    assert loaded == snap
    assert loaded.state.runtime_queue.pending_task_ids == [5, 6]
    assert loaded.state.task(2).embedded_by == [4]


def test_load_of_an_unknown_session_is_a_miss_not_an_error(backend):
    assert backend.store.load("nobody") is None


def test_save_overwrites_the_previous_snapshot(backend):
    backend.store.save("s", snapshot("first"))
    backend.store.save("s", snapshot("second"))
    loaded = backend.store.load("s")
    assert loaded.conversation.turns[0].instruction == "second"
    assert [i.session_id for i in backend.store.list()] == ["s"]


def test_delete_is_idempotent(backend):
    backend.store.save("s", snapshot())
    backend.store.delete("s")
    backend.store.delete("s")
    backend.store.delete("never-saved")
    assert backend.store.load("s") is None


def test_list_is_sorted_and_omits_deleted_sessions(backend):
    for sid in ("b", "a", "c"):
        backend.store.save(sid, snapshot())
    backend.store.delete("c")
    infos = backend.store.list()
    assert [i.session_id for i in infos] == ["a", "b"]
    assert all(i.size > 0 for i in infos)


def test_default_ttl_is_24_hours(backend):
    assert backend.store.ttl_s == DEFAULT_TTL_S == 86400
    backend.store.save("s", snapshot())
    (info,) = backend.store.list()
    assert info.expires_at is not None
    assert DEFAULT_TTL_S - 60 <= info.expires_at - info.saved_at <= DEFAULT_TTL_S + 1


def test_a_snapshot_expires_after_its_ttl(backend):
    backend.store.save("short", snapshot(), ttl_s=1)
    backend.store.save("long", snapshot(), ttl_s=600)
    assert backend.store.load("short") is not None
    backend.wait(1.2)
    deadline = time.monotonic() + 3  # Redis expiry is exact on access; bounded in any case
    while backend.store.load("short") is not None and time.monotonic() < deadline:
        backend.wait(0.1)
    assert backend.store.load("short") is None
    assert backend.store.load("long") is not None
    assert [i.session_id for i in backend.store.list()] == ["long"]


@pytest.mark.parametrize("bad", ["", "   ", "a b", "x" * 129, "../etc", "名字"])
def test_invalid_session_ids_are_store_errors(backend, bad):
    with pytest.raises(StoreError, match="invalid session id"):
        backend.store.save(bad, snapshot())
    with pytest.raises(StoreError, match="invalid session id"):
        backend.store.load(bad)


def test_session_ids_are_trimmed(backend):
    backend.store.save("  s1 ", snapshot())
    assert backend.store.load("s1") is not None


def test_a_corrupt_snapshot_is_an_error_not_a_miss(backend):
    backend.corrupt("bad", b"{not json")
    with pytest.raises(StoreError, match="'bad'.*unreadable.*planner session delete bad"):
        backend.store.load("bad")
    backend.store.delete("bad")
    assert backend.store.load("bad") is None


def test_a_snapshot_with_unknown_fields_is_an_error(backend):
    data = snapshot().model_dump(mode="json")
    data["surprise"] = 1
    import json

    payload = json.dumps(data)
    if backend.name == "redis":
        payload = json.dumps({"saved_at": 0, "snapshot": data})
    backend.corrupt("odd", payload.encode())
    with pytest.raises(StoreError, match="surprise"):
        backend.store.load("odd")


def test_a_non_positive_ttl_is_refused(backend):
    with pytest.raises(StoreError, match="TTL must be positive"):
        backend.store.save("s", snapshot(), ttl_s=0)
