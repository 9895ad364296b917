"""The bounded, coalescing event channel (AC-14), as a unit."""

from __future__ import annotations

import asyncio

from acp_tui.core.model import events
from acp_tui.core.model.channel import EventChannel, EventHub
from acp_tui.core.model.events import Event


def delta(text: str, cursor: int, index: int = 0, chunk: int = 0) -> Event:
    event = events.text_delta(index, chunk, "message", text, None)
    event.session_id = "s"
    event.cursor = cursor
    return event


def structural(cursor: int) -> Event:
    event = Event("status-changed", {"status": "running"}, "s", cursor)
    return event


async def test_no_merging_below_the_threshold() -> None:
    channel = EventChannel(capacity=8)
    for n in range(3):
        channel.offer(delta(str(n), n + 1))
    assert len(channel) == 3
    assert [channel.get_nowait().data["patch"]["textDelta"]["text"] for _ in range(3)] == [  # type: ignore[union-attr]
        "0",
        "1",
        "2",
    ]


async def test_deltas_merge_near_the_limit_keeping_the_last_cursor() -> None:
    channel = EventChannel(capacity=8, merge_at=2)
    channel.offer(structural(1))
    channel.offer(delta("a", 2))
    channel.offer(delta("b", 3))
    channel.offer(delta("c", 4))
    assert len(channel) == 2
    assert channel.merged == 2
    first = channel.get_nowait()
    merged = channel.get_nowait()
    assert first is not None and first.type == "status-changed"
    assert merged is not None
    assert merged.data["patch"]["textDelta"]["text"] == "abc"
    assert merged.cursor == 4


async def test_structural_events_are_never_merged_or_dropped() -> None:
    channel = EventChannel(capacity=4, merge_at=1)
    for n in range(10):
        channel.offer(structural(n + 1))
    assert len(channel) == 10  # over capacity: the producer must wait, nothing is lost
    assert not channel.has_room()
    assert [channel.get_nowait().cursor for _ in range(10)] == list(range(1, 11))  # type: ignore[union-attr]


async def test_deltas_of_other_chunks_do_not_merge() -> None:
    channel = EventChannel(capacity=8, merge_at=0)
    channel.offer(delta("a", 1, chunk=0))
    channel.offer(delta("b", 2, chunk=1))
    channel.offer(delta("c", 3, index=1))
    assert len(channel) == 3


async def test_a_merge_in_one_channel_does_not_leak_into_another() -> None:
    hub = EventHub()
    congested = hub.attach(capacity=8, merge_at=0)
    free = hub.attach(capacity=8)
    for n, text in enumerate("xyz"):
        hub.publish(delta(text, n + 1))
    assert len(congested) == 1
    free_texts = []
    while (event := free.get_nowait()) is not None:
        free_texts.append(event.data["patch"]["textDelta"]["text"])
    assert free_texts == ["x", "y", "z"]
    merged = congested.get_nowait()
    assert merged is not None and merged.data["patch"]["textDelta"]["text"] == "xyz"


async def test_lossy_events_drop_only_when_congested() -> None:
    channel = EventChannel(capacity=4, merge_at=2)
    stderr = Event("agent-stderr", {"connectionId": "c", "text": "x"})
    channel.offer(stderr)
    channel.offer(structural(1))
    channel.offer(stderr)
    assert channel.dropped == 1
    assert len(channel) == 2


async def test_wait_for_room_blocks_until_the_consumer_takes() -> None:
    channel = EventChannel(capacity=2)
    channel.offer(structural(1))
    channel.offer(structural(2))
    waiter = asyncio.ensure_future(channel.wait_for_room())
    await asyncio.sleep(0.01)
    assert not waiter.done()
    await channel.get()
    await asyncio.wait_for(waiter, 1)


async def test_a_held_channel_holds_the_producer_until_released() -> None:
    """A consumer holds its channel while it is busy with something more
    urgent (the TUI, a key on its way to the screen): the producer waits as
    for a full channel, and goes on at the release."""
    channel = EventChannel(capacity=10)
    hub = EventHub()
    hub.adopt(channel)
    assert hub.has_room()
    channel.hold(60)
    assert not channel.has_room() and not hub.has_room()
    waiter = asyncio.ensure_future(hub.wait_for_room())
    await asyncio.sleep(0.02)
    assert not waiter.done()
    channel.offer(structural(1))  # publishing never blocks, held or not
    assert len(channel) == 1
    channel.release()
    await asyncio.wait_for(waiter, 1)
    assert channel.has_room()


async def test_a_hold_runs_out_by_itself() -> None:
    channel = EventChannel(capacity=10)
    channel.hold(0.05)
    assert not channel.has_room()
    await asyncio.wait_for(channel.wait_for_room(), 1)  # (no release: it ran out)
    assert channel.has_room()


