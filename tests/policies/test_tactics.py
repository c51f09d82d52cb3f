"""The hybrid agent's tactics (``maw.policies.tactics``, Sato et al.'s situations): each
situation is built from a recorded talk in an engine game, and the line the strategy
chooses is checked, with the gate it must pass; then engine games of every shipped
ruleset, every hybrid line through the gate."""

from __future__ import annotations

import random

import pytest
from conftest import start

from maw import engine
from maw.engine import Chat, Over, Room, Vote, view
from maw.engine.state import Phase, default_names
from maw.policies import gate
from maw.policies.base import max_chat
from maw.policies.hybrid import HybridStrategy
from maw.policies.tactics import SITUATIONS, Intent
from maw.simulate import play_game

# AIWolf 5: A Seer, B Werewolf, C Possessed, D and E Villagers
DEAL5 = "SWPVV"


class Table:
    """An engine game, the hybrid players listening to it, and the recorded talk."""

    def __init__(self, state, *hybrids: str, seed: int = 1) -> None:
        self.state = state
        self.players = {n: HybridStrategy(n, random.Random(seed)) for n in hybrids}
        self.hear(engine.opening_events(state))

    def hear(self, events) -> None:
        for event in events:
            for name, d in self.players.items():
                if event.audience is None or name in event.audience:
                    d.observe(event)

    def play(self, action) -> None:
        self.state, events = engine.play(self.state, action)
        self.hear(events)

    def say(self, speaker: str, text: str) -> None:
        self.play(Chat(speaker, Room.VILLAGE, text))

    def turn(self, name: str) -> tuple[object, Intent | None]:
        """``name``'s choice now, played; its line checked by the gate."""
        v = view(self.state, name)
        action, intent = self.players[name].decide_intent(
            v, engine.legal_actions(self.state, name))
        if type(action) is Chat:
            assert intent is not None
            verdict = gate.check(action.text, v, max_chat(v), allowed=intent.allowed)
            assert verdict.ok, (action.text, verdict.faults)
        if action is not None:
            self.play(action)
        return action, intent


def day1(divined: str = "B", *hybrids: str, seed: int = 1) -> Table:
    """AIWolf 5 on day 1's talk: day 0 over, A (the Seer) divined ``divined``; the
    hybrid players' streams seeded with ``seed``."""
    t = Table(start("aiwolf-5", DEAL5), *hybrids, seed=seed)
    t.play(engine.EndPhase())
    t.play(engine.Divine("A", divined))
    assert t.state.day == 1 and t.state.phase is Phase.DAY
    return t


# ------------------------------------------------------------------ counter-CO

def test_a_werewolf_a_lone_seer_exposed_comes_out_as_the_real_seer_and_votes_the_accuser():
    t = day1("B", "B")
    t.say("A", "I am the Seer. B is a werewolf.")
    t.say("D", "I suspect B.")
    action, intent = t.turn("B")
    assert intent is not None and intent.situation == "COUNTER_SEER"
    assert "I am the Seer." in action.text and "A is a werewolf." in action.text
    assert not any(c.target == "B" for c in intent.allowed if c.kind == "species")
    # it stands by it: in the vote it votes for its accuser
    for _ in range(4):
        if t.state.phase is Phase.VOTE:
            break
        action, _ = t.turn("B")
        if action is None:
            t.play(engine.EndPhase())
    assert t.state.phase is Phase.VOTE
    assert t.turn("B")[0] == Vote("B", "A")


@pytest.mark.parametrize("talk", [
    # two Seers: the village already doubts them (not a lone Seer)
    ("A: I am the Seer. B is a werewolf.", "D: I am the Seer. A is a werewolf."),
    # the lone Seer found someone else
    ("A: I am the Seer. E is a werewolf.",),
    # the accuser never claimed to be the Seer
    ("D: B is a werewolf. I suspect B.",),
])
def test_no_counter_co_unless_a_lone_seer_has_exposed_the_werewolf(talk):
    t = day1("B", "B")
    for line in talk:
        speaker, text = line.split(": ", 1)
        t.say(speaker, text)
    for _ in range(3):
        action, intent = t.turn("B")
        assert intent is None or intent.situation != "COUNTER_SEER"
        assert action is None or "I am the Seer" not in getattr(action, "text", "")


