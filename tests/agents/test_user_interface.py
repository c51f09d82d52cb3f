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
    # a name not offered (one's own) is still the table's, whatever its case
    assert parse_command("/vote zed", DAY, ["Bob", "Zed"]).action == m.Vote(target="Zed")


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


def test_each_phase_tells_the_person_what_it_may_now_do_to_another_once():
    """A Seer at the night's first line had only "Day 1, night" to go on."""
    from maw.agents.base import GameLog
    from maw.agents.user_interface import UserInterfaceAgent

    person = ScriptedPerson([])
    ui = UserInterfaceAgent("alice@localhost", "pw", person, GameLog(None))
    day = {"day": 1, "phase": "day", "alive": True}
    ui.view, ui.options = day, [m.Option(action="chat", room="Village")]
    ui.show_hint()  # (the day's talk: nothing to do to another yet)
    ui.options += [m.Option(action="vote", target=n) for n in ("Bob", "Cid")]
    ui.show_hint()  # the votes open
    ui.options += [m.Option(action="unvote")]
    ui.show_hint()  # (told once a phase)
    ui.view = {"day": 1, "phase": "night", "alive": True}
    ui.options = [m.Option(action="divine", target="Bob")]
    ui.show_hint()
    ui.show_hint()
    ui.view = {"day": 2, "phase": "day", "alive": False}
    ui.options = [m.Option(action="vote", target="Bob")]
    ui.show_hint()  # (the dead watch)
    assert person.screen == ["(you may now: /vote NAME; /help for all)",
                             "(you may now: /divine NAME; /help for all)"]


# ---------------------------------------------------------------- a person over XMPP


class ScriptedPerson:
    """A console that types each line of ``script`` once the screen shows its cue (a
    pattern, or a tuple of patterns that must all have been shown), after a pause if the
    line gives one: ``(cue, text)`` or ``(cue, text, seconds)``."""

    def __init__(self, script: list[tuple[str, str]]) -> None:
        self.script = list(script)
        self.screen: list[str] = []
        self.changed = asyncio.Event()

    def show(self, line: str) -> None:
        self.screen.append(line)
        self.changed.set()

    def seen(self, pattern: str | tuple[str, ...]) -> re.Match | None:
        if isinstance(pattern, tuple):
            found = [self.seen(p) for p in pattern]
            return found[-1] if all(found) else None
        for line in self.screen:
            found = re.search(pattern, line)
            if found:
                return found
        return None

    async def read(self) -> str | None:
        if not self.script:
            await asyncio.sleep(3600)
        cue, text, *pause = self.script[0]
        while (found := self.seen(cue)) is None:
            self.changed.clear()
            await self.changed.wait()
        self.script.pop(0)
        if pause:  # (a person reads before typing)
            await asyncio.sleep(pause[0])
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
        # (one's own name in another case: refused for what it is, not as no player's)
        (r"Day 1, day", "/vote zed"),
        (r"not oneself", "/vote nobody-here"),
        (r"is not a player", "/who"),
    ])
    played = await run_person(server, "ui", person, name="Zed", timeout=180)
    result = await game
    assert played.name == "Zed" and played.final
    screen = "\n".join(person.screen)
    assert "You are a Villager" in screen and "you are Zed, a Villager" in screen
    assert "Zed: Good morning, village." in screen  # its own chat came back from the room
    assert "[GM] Refused: " in screen  # the vote for an unknown name: the GM's reason
    assert "[GM] Refused: Zed may not vote Zed: not oneself" in screen, screen
    assert "alive: " in screen and "votes: " in screen
    assert "[GM] The game is over" in screen
    records = [r for r in _read(result.log_path) if r["kind"] == "action"]
    zed = [r["action"] for r in records if r["data"].get("actor") == "Zed"]
    assert "Chat" in zed and "Vote" in zed


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_the_line_that_opens_the_votes_is_shown_before_they_open(server, tmp_path):
    """The votes open once everyone has spoken; the GameMaster told the players so before
    the room had brought them the last line, so a person read "the votes are open" and
    then the line that opened them. Here the person speaks last, then votes at once."""
    # (one day: the game is over once it is; the person votes and is done, so the day
    # ends then, not at its timer, which is long enough for the AI players' lines to come
    # before the votes open at half the day on a loaded machine)
    config = GameConfig(early_end=True, players=6, seed=1, day_seconds=60, night_seconds=4,
                        rules=ruleset("maw", votes_open="talk", max_days=1),
                        log_dir=tmp_path, lobby_seconds=60, ready_end=True)
    game = asyncio.create_task(run_game(config, default_seats(5), server, timeout=180,
                                        remote=1, lobby="order"))
    others = tuple(rf"^{n}: " for n in ("Ann", "Bob", "Cid", "Dee", "Eve"))
    person = ScriptedPerson([(others, "I think Ann is suspicious."),
                             ("votes are open", "/vote Ann"), ("votes for Ann", "/ready")])
    played = await run_person(server, "order", person, name="Zed", timeout=120)
    await game
    assert played.name == "Zed"
    mine = next(i for i, x in enumerate(person.screen) if "Zed: I think Ann" in x)
    opened = next(i for i, x in enumerate(person.screen) if "the votes are open" in x)
    assert mine < opened, person.screen[mine - 2:opened + 2]
    # the vote typed the moment the votes opened counted: it answered the question the
    # opening withdrew, and went again with the next one (it was lost, and the day ran to
    # its timer)
    assert "[GM] Zed votes for Ann." in person.screen, person.screen


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


