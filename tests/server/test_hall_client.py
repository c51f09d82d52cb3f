"""``maw play`` at a server's Hall: a Hall slow to answer is waited for (the person told
so), and a server with none is found out at once, in one line, so that the person joins
its lobby instead."""

from __future__ import annotations

import pytest

from maw.server import client


class Lines:
    def __init__(self) -> None:
        self.shown: list[str] = []

    def show(self, line: str) -> None:
        self.shown.append(line)

    async def read(self) -> str | None:  # pragma: no cover - never asked: no Hall answers
        raise AssertionError("asked for a name before the Hall answered")


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_server_without_a_hall_is_found_out_at_once_and_told_in_one_line(server,
                                                                                 monkeypatch):
    """The server bounces the requests to a Hall that is not online (a ``maw game`` host
    has none): the person is sent on after the second bounce, a second apart, not after
    ``HALL_WAIT`` (20 s) of asking."""
    monkeypatch.setattr(client, "FIRST_ANSWER", 15.0)  # (no wait is told before it)
    console = Lines()
    with pytest.raises(client.NoHall) as caught:
        await client.drop_in(server, console, "Ann")
    assert str(caught.value) == (f"no Hall answers at {server.host}:{server.port} (the "
                                 "server has none)")
    assert console.shown == []  # (bounced: no wait was told)


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_hall_that_comes_online_after_one_bounce_is_found(server, monkeypatch):
    """One bounce could be a ``maw server`` whose Hall is still logging in: the request is
    made again, and the Hall, online by then, answers."""
    import asyncio

    from maw.hosting.connect import start_agents, stop_agents
    from maw.hosting.xmpp import stable_password
    from maw.records.log import NULL_LOG
    from maw.server import hall
    from maw.server.tables import Tables

    monkeypatch.setattr(client, "BOUNCE_AGAIN", 5.0)  # (time enough to start a Hall)
    once = asyncio.Event()
    bounced = client.HallClient.bounced

    def heard_bounce(self, jid):
        once.set()
        bounced(self, jid)
    monkeypatch.setattr(client.HallClient, "bounced", heard_bounce)

    async def host(table):  # (no game is started here)
        return None
    person = asyncio.create_task(client.drop_in(server, Console(), "Ann"))
    agent = None
    try:
        await asyncio.wait_for(once.wait(), 20)  # (no Hall yet: the first bounces)
        # (made only now: SPADE hands a message to an agent of its own process in memory,
        # from the agent's making on, and a Hall not yet started would never answer)
        jid = hall.hall_jid(server.domain)
        agent = hall.HallAgent(jid, stable_password(jid), Tables(), host, NULL_LOG)
        await start_agents([agent], server)
        assert await asyncio.wait_for(person, 20) is None  # (the Hall answered; she quit)
    finally:
        person.cancel()
        if agent is not None:
            await stop_agents([agent])


class Console(Lines):
    async def read(self) -> str | None:
        return "/quit"


async def at_a_hall(server, monkeypatch, handle, console: Lines | None = None) -> Lines:
    """Ann at a Hall whose requests ``handle(answer, msg, body)`` treats (``answer``: the
    Hall's own handling), asked again every 0.5 s; the console she saw (she quits; or
    ``console``'s, and what ``drop_in`` raised goes on)."""
    from maw.hosting.connect import start_agents, stop_agents
    from maw.hosting.xmpp import stable_password
    from maw.records.log import NULL_LOG
    from maw.server import hall
    from maw.server.tables import Tables

    answer = hall.Requests.handle

    async def handled(self, msg, body):
        await handle(lambda: answer(self, msg, body), msg, body)
    monkeypatch.setattr(hall.Requests, "handle", handled)
    monkeypatch.setattr(client, "FIRST_ANSWER", 0.5)

    async def host(table):  # (no game is started here)
        return None
    jid = hall.hall_jid(server.domain)
    agent = hall.HallAgent(jid, stable_password(jid), Tables(), host, NULL_LOG)
    await start_agents([agent], server)
    try:
        console = console or Console()
        assert await client.drop_in(server, console, "Ann") is None  # (she quit)
    finally:
        await stop_agents([agent])
    return console


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_hall_that_never_answers_is_waited_for_then_told_in_one_line(server,
                                                                            monkeypatch):
    """A Hall that is online and says nothing (a loaded machine) is asked again, and the
    person told, until ``HALL_WAIT``."""
    async def mute(answer, msg, body):
        return None
    monkeypatch.setattr(client, "HALL_WAIT", 2.0)
    console = Lines()
    with pytest.raises(client.NoHall) as caught:
        await at_a_hall(server, monkeypatch, mute, console)
    assert str(caught.value) == f"no Hall answers at {server.host}:{server.port}"
    # (the person was told the Hall was slow before it was given up on)
    assert console.shown == [f"(waiting for the Hall at {server.host}:{server.port} to "
                             "answer, up to 2 s more)"]


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_first_request_lost_is_asked_again_and_the_person_told(server, monkeypatch):
    """A request sent the moment a client logs in can be lost (in CI runs 87 and 89 the
    Hall answered, and the answer never came): the person was sent to the lobby "main"
    as if the server had no Hall. Here the Hall loses the first request, and is slow."""
    import asyncio

    asked: list[str] = []

    async def slowly(answer, msg, body):
        asked.append(body.type)
        if len(asked) > 1:  # (the first is lost)
            await asyncio.sleep(0.3)
            await answer()
    console = await at_a_hall(server, monkeypatch, slowly)
    assert asked[:2] == ["list_games", "list_games"]
    assert console.shown[0].startswith(f"(waiting for the Hall at {server.host}:")
    assert console.shown[1] == "Welcome to the Hall, Ann. /help for what you can do here."
    assert any("no games yet" in line for line in console.shown[2:]), console.shown
