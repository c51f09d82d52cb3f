"""A player's knowledge of its game (``maw.agents.knowledge``), fed the GameMaster's and the
rooms' messages themselves, with no XMPP server: rounds start on whichever message comes
first and keep nothing of the last, late messages of an old round change nothing, chat
lines are noted once each, and a vote heard keeps the view's tally fresh."""

from __future__ import annotations

import random

from maw import engine
from maw.agents.knowledge import Knowledge
from maw.protocol import convert
from maw.protocol import heard as h
from maw.protocol import messages as m

NAMES = list("ABCDEF")


def phase(k: int = 1, *, day: int = 1, seat: str = "A", seed: int = 1) -> m.PhaseChange:
    state = engine.new_game(engine.ruleset("maw"), NAMES, random.Random(seed))
    legal = engine.legal_actions(state, seat)
    return m.PhaseChange(round=k, day=day, new_phase="day", seconds=30,
                         view=engine.view(state, seat),
                         options=convert.options(legal), stamp=f"r{k}d{day}")


def test_a_round_starts_on_its_first_message_and_keeps_nothing_of_the_last():
    k = Knowledge()
    # round 1: the phase comes before the role (either order reaches a player)
    k.take(phase(1))
    k.take(m.AssignRole(round=1, role="Werewolf", pack=["A", "B"]))
    assert (k.round, k.role, k.pack, k.status) == (1, "Werewolf", ["A", "B"], "alive")
    assert k.next_state() == "Awake" and k.stamp == "r1d1"
    k.take(m.Kill(day=1, cause="executed"))
    assert k.status == "dead" and k.options == [] and k.next_state() == "Dead"
    k.take(m.Scores(round=1, rounds=2, leaderboard=[("A", 1)]))
    assert k.round_over and k.next_state() == "Lobby"
    # round 2 starts on its role: alive again, no role or view of round 1 left
    k.take(m.AssignRole(round=2, role="Villager"))
    assert (k.round, k.role, k.pack, k.status, k.view) == (2, "Villager", [], "alive", None)
    assert not k.round_over and k.next_state() == "Asleep"
    # a late phase of round 1 changes nothing
    k.take(phase(1, day=3))
    assert k.view is None and k.stamp == ""
    assert k.roles == ["Werewolf", "Villager"]
    kinds = [type(x).__name__ for x in k.unread]
    assert kinds == ["PhaseBegan", "RoleDealt", "Died", "RoleDealt"], kinds


def test_each_chat_line_is_noted_once_and_a_vote_heard_updates_the_view():
    k = Knowledge()
    k.take(phase(1))
    lines = [m.ChatLine(index=i, speaker="B", text=f"line {i}", day=1) for i in range(3)]
    k.take(m.NewMessages(room_name="Village", messages=lines[:2], next=2))
    k.take(m.NewMessages(room_name="Village", messages=lines, next=3))  # (again, and one more)
    said = [x.text for x in k.unread if isinstance(x, h.Said)]
    assert said == ["line 0", "line 1", "line 2"]
    assert k.view is not None and not k.view.votes.get("C")
    k.take(m.VoteCast(day=1, voter="C", target="D", kind="execute"))
    assert k.view.votes.get("C") == "D"
    assert isinstance(k.unread[-1], h.VoteHeard)


def test_its_own_vote_stands_in_its_view_once_agreed_before_the_vote_s_news_comes():
    # (the interface is asked again as soon as the agreement arrives: a view without its
    # own vote had a decider vote again and again, before the VoteCast caught up)
    k = Knowledge()
    k.take(phase(1))
    k.seat_name = "A"
    assert k.view is not None and "A" not in k.view.votes
    k.agreed(m.Vote(target="D"))
    assert k.view.votes.get("A") == "D"
    k.agreed(m.Vote(target="E"))  # a vote changed
    assert k.view.votes.get("A") == "E"
    k.agreed(m.Chat(message="I vote for E."))  # no vote: the view as it was
    k.agreed(m.Whisper(target="B", message="psst"))
    assert dict(k.view.votes) == {"A": "E"}
    k.agreed(m.Unvote())
    assert "A" not in k.view.votes
    k.take(m.VoteCast(day=1, voter="A", target="D", kind="execute"))  # (its news, late)
    assert k.view.votes.get("A") == "D"


def test_a_person_s_terminal_hears_each_line_at_once_in_words():
    printed: list[str] = []
    k = Knowledge(push_news=True)
    k.on_line = printed.append
    k.take(m.StartGame(total_players=6, players=NAMES, round=1))
    k.take(m.StartGame(total_players=6, players=NAMES, round=1))  # (noted once)
    assert len(printed) == 1 and "A" in printed[0]
    assert k.news == k.unread and k.news_ready.is_set()
    assert k.take(m.JoinLobby(player_name="A")) is False  # (not news: nothing learnt)


def test_the_game_is_over_for_a_player_at_its_last_round_s_end_or_its_final_scores():
    """(A host stops its server once the game is over: a player that has seen the last
    round's end is done, whether or not the final scores got through.)"""
    k = Knowledge()
    k.take(m.StartGame(total_players=6, players=NAMES, round=1, rounds=2))
    end = dict(winning_team="village", reason="no werewolf lives", roles={}, points={})
    k.take(m.EndGame(round=1, **end))
    assert not k.game_over  # (one round of two)
    k.take(m.EndGame(round=2, **end))
    assert k.game_over
    told = Knowledge()
    told.take(m.Scores(round=1, rounds=1, leaderboard=[], final=True))
    assert told.game_over and not Knowledge().game_over


def test_a_narrators_line_is_heard_as_the_moderator_s_and_the_village_logs_it():
    from maw.agents.chatroom import announcement_text
    from maw.protocol import render

    k = Knowledge()
    k.take(phase(1))
    line = m.Narration(round=1, day=2, text="Dawn finds Bob dead.")
    k.take(line)
    heard = [x for x in k.unread if isinstance(x, h.Narrated)]
    assert [render.heard(x) for x in heard] == ["[Moderator] Dawn finds Bob dead."]
    assert announcement_text(line) == "[Moderator] Dawn finds Bob dead."