# ---------------------------------------------------------------- /help by role and ruleset


def _offered_by_role(name: str, games: int, **options) -> dict[str, set[str]]:
    """Every action the engine offered to each role in ``games`` random games."""
    from maw.engine import action_name, ruleset
    from maw.policies.base import Decider
    from maw.simulate import play_game

    seen: dict[str, set[str]] = {}

    class Recorder(Decider):
        needs_view = True

        def decide(self, view, legal):
            seen.setdefault(view.role, set()).update(action_name(a) for a in legal)
            return self.rng.choice(legal) if legal and self.rng.random() < 0.7 else None

    rules = ruleset(name, **options)
    size = rules.min_players if rules.roles is not None else 7
    names = [f"P{i}" for i in range(size)]
    for seed in range(games):
        play_game(rules, names, lambda player, rng: Recorder(player, rng), seed,
                  rounds_per_phase=2, max_steps=3000)
    return seen


@pytest.mark.parametrize("name,options", [
    ("maw", {}), ("maw", {"whisper": "on", "roles": "seer:1,bg:1"}), ("aiwolf-5", {}),
    ("aiwolf-15", {"variant": "2021"}), ("werewolf-12", {}),
    ("werewolf-12", {"role_set": "B", "self_explode": "off"})])
def test_help_lists_every_action_the_engine_offers_a_role_and_nothing_of_other_games(
        name, options):
    from maw.engine import changed_options, role_named, ruleset
    from maw.engine.rules import possible_actions
    from maw.terminal.commands import TEXT

    rules = ruleset(name, **options)
    for role, offered in _offered_by_role(name, 30, **options).items():
        listed = {s.name for s in possible_actions(rules, role_named(role))}
        assert offered <= listed, f"{name} {role}: /help lacks {offered - listed}"
        view = {"ruleset": name, "role": role, "rule_options": changed_options(rules)}
        text = TEXT.help(view)
        for spec in possible_actions(rules, role_named(role)):
            if spec.name != "chat":
                assert spec.usage in text
    # what a game of this ruleset never offers is not in its help
    villager = {s.name for s in possible_actions(rules, role_named("Villager"))}
    if name == "maw":
        assert {"over", "badge", "shoot", "poison", "run", "attack"}.isdisjoint(villager)
        assert {"vote", "unvote"} <= villager
        assert ("whisper" in villager) == ("whisper" in options)
    if name.startswith("aiwolf"):
        assert "over" in villager and "unvote" not in villager and "badge" not in villager
    if name == "werewolf-12":
        wolf = {s.name for s in possible_actions(rules, role_named("Werewolf"))}
        assert "badge" in villager and "explode" not in villager
        assert ("explode" in wolf) == (options.get("self_explode") != "off")


def test_pass_and_ready_are_a_persons_ready_and_say_so():
    for word in ("/pass", "/ready"):
        parsed = parse_command(word, DAY)
        assert parsed.action == m.Listen(ready=True)


