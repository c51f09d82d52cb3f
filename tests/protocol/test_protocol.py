"""The wire format: every message round-trips; anything else is a clear ProtocolError."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from maw import engine
from maw.protocol import ProtocolError, convert, decode, decode_body, encode, encode_all
from maw.protocol import messages as m

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
EXAMPLES = re.findall(r"```json\n(.*?)\n```", DOC.read_text(), re.S)


def test_every_message_type_is_documented_with_an_example():
    documented = {json.loads(e)["type"] for e in EXAMPLES}
    union = m.AnyBody.__origin__.__args__  # type: ignore[attr-defined]
    assert documented == {cls.model_fields["type"].default for cls in union}


@pytest.mark.parametrize("example", EXAMPLES)
def test_documented_examples_round_trip_through_spade_messages(example):
    body = decode_body(example)
    msg = encode(body, "someone@localhost", thread="t1")
    assert msg.get_metadata("type") == body.type
    assert msg.get_metadata("performative") == body.PERFORMATIVE
    assert msg.thread == "t1"
    assert decode(msg) is body  # (in memory, within one process: the very body)
    assert decode(wire_copy(msg)) == body  # (through a server: read from its JSON)


def wire_copy(msg):
    """``msg`` as an agent gets it through a server: a new message, its body JSON text."""
    from spade.message import Message

    return Message(to=str(msg.to), body=msg.body, thread=msg.thread,
                   metadata={k: msg.get_metadata(k) for k in ("type", "performative")})


def test_a_body_is_validated_unless_it_was_encoded_in_this_process():
    # a message handed over in memory by SPADE's container is the object encode made,
    # with the body it was made from: that body is taken as it is. Any other message is
    # decoded from its text in full: its text may say anything
    msg = encode(m.Vote(target="Bob"), "gm@localhost")
    tampered = wire_copy(msg)
    tampered.body = msg.body.replace("Bob", "Bob; DROP")
    with pytest.raises(ProtocolError, match="should match pattern"):
        decode(tampered)
    # ... and a text set on it since is a text like any other, the wire's limit and all
    big = encode(m.Chat(message="x" * 1000), "room@localhost")
    big.body = "x" * 70_000
    with pytest.raises(ProtocolError, match="byte limit"):
        decode(big)


def test_a_body_encoded_here_is_written_as_json_only_when_read_and_once_for_all():
    """A message handed over in memory is never written out (a 75-player game wrote
    280 MB of questions nobody read); what leaves the process is, once for every
    recipient, and reads back as the body."""
    body = m.Chat(message="I suspect Bob.")
    msgs = encode_all(body, ["a@localhost", "b@localhost"], "t1")
    assert decode(msgs[0]) is body and msgs[0]._json.text is None  # not written
    text = msgs[1].body  # (read: by a stanza, a proof)
    assert msgs[0]._json.text is text and msgs[0].body is text  # written once, shared
    assert decode(wire_copy(msgs[0])) == body


@pytest.mark.parametrize("text,error", [
    ("", "empty body"),
    ("{oops", "malformed JSON"),
    ('{"type": "vote"}', "vote.target: Field required"),
    ('{"type": "vote", "target": "Bob", "sneaky": 1}', "Extra inputs are not permitted"),
    ('{"type": "teleport"}', "does not match any of the expected tags"),
    ('{"type": "vote", "target": "Bob; DROP"}', "should match pattern"),
    ('{"type": "chat", "message": ""}', "at least 1 character"),
    ("x" * 70_000, "byte limit"),
])
def test_bad_bodies_say_what_is_wrong(text, error):
    with pytest.raises(ProtocolError, match=re.escape(error)):
        decode_body(text)


def test_metadata_type_must_match_the_body():
    msg = encode(m.Vote(target="Bob"), "gm@localhost")
    msg.set_metadata("type", "chat")
    with pytest.raises(ProtocolError, match="does not match"):
        decode(msg)


def test_options_and_actions_convert_both_ways():
    legal = (engine.Chat("Ann", engine.Room.VILLAGE), engine.Vote("Ann", "Bob"),
             engine.Unvote("Ann"), engine.Attack("Ann", "Cid"), engine.Over("Ann",
             engine.Room.HIDEOUT))
    opts = convert.options(legal)
    assert [o.action for o in opts] == ["chat", "vote", "unvote", "attack", "over"]
    back = [convert.option_to_engine(o, "Ann", "hi") for o in opts]
    assert back[1:] == list(legal[1:]) and back[0] == engine.Chat("Ann", engine.Room.VILLAGE,
                                                                  "hi")
    assert convert.to_engine(m.Vote(target="Bob"), "Ann") == engine.Vote("Ann", "Bob")
    assert convert.to_engine(m.Chat(message="hi"), "Ann", "Hideout") == \
        engine.Chat("Ann", engine.Room.HIDEOUT, "hi")


def test_the_view_survives_the_wire():
    import random
    state = engine.new_game(engine.ruleset("maw"), list("ABCDEF"), random.Random(1))
    v = engine.view(state, "A")
    body = m.PhaseChange(day=1, new_phase="day", seconds=3, view=v, options=[])
    again = decode_body(body.model_dump_json())
    assert again.view == v and isinstance(again.view, engine.PlayerView)
    assert again.view.known_roles == dict(v.known_roles)
    # a view with a field the engine has not, or of the wrong type, is refused
    data = json.loads(body.model_dump_json())
    for bad in ({"bogus": 1}, {"day": "one"}):
        with pytest.raises(ProtocolError):
            decode_body(json.dumps({**data, "view": {**data["view"], **bad}}))
    assert isinstance(again, BaseModel)


@pytest.mark.parametrize("name,n,options", [
    ("maw", 6, {"seer": "1", "whisper": "on"}), ("aiwolf-15", 15, {}), ("werewolf-12", 12, {}),
    ("aiwolf-5", 5, {})])
def test_a_view_sent_unvalidated_is_the_view_validated(name, n, options):
    """The GameMaster sends a player's view as the engine made it, not validated again,
    and the wire's view is the engine's own class: at every state of random games, for
    every player, the view read back from the wire is the engine's view, and validating
    the engine's view changes nothing."""
    import dataclasses
    import random

    from pydantic import TypeAdapter

    from maw.protocol.heard import View

    adapter = TypeAdapter(View)
    rng = random.Random(7)
    for game in range(3):
        state = engine.new_game(engine.ruleset(name, **options),
                                [f"p{i}" for i in range(n)], random.Random(game))
        while True:
            for player in state.names:
                v = engine.view(state, player)
                wire = adapter.dump_json(v)
                back = adapter.validate_json(wire)
                assert back == v and type(back) is engine.PlayerView
                assert adapter.dump_json(back) == wire
                assert adapter.validate_python(adapter.dump_python(v)) == v
            if state.is_over:
                break
            acts = [a for p in state.names for a in engine.legal_actions(state, p)]
            action = rng.choice(acts) if acts and rng.random() < 0.9 else engine.EndPhase()
            if isinstance(action, (engine.Chat, engine.Whisper)):
                action = dataclasses.replace(action, text="hello")
            state, _ = engine.play(state, action)


