"""A roster's ``[llm]`` settings reach the model seats: by group (``[llm.wolves]``,
``[llm.village]``) and by seat, the most specific winning, resolved from the role a seat
is dealt by its own interface; the hybrid roster plays at the paper's settings (Sato et
al., Table 9: temperature 1.0, at most 200 tokens), which a seat may override; and the
one-line errors of a bad roster."""

from __future__ import annotations

import json

import pytest
from conftest import REPO, wolf_view

from maw import engine
from maw.engine import view
from maw.errors import BackendError, ConfigError
from maw.hosting.roster import load_roster
from maw.hosting.seats import check_backends, deciders, seats_from_roster
from maw.hosting.xmpp import free_port
from maw.llm import LLM
from maw.llm.backends import ScriptedBackend
from maw.llm.prompts import Prompts
from maw.policies import ModelSeat, decider_kind

GROUPS = '''
[llm]
backend = "scripted"
model = "small"
retries = 3
[llm.wolves]
model = "big"
temperature = 0.2
timeout = 30
[llm.village]
fallback = "listen"

[[player]]
name = "Ann"
decider = "llm"
[[player]]
name = "Bob"
decider = "llm"
model = "own"
[[player]]
name = "Cid"
decider = "rule"
'''


def test_a_seat_plays_with_its_groups_settings_and_its_own_keys_win(tmp_path):
    path = tmp_path / "groups.toml"
    path.write_text(GROUPS)
    ann, bob, cid = seats_from_roster(load_roster(path), 3)
    for role in ("Werewolf", "Possessed"):  # the werewolves' side, human or not
        wolf = ann.llm_for(role)
        assert (wolf.model, wolf.temperature, wolf.timeout, wolf.retries, wolf.fallback) == \
            ("big", 0.2, 30, 3, "rule")
    seer = ann.llm_for("Seer")
    assert (seer.model, seer.temperature, seer.fallback) == ("small", 0.7, "listen")
    assert ann.llm_for(None) == ann.llm and ann.llm.fallback == "rule"
    # Bob's own model wins over his group's; the rest of the group's settings hold
    assert (bob.llm_for("Werewolf").model, bob.llm_for("Werewolf").temperature) == ("own", 0.2)
    assert bob.llm_for("Villager").model == "own"
    assert cid.llm is None and cid.groups == {} and cid.specs() == []
    # a tournament tells the agents apart by all their models, and prices by the role
    from maw.tournament.runner import agent_label

    roster = load_roster(path)
    assert agent_label(roster, "Ann") == "llm:scripted:small+wolves=scripted:big"
    assert agent_label(roster, "Bob") == "llm:scripted:own"


async def test_each_rounds_decider_is_made_with_the_settings_of_the_role_it_was_dealt(
        tmp_path):
    """The interface makes a round's decider when the round's first question comes, with
    the role in the player's own view: nothing else is read for it."""
    from maw.agents.model_interface import ModelInterfaceAgent
    from maw.engine import PlayerView
    from maw.protocol import messages as m
    from maw.records.log import NULL_LOG

    path = tmp_path / "groups.toml"
    path.write_text(GROUPS)
    ann = seats_from_roster(load_roster(path), 1)[0]
    agent = ModelInterfaceAgent("ui-ann@localhost", "pw", "Ann", deciders(ann, 5), NULL_LOG)
    assert agent.decider is None  # (no role yet: no model chosen)

    def question(round_: int, role: str, team: str) -> m.GetInput:
        view = PlayerView(player="Ann", role=role, team=team, alive=True, ruleset="maw",
                          day=1, phase="day", players=("Ann", "Bob"),
                          living=("Ann", "Bob"), room="Village")
        return m.GetInput(purpose="action", view=view, round=round_,
                          options=[m.Option(action="chat", room="Village")])

    agent.take_in(question(1, "Werewolf", "werewolves"))
    wolf = agent.decider
    assert wolf.llm.backend.model == "big" and wolf.temperature == 0.2
    assert wolf.llm.retry.timeout == 30 and wolf.fallback[0] == "rule"
    agent.take_in(question(1, "Werewolf", "werewolves"))
    assert agent.decider is wolf  # (one decider a round)
    agent.take_in(question(2, "Villager", "village"))
    villager = agent.decider
    assert villager is not wolf and villager.llm.backend.model == "small"
    assert villager.fallback is None  # the village's fallback: listen
    assert villager.llm.retry.retries == 3 and villager.llm.retry.timeout is None