# ---------------------------------------------------------------- a person's day: /ready


class Ring:
    """A test player: once the day's votes are open it votes for the next player of the
    table (in name order, the person left out) and then listens; at night it listens.
    Five of them split their votes one each, so only the person's vote, and the day's end,
    decide. Those named in ``quiet`` never vote."""

    quiet: frozenset[str] = frozenset()
    needs_view = True

    def __init__(self, player, rng) -> None:
        self.player = player

    def observe(self, event) -> None:
        pass

    def beliefs(self, view):
        return None

    def decide(self, view, legal):
        from maw.engine import Vote

        if view.votes.get(self.player) is not None or view.phase != "day" or \
                self.player in self.quiet:
            return None
        ring = [p for p in sorted(view.players) if p != "Zed"]
        target = ring[(ring.index(self.player) + 1) % len(ring)]
        return next((a for a in legal if type(a) is Vote and a.target == target), None)


class QuietEve(Ring):
    quiet = frozenset({"Eve"})


def ring_game(server, tmp_path, decider: str, lobby: str, day: float):
    from maw.policies import register_decider

    register_decider("ring-test", Ring)
    register_decider("ring-test-quiet-eve", QuietEve)
    # one day: the game is a draw after it, and its end shows the roles
    config = GameConfig(players=6, rules=ruleset("maw", max_days=1), seed=1,
                        day_seconds=day, night_seconds=3, log_dir=tmp_path, lobby_seconds=60,
                        ready_end=True)
    return asyncio.create_task(run_game(config, default_seats(5, decider), server,
                                        timeout=180, remote=1, lobby=lobby))