# ------------------------------------------------------------------ the Possessed

def possessed_lines(talk: tuple[str, ...], seed: int) -> list[Intent]:
    """The Possessed's (C's) first two lines of day 1 after ``talk``."""
    t = day1("D", "C", seed=seed)
    for line in talk:
        speaker, text = line.split(": ", 1)
        t.say(speaker, text)
    out = []
    for _ in range(2):
        _action, intent = t.turn("C")
        assert intent is not None
        out.append(intent)
    return out


def test_the_possessed_fakes_the_seer_by_the_authors_criteria():
    seeds = range(12)
    # nobody has come out: at its first chance half the time, else at its second
    alone = [possessed_lines((), s) for s in seeds]
    assert all(any(i.situation == "SEER_DECLARE" for i in lines) for lines in alone)
    first = {lines[0].situation == "SEER_DECLARE" for lines in alone}
    assert first == {True, False}  # (the coin)
    # a lone Seer who found a werewolf: a fake result at once, or a counter-CO at its
    # second chance, which calls the Seer the werewolf
    found = [possessed_lines(("A: I am the Seer. B is a werewolf.",), s) for s in seeds]
    for lines in found:
        said = [i for i in lines if i.situation in ("SEER_DECLARE", "COUNTER_SEER")]
        assert len(said) == 1
        if said[0].situation == "COUNTER_SEER":
            assert "A is a werewolf." in said[0].text
    assert {lines[1].situation for lines in found} >= {"COUNTER_SEER"}
    # two Seers out already: it stays hidden (three Seers would expose it)
    crowded = ("A: I am the Seer. B is a werewolf.", "E: I am the Seer. A is a werewolf.")
    for s in seeds:
        assert all("I am the Seer" not in i.text for i in possessed_lines(crowded, s))


def test_no_fake_seer_before_a_night_has_passed_nor_on_a_day_without_a_vote():
    # AIWolf's day 0: a greeting, then Over
    t = Table(start("aiwolf-5", DEAL5), "C")
    action, intent = t.turn("C")
    assert intent is not None and intent.situation == "GLHF" and "I am C" in action.text
    assert type(t.turn("C")[0]) is Over
    # MAW's day 1 comes before its first night: no Seer can have a result yet
    t = Table(start("maw", "SWPWVV", roles="seer:1,pos:1"), "C")
    for _ in range(3):
        _action, intent = t.turn("C")
        assert intent is None or "Seer." not in intent.text


def test_the_possessed_asks_for_its_own_execution_on_the_last_day_of_a_parity_game():
    t = day1("D", "C")
    for voter in "ABCDE":  # A, the Seer, executed
        t.play(engine.EndPhase()) if t.state.phase is Phase.DAY else None
        t.play(Vote(voter, "A" if voter != "A" else "B"))
    t.play(engine.Attack("B", "E"))  # (night 1: the pack takes E)
    assert t.state.day == 2 and t.state.living() == ("B", "C", "D")
    action, intent = t.turn("C")
    assert intent is not None and intent.situation == "WEREWOLF_DECLARE"
    assert action.text.startswith("I am the Werewolf.")
    t.say("D", "I vote for C.")
    t.say("B", "I vote for D.")
    action, intent = t.turn("C")
    assert intent is not None and intent.situation == "WEREWOLF_DEAD"


# ------------------------------------------------------------------ closing the talk

def test_it_asks_the_undeclared_by_name_then_closes_once_all_have_declared_then_says_over():
    t = day1("B", "D")
    t.say("A", "I am the Seer. B is a werewolf.")  # (a werewolf named: a vote implied)
    t.say("B", "I suspect A.")
    action, intent = t.turn("D")  # its say
    assert intent is not None and intent.situation == ""
    action, intent = t.turn("D")  # C and E have not said how they vote: it asks them
    assert intent is not None and intent.situation == "VOTE_INQUIRE"
    assert "@C" in action.text and "@E" in action.text
    assert "@A" not in action.text and "@B" not in action.text
    assert t.turn("D") == (None, None)  # it waits for them (no Over yet)
    t.say("C", "I vote for A.")
    assert t.turn("D") == (None, None)  # E still has not
    t.play(Over("E", Room.VILLAGE))  # (the authors: a player who stops talking has chosen)
    action, intent = t.turn("D")
    assert intent is not None and intent.situation == "DAY1_EVENING"
    assert action.text.startswith("I vote for ") and "no need to talk more" in action.text
    assert type(t.turn("D")[0]) is Over