def test_the_moderator_takes_its_own_keys_over_the_rosters_and_the_shipped_one_loads(tmp_path):
    from maw.hosting.seats import moderator_of

    path = tmp_path / "r.toml"
    path.write_text('[llm]\nbackend = "scripted"\ntemperature = 1.0\nmax_chars = 150\n'
                    '[llm.wolves]\nmodel = "big"\n[moderator]\ntemperature = 0.2\n'
                    'summary = false\n[[player]]\nname = "Ann"\ndecider = "llm"\n')
    moderator = moderator_of(load_roster(path))
    assert moderator is not None and not moderator.summary
    assert (moderator.llm.backend, moderator.llm.temperature, moderator.llm.max_chars,
            moderator.llm.model) == ("scripted", 0.2, 150, "")  # (no group's: wolves')
    path.write_text('[[player]]\nname = "Ann"\ndecider = "rule"\n')
    assert moderator_of(load_roster(path)) is None
    shipped = moderator_of(load_roster(REPO / "agents" / "narrated.toml"))
    assert shipped is not None and shipped.llm.backend == "llamacpp" and shipped.summary


async def test_the_moderators_server_is_checked_before_the_game(tmp_path):
    from maw.hosting.seats import moderator_of

    nobody = f"http://127.0.0.1:{free_port()}"
    path = tmp_path / "r.toml"
    path.write_text(f'[moderator]\nbackend = "ollama"\nbase_url = "{nobody}"\n'
                    '[[player]]\nname = "Ann"\ndecider = "rule"\n')
    roster = load_roster(path)
    with pytest.raises(BackendError, match=f"no Ollama server answers at {nobody}"):
        await check_backends(seats_from_roster(roster, 1), moderator_of(roster))


async def test_a_groups_server_is_checked_before_the_game(tmp_path):
    nobody = f"http://127.0.0.1:{free_port()}"
    path = tmp_path / "r.toml"
    path.write_text(f'[llm]\nbackend = "scripted"\n[llm.wolves]\nbackend = "ollama"\n'
                    f'base_url = "{nobody}"\n[[player]]\nname = "Ann"\ndecider = "llm"\n')
    with pytest.raises(BackendError, match=f"no Ollama server answers at {nobody}"):
        await check_backends(seats_from_roster(load_roster(path), 1))


async def test_the_backends_checked_and_timed_before_a_game_are_closed_then(tmp_path):
    """Made to check and time a model, then dropped with their clients open, they left
    the loop's end to close them: 'Event loop is closed' tracebacks after every game on
    an OpenAI-compatible server (a review's). Each is closed where it was used."""
    from maw.hosting.seats import time_models
    from maw.llm.base import Backend, Completion, register_backend

    closed: list[str] = []

    @register_backend
    class Held(Backend):
        name = "held-for-test"

        async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
            return Completion('{"text": "Hi."}')

        async def check(self):
            if self.model == "gone":
                raise BackendError("no server")

        async def aclose(self):
            closed.append(self.model)

    path = tmp_path / "r.toml"
    path.write_text('[llm]\nbackend = "held-for-test"\nmodel = "m"\n'
                    '[llm.wolves]\nmodel = "w"\n'
                    '[[player]]\nname = "Ann"\ndecider = "llm"\n')
    seats = seats_from_roster(load_roster(path), 1)
    await check_backends(seats)
    assert sorted(closed) == ["m", "w"]
    timed = await time_models(seats)
    assert len(timed) == 2 and sorted(closed) == ["m", "m", "w", "w"]
    path.write_text('[llm]\nbackend = "held-for-test"\nmodel = "gone"\n'
                    '[[player]]\nname = "Ann"\ndecider = "llm"\n')
    with pytest.raises(BackendError, match="no server"):  # (closed when it fails too)
        await check_backends(seats_from_roster(load_roster(path), 1))
    assert closed[-1] == "gone"