VOTES = dict(zip("Ann Bob Cid Dee Eve".split(), "Bob Cid Dee Eve Ann".split(), strict=True))


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_persons_vote_changed_after_pass_reaches_the_gamemaster(server, tmp_path):
    # Eve never votes, so the day waits for its timer; every other AI player has voted
    # and listens: no news comes to the person after its /pass
    game = ring_game(server, tmp_path, "ring-test-quiet-eve", "pass", 15)
    person = ScriptedPerson([
        (tuple(f"{a} votes for {b}" for a, b in VOTES.items() if a != "Eve"), "/vote Bob"),
        # (a second to read between lines: each answers a question asked once the news
        # before it had come; the second pass answers the question the first left open)
        (r"Zed votes for Bob", "/pass", 1.0),
        (r"you are ready", "/ready", 1.0),
        # before: nothing was asked after a pass until news came, and none came: the
        # person's /unvote and /vote waited, and the day ended with the old vote
        (r"you are ready", "/unvote", 1.0),
        (r"Zed withdraws the vote", "/vote Dee"),
    ])
    played = await run_person(server, "pass", person, name="Zed", timeout=180)
    result = await game
    assert played.final
    records = _read(result.log_path)
    zed = [(r["action"], r["data"].get("target")) for r in records
           if r["kind"] == "action" and r["data"].get("actor") == "Zed"]
    assert zed == [("Vote", "Bob"), ("Unvote", None), ("Vote", "Dee")], person.screen
    executed = [r for r in records if r["kind"] == "event" and r["event"] == "Executed"]
    assert [r["data"]["player"] for r in executed] == ["Dee"]  # (Cid's vote and Zed's)


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_the_day_ends_at_a_persons_ready_once_everyone_has_voted(server, tmp_path):
    # a long day: only the GameMaster's "everyone has voted and is done" may end it early
    game = ring_game(server, tmp_path, "ring-test", "ready", 60)
    person = ScriptedPerson([
        (tuple(f"{a} votes for {b}" for a, b in VOTES.items()), "/help"),
        (r"/ready", "/vote Dee"),
        (r"Zed votes for Dee", "/ready"),
    ])
    played = await run_person(server, "ready", person, name="Zed", timeout=180)
    result = await game
    assert played.final
    records = _read(result.log_path)
    vote = next(r for r in records if r["kind"] == "action" and
                r["data"].get("actor") == "Zed")
    executed = next(r for r in records if r["kind"] == "event" and r["event"] == "Executed")
    # Dee has two votes, everyone else one: the day ended at the /ready typed at once
    # after Zed's vote, not at its timer a minute later
    assert executed["data"]["player"] == "Dee" and executed["t"] - vote["t"] < 2.0
    screen = "\n".join(person.screen)
    # /help: the commands of a villager in a MAW game, not every ruleset's
    assert "/vote NAME" in screen and "/unvote" in screen and "/ready" in screen
    assert "/badge" not in screen and "/over" not in screen and "/attack" not in screen
    # the end: every role and the points of the round
    assert "Who was who" in screen
    for name in ("Ann", "Bob", "Cid", "Dee", "Eve", "Zed"):
        assert re.search(rf"^\s+{name}\s+\w+\s+\d+ points?$", screen, re.M), name


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_person_asks_for_the_scores_mid_round_and_the_gamemaster_answers(
        server, tmp_path):
    """The design document's "show score": at any time, the points of the rounds over
    so far (none in round 1: every player at 0; round 1's points in round 2)."""
    # (Zed only asks for the scores, so every phase runs to its timer: at most 3 days a
    # round, or a round of tied days ran on to the 17-day limit, 110 s in one CI run)
    config = GameConfig(early_end=True, players=6, rules=ruleset("maw", max_days=3), seed=1,
                        rounds=2, day_seconds=4, night_seconds=2, log_dir=tmp_path,
                        lobby_seconds=60)
    game = asyncio.create_task(run_game(config, default_seats(5), server, timeout=240,
                                        remote=1, lobby="score"))
    person = ScriptedPerson([
        (r"Day 1, day", "/score"),
        (r"Round 2 of 2 starts", "/scores"),
    ])
    played = await run_person(server, "score", person, name="Zed", timeout=240)
    result = await game
    assert played.final
    shown = [x for x in person.screen if x.startswith("[GM] The scores")]
    assert len(shown) == 2, person.screen
    assert shown[0] == ("[GM] The scores, no round is over yet (points come at a round's "
                        "end): Ann 0, Bob 0, Cid 0, Dee 0, Eve 0, Zed 0.")
    first = result.outcomes[0].points
    board = ", ".join(f"{n} {p}" for n, p in sorted(first.items(),
                                                     key=lambda x: (-x[1], x[0])))
    assert shown[1] == f"[GM] The scores, after 1 of 2 round(s): {board}."
    log = _read(result.log_path)
    answers = [r for r in log if r["kind"] == "msg" and r["type"] == "score_board"]
    zed = next(r["jid"] for r in log if r["kind"] == "join" and r["player"] == "Zed")
    assert [r["to"] for r in answers] == [zed, zed]  # (the one who asked, alone)


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_wolf_ready_before_it_chose_a_victim_is_told_that_nobody_would_die(
        server, tmp_path):
    """A review's wolf typed /ready meant for the day just after its vote ended it: it
    counted for the night, and nobody was murdered, without a word. Being ready at night
    with no victim chosen is said to lead there; with one chosen, it is not."""
    from maw.policies import register_decider

    register_decider("ring-test", Ring)
    # (seed 6 deals Zed a Werewolf, Ann the other; the ring players listen at night)
    config = GameConfig(players=6, rules=ruleset("maw", max_days=2), seed=6,
                        day_seconds=2, night_seconds=4, log_dir=tmp_path, lobby_seconds=60,
                        ready_end=True)
    game = asyncio.create_task(run_game(config, default_seats(5, "ring-test"), server,
                                        timeout=180, remote=1, lobby="victim"))
    person = ScriptedPerson([
        (r"Day 1, night", "/ready", 0.5),
        (r"you have chosen no victim", "/attack Bob"),
        (r"you have chosen no victim", "/ready", 1.0),
    ])
    played = await run_person(server, "victim", person, name="Zed", timeout=180)
    result = await game
    assert played.final
    screen = "\n".join(person.screen)
    assert "You are a Werewolf" in screen, screen
    assert screen.count("you have chosen no victim") == 1, screen
    assert screen.count("you are ready") == 2, screen
    records = _read(result.log_path)
    assert [r["data"].get("target") for r in records if r["kind"] == "action"
            and r["data"].get("actor") == "Zed" and r["action"] == "Attack"] == ["Bob"]
