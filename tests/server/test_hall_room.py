"""The Hall's multi-user chat room on ejabberd (``mod_muc``, from ejabberd.yml): any XMPP
client in ``hall@conference.localhost`` sees the games come and go, and is given the list
when it says /games; the embedded server has no rooms and the Hall goes on without."""

from __future__ import annotations

import asyncio
import secrets
import signal
import subprocess
import sys

import pytest

from maw.agents.base import MawAgent
from maw.hosting.connect import bind_container, start_agents, stop_agents
from maw.protocol import messages as m
from maw.server.client import connected
from maw.server.room import join_room, room_jid


def hosted(ejabberd, log_dir) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "maw", "server", "--xmpp",
                             f"{ejabberd.host}:{ejabberd.port}", "--log-dir", str(log_dir)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if "the Hall's room is" in line:
            assert room_jid("localhost") in line
            return proc
        if "the Hall is maw-hall@" in line:  # (it came before the room: read on)
            continue
    raise AssertionError(f"no room: {proc.stderr.read()[-2000:] if proc.stderr else ''}")


@pytest.mark.ejabberd
@pytest.mark.asyncio(loop_scope="session")
async def test_any_xmpp_client_in_the_halls_room_sees_the_games(ejabberd, tmp_path):
    proc = hosted(ejabberd, tmp_path / "archive")
    bind_container()
    heard: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    guest = MawAgent(f"maw-guest-{secrets.token_hex(3)}@localhost", secrets.token_hex(8))
    zoe = None
    try:
        await start_agents([guest], ejabberd)
        room = await join_room(guest, "localhost", "Gajim",
                               lambda nick, text: heard.put_nowait((nick, text)))
        assert room == room_jid("localhost")

        async def hears(pattern: str) -> str:
            while True:
                nick, text = await asyncio.wait_for(heard.get(), 30)
                if nick == "Hall" and pattern in text:
                    return text
        zoe = await connected(ejabberd)
        await zoe.ask(m.CreateGame(ruleset="maw", players=5, player_name="Zoe"))
        await hears("Zoe created game 1 (maw, 5 players)")
        guest.client.send_message(mto=room, mbody="/games", mtype="groupchat")
        listing = await hears("game 1: maw, 5 players")
        assert "open: Zoe" in listing
        await zoe.ask(m.LeaveGame(game=1))
        await hears("Zoe left game 1")
    finally:
        await stop_agents([a for a in (zoe, guest) if a is not None])
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    assert proc.returncode == 0
