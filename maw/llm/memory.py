"""What a language-model player remembers of its whole game (AutoWerewolf's per-agent
memory): the structured facts it has heard, by day, written into every turn's prompt.

A player's conversation is cut oldest-first to fit the model's window, so a long game
forgot its first days: by day 6 of a 15-player game, day 1's coming-out was gone. The
memory keeps what a player would note down: each claim heard (a coming-out, a divination
or reading said as fact: ``maw.policies.claims``), each death, each finished vote, and its
own results. It is read from the lines the player heard (in the engine and over XMPP
alike) and from its own view, so it holds nothing the player was not told.
"""

from __future__ import annotations

import re

from maw import engine
from maw.policies.claims import parsed

# a line of talk as a player hears it: "[Village] Eve: ..." (the engine's transcript) or
# "Eve: ..." (the heard record over XMPP)
_LINE = re.compile(r"^\s*(?:\[(?P<room>[^\]]+)\] )?(?P<speaker>[^\s:\[\]]+): (?P<text>.+)$")
VOTE_DAYS = 2  # the finished votes of this many days at most (claims and deaths: all)


class Memory:
    """One player's notes of its game (see the module docstring)."""

    def __init__(self, player: str) -> None:
        self.player = player
        # (day, sentence) in the order heard, each once (a claim said again is not new)
        self.claims: dict[tuple[int, str], None] = {}
        self._said: set[str] = set()

    def hear(self, day: int, lines: list[str], players: tuple[str, ...]) -> None:
        """Note the claims in ``lines``, heard on ``day``."""
        for line in lines:
            m = _LINE.match(line)
            if m is None or m["speaker"] not in players:
                continue
            speaker = m["speaker"]
            for c in parsed(speaker, m["text"], tuple(players)):
                if c.kind == "role":
                    who = "you" if speaker == self.player else speaker
                    sentence = f"{who} said {'you are' if who == 'you' else 'they are'} " \
                               f"the {c.value}"
                elif c.kind == "species":
                    sentence = f"{speaker} said {c.target} is {_species(c.value)}"
                else:
                    continue
                if sentence not in self._said:
                    self._said.add(sentence)
                    self.claims[(day, sentence)] = None

    def text(self, view: engine.PlayerView) -> str:
        """The notes, day by day, as one paragraph for the prompt ("" before any)."""
        days: dict[int, list[str]] = {}
        for day, sentence in self.claims:
            days.setdefault(day, []).append(sentence)
        for day, kind, _round, pairs in view.vote_history:
            if kind == "execute" and day > view.day - VOTE_DAYS and pairs:
                tally: dict[str, list[str]] = {}
                for voter, target in pairs:
                    tally.setdefault(target, []).append(voter)
                counts = "; ".join(f"{t} {len(v)} ({', '.join(v)})" for t, v in sorted(
                    tally.items(), key=lambda kv: -len(kv[1])))
                days.setdefault(day, []).append(f"the votes: {counts}")
        for day, player, cause in view.deaths:
            who = "you" if player == self.player else player
            days.setdefault(day, []).append(f"{who} {_died(cause)}")
        for day, kind, target, value in view.results:
            days.setdefault(day, []).append(f"your {kind}: {target} is {_species(value)}")
        if not days:
            return ""
        return "What you remember: " + " ".join(
            f"Day {day}: {'; '.join(facts)}." for day, facts in sorted(days.items()))


def _species(value: str) -> str:
    return "a werewolf" if value.lower() in ("werewolf", "wolf") else "human"


def _died(cause: str) -> str:
    return {"executed": "was executed", "murdered": "was found murdered",
            "shot": "was shot", "exploded": "exploded"}.get(cause, f"died ({cause})")