@pytest.mark.parametrize("text,where", [
    ('[llm.wolves]\nmodle = "big"', "llm.wolves.modle: Extra inputs are not permitted"),
    ('[llm.village]\nmax_wait = 2', "llm.village.max_wait: Extra inputs"),
    ('[llm.moderator]\nmodel = "big"', "llm.moderator: .*go in a \\[moderator\\] table"),
    ('[moderator]\nmodle = "big"', "moderator.modle: Extra inputs are not permitted"),
    ('[moderator]\nsummary = "often"', "moderator.summary: Input should be a valid boolean"),
    ('[llm]\nfallback = "coin"', "llm.fallback: Input should be 'rule', 'random' or"),
    ('[llm]\nretries = -1', "llm.retries: Input should be greater than or equal to 0"),
    ('[llm]\ntimeout = 0', "llm.timeout: Input should be greater than 0"),
])
def test_a_bad_group_or_setting_is_one_line_naming_the_file_and_key(tmp_path, text, where):
    path = tmp_path / "bad.toml"
    path.write_text(text + '\n[[player]]\nname = "Ann"\ndecider = "llm"\n')
    with pytest.raises(ConfigError, match=f"roster {path}: {where}") as info:
        load_roster(path)
    assert "\n" not in str(info.value)
    path.write_text('[[player]]\nname = "Ann"\ndecider = "llm"\nfallback = "coin"\n')
    with pytest.raises(ConfigError, match="player.0.fallback"):
        load_roster(path)


async def test_the_hybrid_roster_voices_its_lines_at_the_paper_s_settings(tmp_path):
    roster = load_roster(REPO / "agents" / "hybrid.toml")
    assert (roster.llm.temperature, roster.llm.max_tokens) == (1.0, 200)
    spec = roster.llm_for(roster.player[0])
    s = wolf_view()
    backend = ScriptedBackend(replies=[json.dumps({"text": "Cid worries me the most."})])
    llm = LLM(backend, window=4096)
    d = decider_kind("hybrid").with_model(  # type: ignore[misc]
        ModelSeat("B", "1:1", llm, Prompts(), roster.player[0].persona, spec))
    action = await d.adecide(view(s, "B"), engine.legal_actions(s, "B"), [])
    assert type(action) is engine.Chat and backend.calls
    assert (llm.last_request["temperature"], llm.last_request["max_tokens"]) == (1.0, 200)
    # a seat's own settings win over the roster's
    own = tmp_path / "own.toml"
    own.write_text((REPO / "agents" / "hybrid.toml").read_text(encoding="utf-8").replace(
        'name = "Ann"', 'name = "Ann"\ntemperature = 0.2\nmax_tokens = 64'), encoding="utf-8")
    seats = load_roster(own)
    ann, bob = (seats.llm_for(p) for p in seats.player[:2])
    assert (ann.temperature, ann.max_tokens) == (0.2, 64)
    assert (bob.temperature, bob.max_tokens) == (1.0, 200)


def test_a_roster_that_is_not_utf8_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes('[[player]]\nname = "René"\ndecider = "rule"\n'.encode("latin-1"))
    with pytest.raises(ConfigError, match=f"cannot read the roster {path}: it is not UTF-8"):
        load_roster(path)


def test_a_learned_seat_whose_policy_cannot_be_read_stops_the_roster_not_the_game(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text('[[player]]\nname = "Ann"\ndecider = "learned"\npolicy = "gone.json"\n'
                    '[[player]]\nname = "Bob"\ndecider = "rule"\n')
    with pytest.raises(ConfigError, match=f"roster {path}: player Ann: cannot read the "
                                          f"policy {tmp_path / 'gone.json'}"):
        load_roster(path)
    (tmp_path / "gone.json").write_text("{}")  # a file, but not a policy
    with pytest.raises(ConfigError, match="roster .*: player Ann: "):
        load_roster(path)
    policy = REPO / "agents" / "policies" / "maw6-village.json"
    path.write_text(f'[[player]]\nname = "Ann"\ndecider = "learned"\npolicy = "{policy}"\n')
    assert load_roster(path).player[0].policy == str(policy)
