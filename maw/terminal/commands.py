"""The text commands a person types at a terminal, and their help.

Plain text is said in the open room; every action of the engine's table is a command
(``/vote NAME``, ``/unvote``, ``/attack NAME``, ``/divine NAME``...), and ``/pass``;
``/who``, ``/role``, ``/help`` are answered locally; ``/quit`` leaves.
"""

from __future__ import annotations

from maw.agents.user_interface import Parsed
from maw.engine.actions import ACTIONS
from maw.protocol import messages as m

# the players' actions come from the engine's table; the rest is the terminal's own
LOCAL = (("/pass", "nothing to do now"), ("/who", "who is alive, and the votes so far"),
         ("/role", "your role"), ("/help", "this text"), ("/quit", "leave the game"))


def _help() -> str:
    entries = [(s.usage, s.help) for name, s in ACTIONS.items() if name != "chat"] + list(LOCAL)
    lines = ["Type a message to say it in the open room. Commands:"]
    lines += [f"  {usage:<14} {what}" for usage, what in entries]
    return "\n".join(lines)




def parse_command(text: str, options: list[m.Option]) -> Parsed:
    """Parse one typed line against the options the person has now. Names match without
    regard to case; an action the options do not offer is sent anyway when it names a
    target (the GameMaster's refusal says why), but a command that cannot be understood
    is answered here."""
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
    if word == "pass":
        return Parsed(action=m.Listen())
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
        named = {o.target.lower(): o.target for o in options
                 if o.action == word and o.target}
        target = named.get(rest.lower(), rest)
        if len(target) > 20:
            return Parsed(error=f"no player is called {target!r}")
        return Parsed(action=m.ACTION_TYPES[word](target=target))
    return Parsed(error=f"unknown command /{word}; /help lists them")


class TextCommands:
    """:class:`maw.agents.user_interface.Commands` for a terminal."""

    @property
    def help(self) -> str:
        return _help()

    def parse(self, text: str, options: list[m.Option]) -> Parsed:
        return parse_command(text, options)


TEXT = TextCommands()