def test_cast_votes_count_and_a_player_most_vote_for_accepts_it():
    # MAW's day: the votes are public; D sees four of the five others vote for it
    t = Table(start("maw", "VWVVWV"), "D")
    t.say("A", "I suspect B.")
    action, intent = t.turn("D")  # its say
    assert intent is not None and "I suspect" in action.text
    said = action.text
    for voter in "ABE":
        t.play(Vote(voter, "D"))
    action, intent = t.turn("D")  # its vote first
    assert type(action) is Vote
    if f"I suspect {action.target}" not in said:  # it moved from its suspect: it says so
        action, intent = t.turn("D")
        assert intent is not None and intent.text.startswith("I change my mind")
    assert t.turn("D") == (None, None)  # C and F silent at its first look: it waits a beat
    action, intent = t.turn("D")
    assert intent is not None and intent.situation == "VOTE_INQUIRE" and "@C" in action.text
    assert "@A" not in action.text and "@F" in action.text
    t.play(Vote("C", "D"))  # (four of six: a majority executes at once, so F talks)
    assert t.state.phase is Phase.NIGHT


def test_a_vote_cast_for_another_than_its_words_named_is_explained_once():
    # MAW's day: D says whom it suspects; three others then vote against D, and its rule
    # layer moves its vote to one of them at a turn that votes first, without a word
    t = Table(start("maw", "VWVVWV"), "D")
    t.say("A", "I suspect B.")
    action, intent = t.turn("D")  # its say
    assert intent is not None and "I suspect " in action.text
    named = action.text.split("I suspect ")[1][0]
    for voter in "ABE":
        t.play(Vote(voter, "D"))
    action, _ = t.turn("D")
    assert type(action) is Vote and action.target != named
    moved = action.target
    action, intent = t.turn("D")  # then it says why, naming both
    assert type(action) is Chat and intent is not None
    assert intent.text == f"I change my mind: I vote for {moved}, not {named}."
    assert action.text.startswith(intent.text)
    action, intent = t.turn("D")  # said once: not again
    assert intent is None or "change my mind" not in intent.text


def test_where_votes_are_cast_in_the_open_it_asks_only_those_still_silent_once_most_voted():
    # MAW's day: asked as the votes opened, it named the whole table, who all voted in the
    # seconds its words took (every inquiry of the README's main game, 18 games)
    t = Table(start("maw", "VWVVWV"), "D")
    t.say("A", "I suspect B.")
    t.turn("D")  # its say
    action, _ = t.turn("D")
    assert type(action) is Vote  # its vote, at once
    assert t.turn("D") == (None, None)  # nobody else has voted yet: it waits
    t.play(Vote("A", "B"))
    t.play(Vote("B", "A"))
    assert t.turn("D") == (None, None)  # three of five still silent: still too early
    t.play(Vote("E", "A"))
    assert t.turn("D") == (None, None)  # two of five, seen silent once: a vote may be coming
    action, intent = t.turn("D")  # silent at its next look too: those it asks
    assert intent is not None and intent.situation == "VOTE_INQUIRE"
    assert "@C" in action.text and "@F" in action.text and "@A" not in action.text


def test_a_player_under_a_majority_of_declared_votes_closes_with_the_ending_line():
    t = day1("C", "D")
    t.say("A", "I am the Seer. C is human. I vote for D.")
    t.say("B", "I vote for D.")
    t.say("C", "I vote for D.")
    t.say("E", "I suspect B.")
    t.turn("D")  # its say
    action, intent = t.turn("D")  # everyone has declared: three of five against it
    assert intent is not None and intent.situation == "DAY1_ENDING"
    assert "I am not a werewolf" in action.text


