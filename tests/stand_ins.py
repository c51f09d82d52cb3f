"""Who the tests seat besides the house's own players: a person at a terminal (a real
``maw play`` under a pseudo-terminal) and a stand-in model that takes the first choice it
is offered."""

from __future__ import annotations

import json
import os
import sys

import pexpect

from maw.llm.backends import ScriptedBackend

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]


def person(xmpp: str, name: str, rows: int = 50, columns: int = 220) -> pexpect.spawn:
    # (pexpect is no terminal emulator: it never answers prompt_toolkit's cursor position
    # requests, and prompt_toolkit then waits for them with the input detached; say so)
    env = dict(os.environ, TERM="xterm-256color", PYTHONUNBUFFERED="1",
               PROMPT_TOOLKIT_NO_CPR="1")
    return pexpect.spawn(sys.executable, ["-m", "maw", "play", "--name", name,
                                          *xmpp.split()],
                         env=env, encoding="utf-8", timeout=60, dimensions=(rows, columns))


class FirstChoice(ScriptedBackend):
    """A stand-in model that reads the guiding prompt and takes the first decision it
    offers (a vote, an attack...), with the first name listed: the plumbing, not play."""

    name = "first-choice-for-test"

    async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
        prompt = messages[-1]["content"]
        line = next(x for x in prompt.splitlines() if x.startswith("You may now: "))
        first = line.removeprefix("You may now: ").split("; ")[0]
        kind, _, names = first.partition(" (")
        target = names.rstrip(").").split(", ")[0] if names else None
        text = "I have my eye on someone." if kind == "chat" else None
        rated = (schema or {"anyOf": [{"properties": {}}]})["anyOf"][0]["properties"].get(
            "suspicion", {}).get("required", [])
        suspicion = {n: 10 * (i % 11) for i, n in enumerate(rated)}
        self.replies.append(json.dumps({"suspicion": suspicion, "action": kind,
                                        "target": target, "text": text}))
        return await super().chat(messages, schema, max_tokens, temperature)
