"""The UserInterfaceAgent: the command parser, and a person (a scripted console) playing a
whole game over a real XMPP server against AI players."""

from __future__ import annotations

import asyncio
import re

import pytest

from maw.agents.gamemaster import GameConfig
from maw.agents.user_interface import phase_of
from maw.engine import ruleset
from maw.hosting.game import default_seats, run_game
from maw.hosting.players import run_person
from maw.protocol import messages as m
from maw.terminal.commands import parse_command

DAY = [m.Option(action="chat", room="Village"), m.Option(action="vote", target="Bob"),
       m.Option(action="vote", target="Cid"), m.Option(action="over")]


def test_plain_text_is_chat_in_the_open_room():
    parsed = parse_command("  I trust Cid.  ", DAY)
    assert parsed.action == m.Chat(message="I trust Cid.", room="Village")


def test_chat_with_no_open_room_is_an_error_not_an_action():
    parsed = parse_command("hello?", [m.Option(action="vote", target="Bob")])
    assert parsed.action is None and "cannot speak" in parsed.error


def test_vote_names_match_without_case_and_unknown_names_go_to_the_gamemaster():
    assert parse_command("/vote bob", DAY).action == m.Vote(target="Bob")
    assert parse_command("/VOTE  CID", DAY).action == m.Vote(target="Cid")
    # not offered: sent as typed, so the GameMaster's refusal gives the reason
    assert parse_command("/vote Zed", DAY).action == m.Vote(target="Zed")


def test_a_command_without_its_name_lists_the_choices():
    parsed = parse_command("/vote", DAY)
    assert parsed.action is None and parsed.error == "/vote needs a name: Bob, Cid"


@pytest.mark.parametrize("text,kind", [("/unvote", m.Unvote), ("/over", m.Over),
                                       ("/pass", m.Listen)])
def test_simple_commands(text, kind):
    assert isinstance(parse_command(text, DAY).action, kind)


@pytest.mark.parametrize("word", ["help", "who", "role", "quit"])
def test_local_commands_send_nothing(word):
    parsed = parse_command(f"/{word}", DAY)
    assert parsed.local == word and parsed.action is None


def test_unknown_commands_and_blank_lines():
    assert "unknown command /dance" in parse_command("/dance", DAY).error
    assert parse_command("   ", DAY) == parse_command("", DAY)
    assert parse_command("", DAY).action is None and parse_command("", DAY).error is None


def test_an_action_typed_in_an_earlier_phase_is_dropped_and_the_question_stays_open():
    from maw.agents.base import GameLog
    from maw.agents.user_interface import UserInterfaceAgent

    person = ScriptedPerson([])
    ui = UserInterfaceAgent("alice@localhost", "pw", person, GameLog(None))
    day1, day2 = {"day": 1, "phase": "day"}, {"day": 2, "phase": "day"}
    ui.queued = [(m.Vote(target="Bob"), phase_of(day1)), (m.Chat(message="hi"), phase_of(day1))]
    ui.view = day2
    # both are too late; none goes out, so the new question must wait for the person
    assert ui.take_queued() is None and ui.queued == []
    assert person.screen == ["! too late for your /vote: that phase is over",
                             "! too late for your message: that phase is over"]
    ui.queued = [(m.Chat(message="old"), phase_of(day1)), (m.Chat(message="now"), phase_of(day2))]
    assert ui.take_queued() == m.Chat(message="now")


# ---------------------------------------------------------------- a person over XMPP


class ScriptedPerson:
    """A console that types each line of ``script`` once the screen shows its cue."""

    def __init__(self, script: list[tuple[str, str]]) -> None:
        self.script = list(script)
        self.screen: list[str] = []
        self.changed = asyncio.Event()

    def show(self, line: str) -> None:
        self.screen.append(line)
        self.changed.set()

    def seen(self, pattern: str) -> re.Match | None:
        for line in self.screen:
            found = re.search(pattern, line)
            if found:
                return found
        return None

    async def read(self) -> str | None:
        if not self.script:
            await asyncio.sleep(3600)
        cue, text = self.script[0]
        while (found := self.seen(cue)) is None:
            self.changed.clear()
            await self.changed.wait()
        self.script.pop(0)
        return text.format(*found.groups()) if found.groups() else text


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_person_joins_chats_votes_and_sees_the_end(server, tmp_path):
    # seed 1 deals Zed a Villager among Ann..Eve (the roles go to the sorted names)
    config = GameConfig(early_end=True, players=6, rules=ruleset("maw"), seed=1, day_seconds=8,
                        night_seconds=4, log_dir=tmp_path, lobby_seconds=60)
    # the AI players think up to 1.5 s before each action (Algorithm 1's wait), so the
    # person's chat and vote go in before the day is decided (its vote first: the refusal
    # and /who after it take round trips, which a loaded machine may make slow)
    seats = default_seats(5)
    for seat in seats:
        seat.max_wait = 1.5
    game = asyncio.create_task(run_game(config, seats, server, timeout=180,
                                        remote=1, lobby="ui"))
    person = ScriptedPerson([
        ("You are a", "/role"),
        (r"Day 1, day", "Good morning, village."),
        (r"Day 1, day", "/vote ann"),
        (r"Day 1, day", "/vote nobody-here"),
        (r"Refused", "/who"),
    ])
    played = await run_person(server, "ui", person, name="Zed", timeout=180)
    result = await game
    assert played.name == "Zed" and played.final
    screen = "\n".join(person.screen)
    assert "You are a Villager" in screen and "you are Zed, a Villager" in screen
    assert "Zed: Good morning, village." in screen  # its own chat came back from the room
    assert "[GM] Refused: " in screen  # the vote for an unknown name: the GM's reason
    assert "alive: " in screen and "votes: " in screen
    assert "[GM] The game is over" in screen
    records = [r for r in _read(result.log_path) if r["kind"] == "action"]
    zed = [r["action"] for r in records if r["data"].get("actor") == "Zed"]
    assert "Chat" in zed and "Vote" in zed


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_person_who_quits_does_not_stop_the_game(server, tmp_path):
    config = GameConfig(early_end=True, players=6, rules=ruleset("maw"), seed=1, day_seconds=3,
                        night_seconds=2, log_dir=tmp_path, lobby_seconds=60)
    game = asyncio.create_task(run_game(config, default_seats(5), server, timeout=180,
                                        remote=1, lobby="quit"))
    person = ScriptedPerson([("Day 1, day", "/quit")])
    played = await run_person(server, "quit", person, name="Zed", timeout=60)
    assert not played.final and "You leave the game." in person.screen
    result = await game
    assert result.outcomes[0].winner is not None


def _read(path):
    import json

    return [json.loads(line) for line in path.read_text().splitlines()]