def test_the_day_s_first_speaker_says_good_morning_and_asks_for_the_seer():
    t = day1("B", "D")
    action, intent = t.turn("D")
    assert intent is not None and intent.situation == "DAY1_MORNING"
    assert "Seer" in action.text and "I suspect" not in action.text
    t = day1("B", "E")
    t.say("D", "Good morning.")
    _action, intent = t.turn("E")  # not the first: its suspect
    assert intent is not None and intent.situation == "" and "I suspect" in intent.text


# ------------------------------------------------------------------ every ruleset

class Checked(HybridStrategy):
    """The hybrid strategy, each of its lines through the gate as it is said."""

    lines: list[tuple[str, str, tuple[str, ...]]] = []  # (situation, text, faults)

    def decide_intent(self, view, legal):
        action, intent = super().decide_intent(view, legal)
        if type(action) is Chat and intent is not None:
            verdict = gate.check(action.text, view, max_chat(view), allowed=intent.allowed)
            Checked.lines.append((intent.situation, action.text, verdict.faults))
        return action, intent


SIZES = {"maw": 6, "aiwolf-5": 5, "aiwolf-9": 9, "aiwolf-13": 13, "aiwolf-15": 15,
         "werewolf-12": 12}


@pytest.mark.parametrize("name", sorted(SIZES))
def test_every_hybrid_line_of_engine_games_passes_the_gate(name):
    Checked.lines = []
    rules = engine.ruleset(name, **({"roles": "seer:1,pos:1"} if name == "maw" else {}))
    names = list(default_names(SIZES[name]))  # (not letters: "I" is a word)
    for seed in range(6):
        record = play_game(rules, names, Checked, seed)
        assert record.invalid_actions == 0 and record.winner is not None
    refused = [(s, text, f) for s, text, f in Checked.lines if f]
    assert Checked.lines and not refused, refused[:3]
    said = {s for s, _t, _f in Checked.lines}
    assert said <= set(SITUATIONS) | {""}
    if name.startswith("aiwolf"):  # the talk's situations, in real games
        assert {"SEER_DECLARE", "VOTE_INQUIRE"} <= said
        assert said & {"DAY1_EVENING", "DAY2_EVENING", "DAY1_ENDING", "DAY2_ENDING"}


def _lines(policy: str, games: int = 60) -> dict[str, int]:
    """What hybrid players of ``policy`` say in seeded aiwolf-5 engine games: werewolves'
    counter-COs, the Possessed's Seer claims, and asks by name."""
    from maw.engine import events as ev

    out = {"wolf counter-CO": 0, "possessed as Seer": 0, "mentions": 0}
    names = ["Ann", "Bob", "Cid", "Dee", "Eve"]
    for seed in range(games):
        events: list = []
        play_game(engine.ruleset("aiwolf-5"), names, policy, seed, events=events)
        roles = {e.player: e.role for e in events if isinstance(e, ev.RoleAssigned)}
        for e in events:
            if not isinstance(e, ev.Chatted):
                continue
            role = roles.get(e.speaker)
            out["wolf counter-CO"] += role == "Werewolf" and "I am the real one" in e.text
            out["possessed as Seer"] += role == "Possessed" and "I am the Seer" in e.text
            out["mentions"] += "@" in e.text
    return out


def test_each_knockout_plays_without_its_tactic_and_the_hybrid_with_it():
    """``hybrid-no-<tactic>`` (the deciders ``maw bench`` rates to tell what each tactic
    is worth) never uses its tactic, where the whole hybrid does on the same seeds."""
    whole = _lines("hybrid")
    assert all(whole.values()), whole
    assert _lines("hybrid-no-counter-co")["wolf counter-CO"] == 0
    assert _lines("hybrid-no-fake-seer")["possessed as Seer"] == 0
    assert _lines("hybrid-no-mention")["mentions"] == 0
    rest = _lines("hybrid-no-mention")  # (and the others are kept)
    assert rest["wolf counter-CO"] and rest["possessed as Seer"]
