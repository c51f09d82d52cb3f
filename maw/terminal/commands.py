"""The text commands a person types at a terminal, and their help.

Plain text is said in the open room; every action of the engine's table is a command
(``/vote NAME``, ``/unvote``, ``/attack NAME``, ``/divine NAME``...), and ``/ready`` (or
``/pass``); ``/who``, ``/role``, ``/help`` are answered locally; ``/score`` asks the GameMaster
(``show_score``); ``/quit`` leaves.
``/help`` lists only what the person's role may do in this game's ruleset.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from maw.agents.user_interface import Parsed
from maw.engine.actions import ACTIONS, ActionSpec
from maw.engine.roles import role_named
from maw.engine.rules import possible_actions
from maw.engine.rulesets import ruleset
from maw.errors import MawError
from maw.protocol import messages as m

# the players' actions come from the engine's table; the rest is the terminal's own
READY = "/ready"
LOCAL = ((READY, "done for now: the day ends once everyone has voted and is ready "
                 "(/pass too); anything you do after takes it back"),
         ("/who", "who is alive, and the votes so far"),
         ("/score", "the points of the rounds over so far (asked of the GameMaster)"),
         ("/role", "your role"), ("/help", "this text"), ("/quit", "leave the game"))


def _actions(view: dict[str, Any] | None) -> list[ActionSpec]:
    """The actions of the person's role in its game (all of them before it has one)."""
    v = view or {}
    try:
        rules = ruleset(str(v["ruleset"]), **dict(v.get("rule_options") or ()))
        role = role_named(str(v["role"]))
    except (KeyError, ValueError, MawError):
        return [s for s in ACTIONS.values()]
    return list(possible_actions(rules, role))


def _help(view: dict[str, Any] | None = None) -> str:
    entries = [(s.usage, s.help) for s in _actions(view) if s.name != "chat"] + list(LOCAL)
    lines = ["Type a message to say it in the open room. Commands:"]
    lines += [f"  {usage:<14} {what}" for usage, what in entries]
    lines += TALK
    return "\n".join(lines)


# how the AI players read the talk (maw.policies.claims: the rule players' grammar; a
# model player reads any words)
TALK = ["Rule players understand plain statements, one a sentence: \"I suspect Bob.\", "
        "\"Vote Bob.\", \"Bob is suspicious.\", \"I trust Bob.\", \"I am the Seer.\", "
        "\"Bob is a werewolf.\" / \"Bob is human.\" (a result you claim)."]



def parse_command(text: str, options: list[m.Option],
                  players: Sequence[str] = ()) -> Parsed:
    """Parse one typed line against the options the person has now. Names match the
    options' and the table's (``players``) without regard to case; an action the options
    do not offer is sent anyway when it names a target (the GameMaster's refusal says
    why), but a command that cannot be understood is answered here."""
    text = text.strip()
    if not text:
        return Parsed()
    if not text.startswith("/"):
        room = next((o.room for o in options if o.action == "chat"), None)
        if room is None:
            return Parsed(error="you cannot speak now (no room is open to you)")
        return Parsed(action=m.Chat(message=text, room=room))
    word, _, rest = text[1:].partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("help", "who", "role", "quit"):
        return Parsed(local=word)
    if word in ("score", "scores"):
        return Parsed(local="score")
    if word in ("pass", "ready"):
        return Parsed(action=m.Listen(ready=True))
    spec = ACTIONS.get(word)  # (the table now: an action registered later is a command)
    if spec is not None and not spec.target and word != "chat":
        return Parsed(action=m.ACTION_TYPES[word]())
    if spec is not None and spec.target and spec.text:  # /whisper NAME TEXT
        name, _, said = rest.partition(" ")
        if not name or not said.strip():
            return Parsed(error=f"{spec.usage}: a name, then what to say")
        return Parsed(action=m.ACTION_TYPES[word](target=name, message=said.strip()))
    if spec is not None and spec.target:
        if not rest:
            legal = [o.target for o in options if o.action == word and o.target]
            hint = f": {', '.join(legal)}" if legal else ""
            return Parsed(error=f"/{word} needs a name{hint}")
        # (the table's names too: one not offered, such as one's own, was refused as
        # "'alice' is not a player", not for what it was)
        named = {n.casefold(): n for n in players}
        named.update((o.target.casefold(), o.target) for o in options
                     if o.action == word and o.target)
        target = named.get(rest.casefold(), rest)
        if len(target) > 20:
            return Parsed(error=f"no player is called {target!r}")
        return Parsed(action=m.ACTION_TYPES[word](target=target))
    return Parsed(error=f"unknown command /{word}; /help lists them")


class TextCommands:
    """:class:`maw.agents.user_interface.Commands` for a terminal."""

    def help(self, view: dict[str, Any] | None = None) -> str:
        """The commands of the person's role in this game (``view``: what it sees)."""
        return _help(view)

    def parse(self, text: str, options: list[m.Option],
              players: Sequence[str] = ()) -> Parsed:
        return parse_command(text, options, players)


TEXT = TextCommands()
