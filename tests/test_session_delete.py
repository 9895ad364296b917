"""Host.delete_session and Host.logout against the scripted agent, with a
real local history in a tmp dir (the headless tests drive the same through
the protocol)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from acp_tui.core.errors import HostError
from acp_tui.core.host import Host
from acp_tui.core.storage.history_store import HistoryStore
from tests.fake_agents import agent_spec


@pytest.fixture
def store(tmp_path: Path) -> HistoryStore:
    return HistoryStore(tmp_path / "history")


@pytest.fixture
async def history_host(store: HistoryStore) -> AsyncIterator[Host]:
    host = Host(history=store)
    try:
        yield host
    finally:
        await host.shutdown()


async def test_deleting_forgets_the_agents_session_and_its_transcript(
    history_host: Host, store: HistoryStore, tmp_path: Path
) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    spec = agent_spec(ACP_FAKE_STATE_DIR=str(state), ACP_FAKE_DELETE="1")
    connection, _ = await history_host.open_connection(spec, tmp_path)
    session = await history_host.create_session(connection.connection_id)
    await history_host.prompt(session.session_id, [{"type": "text", "text": "echo gone soon"}])
    agent_id = session.agent_session_id
    assert store.stored(agent_id) is not None
    with pytest.raises(HostError) as refused:
        await history_host.delete_session(connection.connection_id, agent_id)
    assert refused.value.code == "invalid_params"  # it is open
    await history_host.close_session(session.session_id)
    await history_host.delete_session(connection.connection_id, agent_id)
    assert store.stored(agent_id) is None and store.sessions() == []
    assert await history_host.list_sessions(connection.connection_id) == []
    assert not (state / f"{agent_id}.jsonl").exists()


async def test_an_agent_that_cannot_delete_is_not_asked(
    history_host: Host, store: HistoryStore, tmp_path: Path
) -> None:
    connection, _ = await history_host.open_connection(agent_spec(), tmp_path)
    session = await history_host.create_session(connection.connection_id)
    await history_host.prompt(session.session_id, [{"type": "text", "text": "echo kept"}])
    await history_host.close_session(session.session_id)
    with pytest.raises(HostError) as refused:
        await history_host.delete_session(connection.connection_id, session.agent_session_id)
    assert refused.value.code == "unsupported"
    assert store.stored(session.agent_session_id) is not None
    # Its transcript, as the local list names it, can go.
    (listed,) = await history_host.list_sessions(connection.connection_id)
    assert listed["source"] == "local"
    await history_host.delete_session(connection.connection_id, listed["sessionId"])
    assert await history_host.list_sessions(connection.connection_id) == []


async def test_logout_only_where_the_agent_offers_it(history_host: Host, tmp_path: Path) -> None:
    plain, _ = await history_host.open_connection(agent_spec(), tmp_path)
    with pytest.raises(HostError) as refused:
        await history_host.logout(plain.connection_id)
    assert refused.value.code == "unsupported"
    offering, _ = await history_host.open_connection(agent_spec(ACP_FAKE_LOGOUT="1"), tmp_path)
    await history_host.logout(offering.connection_id)
    with pytest.raises(HostError) as signed_out:
        await history_host.create_session(offering.connection_id)
    assert "requires authentication" in signed_out.value.message


def test_the_store_tells_its_keys_from_agent_ids_and_removes(store: HistoryStore) -> None:
    recorder = store.recorder("agent-id-1", agent="scripted", cwd=Path("/"))
    recorder.start({"entries": []})
    recorder.flush()
    (stored,) = store.sessions()
    assert store.is_key(stored.key) and not store.is_key("agent-id-1")
    assert store.find("agent-id-1") == store.find(stored.key) == stored.path
    assert store.find("../history/" + stored.key) is None and not store.is_key("a/b")
    assert store.remove("agent-id-1") is True
    assert store.remove(stored.key) is False and store.sessions() == []