def test_the_wire_and_every_layer_take_their_actions_from_the_engines_table():
    from maw.agents.gamemaster import referee_types
    from maw.agents.player import fsm_types
    from maw.llm.answers import order
    from maw.terminal.commands import TEXT

    assert set(m.ACTION_TYPES) == {*engine.ACTIONS, "listen"}
    for name, spec in engine.ACTIONS.items():
        model = m.ACTION_TYPES[name]
        assert model.model_fields["type"].default == name
        assert ("target" in model.model_fields) == spec.target
        assert m.Option(action=name).action == name
        if name != "chat":
            assert spec.usage in TEXT.help()  # (before a role is dealt: all of them)
    assert set(referee_types()) - {"join_lobby", "chat_check", "show_score"} == set(
        m.ACTION_TYPES) - {"chat"}  # chat goes to the rooms
    assert set(m.ACTION_TYPES) <= set(fsm_types())
    assert sorted(order()) == sorted(engine.ACTIONS)
    with pytest.raises(ValueError, match="is not an action"):
        m.Option(action="fly")


def test_one_rule_for_names_on_the_wire_in_rosters_and_on_the_command_line(tmp_path):
    # (five checks disagreed: `maw player --name Zoë` passed the command line and was
    # refused inside the player's state machine)
    import subprocess
    import sys

    from pydantic import ValidationError

    from maw.errors import ConfigError
    from maw.hosting.roster import load_roster

    for bad in ("Zoë", "a b", "", "x" * 21, "Ann;"):
        with pytest.raises(ConfigError, match="bad name .*: use 1 to 20 letters"):
            m.check_name(bad)
        with pytest.raises(ValidationError):
            m.JoinLobby(player_name=bad)
    assert m.check_name("Ann-2_b") == "Ann-2_b"
    roster = tmp_path / "r.toml"
    roster.write_text('[[player]]\nname = "Zoë"\n')
    with pytest.raises(ConfigError, match="player.0.name"):
        load_roster(roster)
    for command in (["player", "--name", "Zoë"], ["play", "--name", "Zoë"]):
        out = subprocess.run([sys.executable, "-m", "maw", *command, "--xmpp", "127.0.0.1:9"],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and "bad name 'Zoë'" in out.stderr, out.stderr