async def test_a_channel_drained_while_held_has_room_once_the_hold_ends() -> None:
    """A hold is not fullness: a channel that was full, then drained while
    held, lets the producer on when the hold runs out (nobody sets its room
    again then)."""
    channel = EventChannel(capacity=2)
    channel.offer(structural(1))
    channel.offer(structural(2))
    channel.hold(0.05)
    waiter = asyncio.ensure_future(channel.wait_for_room())
    await channel.get()
    await channel.get()
    await asyncio.sleep(0.01)
    assert not waiter.done()  # drained, but still held
    await asyncio.wait_for(waiter, 1)


async def test_a_closed_channel_never_holds_anyone() -> None:
    channel = EventChannel(capacity=10)
    channel.hold(60)
    waiter = asyncio.ensure_future(channel.wait_for_room())
    await asyncio.sleep(0.01)
    channel.close()
    await asyncio.wait_for(waiter, 1)
    assert channel.has_room()


async def test_barrier_returns_after_the_consumer_took_everything_before_it() -> None:
    channel = EventChannel(capacity=16)
    for n in range(5):
        channel.offer(structural(n + 1))
    barrier = asyncio.ensure_future(channel.barrier())
    taken = []
    for _ in range(5):
        await asyncio.sleep(0)
        assert not barrier.done()
        taken.append((await channel.get()).cursor)
    channel.offer(structural(6))
    consumer = asyncio.ensure_future(channel.get())
    await asyncio.wait_for(barrier, 1)
    assert taken == [1, 2, 3, 4, 5]
    assert (await consumer).cursor == 6


async def test_close_lets_the_consumer_drain_then_stops_it() -> None:
    channel = EventChannel(capacity=4)
    channel.offer(structural(1))
    channel.close()
    channel.offer(structural(2))  # ignored after close
    assert (await channel.get()).cursor == 1
    try:
        await channel.get()
    except Exception as exc:
        assert type(exc).__name__ == "ChannelClosed"
    else:
        raise AssertionError("get() after close and drain must raise")


async def test_many_merges_stay_linear() -> None:
    channel = EventChannel(capacity=4, merge_at=0)
    channel.merge_limit = 10**9
    for n in range(200_000):
        channel.offer(delta("x", n + 1))
    event = channel.get_nowait()
    assert event is not None
    assert len(event.data["patch"]["textDelta"]["text"]) == 200_000
    assert event.cursor == 200_000


async def test_merged_deltas_stay_a_sane_size() -> None:
    channel = EventChannel(capacity=1000, merge_at=0)
    channel.merge_limit = 100
    for n in range(50):
        channel.offer(delta("x" * 10, n + 1))
    sizes = []
    while (event := channel.get_nowait()) is not None:
        sizes.append(len(event.data["patch"]["textDelta"]["text"]))
    assert sizes == [100] * 5


async def test_queued_text_is_bounded_whatever_the_event_count() -> None:
    channel = EventChannel(capacity=1000, merge_at=1000)
    channel.text_budget = 50
    channel.offer(delta("x" * 30, 1))
    assert channel.has_room()
    channel.offer(delta("y" * 30, 2))
    assert not channel.has_room(), "over the text budget the producer must wait"
    waiter = asyncio.ensure_future(channel.wait_for_room())
    await asyncio.sleep(0.01)
    assert not waiter.done()
    await channel.get()
    await asyncio.wait_for(waiter, 1)


def test_a_surface_channel_lags_and_says_where_each_session_stopped() -> None:
    from acp_tui.core.model.surface_channel import SurfaceChannel

    channel = SurfaceChannel(capacity=8, text_budget=1000)
    channel.follow("s1", 0)
    channel.offer(Event("status-changed", {"status": "running"}, "s1", 1))
    taken = channel.get_nowait()
    assert taken is not None and taken.cursor == 1
    for cursor in range(2, 12):  # structural events: never merged
        channel.offer(Event("plan-updated", {"entries": []}, "s1", cursor))
    channel.offer(Event("plan-updated", {"entries": []}, "s2", 1))  # not followed: not taken
    left = list(iter(channel.get_nowait, None))
    assert [e.type for e in left] == ["resync"], "what it held of s1 was dropped"
    assert left[0].data == {"sessionId": "s1", "afterCursor": 1, "reason": "lagged"}
    assert "s1" not in channel.sessions, "no event of s1 after the gap"
    channel.offer(Event("plan-updated", {"entries": []}, "s1", 12))
    assert channel.get_nowait() is None


def test_a_replay_bigger_than_half_a_surface_channel_is_a_snapshot_instead() -> None:
    from acp_tui.core.model.surface_channel import SurfaceChannel

    channel = SurfaceChannel(capacity=8, text_budget=1000)
    small = [Event("plan-updated", {}, "s1", n) for n in range(1, 4)]
    assert not channel.too_much(small)
    assert channel.too_much([*small, *small])
    wordy = Event("entry-updated", {"index": 0, "patch": {}}, "s1", 1)
    wordy.text_size = 600
    assert channel.too_much([wordy])
