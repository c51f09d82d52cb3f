"""The narrating moderator (AutoWerewolf's Moderator agent; a roster's ``[moderator]``):
a model that retells what every player has just been told as a line for the Village, and
sums the game up at the end for those who watched.

It is told **public events only**: :meth:`Narrator.tells` keeps the events whose audience
is everyone, and nothing else reaches its prompt (the GameMaster hands it no other, and
``maw audit`` checks each line's events, by their numbers in the round). The rules stay
the GameMaster's: the narrator decides nothing, and its line comes after the template
messages (``vote_result``, ``end_game``...) that carry the same news.

Its words are untrusted output, like a player's (``maw.policies.gate``). A line is sent
only if it is whole sentences within ``max_chars``, repeats none of its prompt, does not
speak of itself (no "I", "me", "my"), says nothing unfit for the table
(``maw.policies.gate.unfit``), names every player the news names and no other, and names
no role the news does not (the werewolves and villagers aside, as every game has them);
its sentences after the last that keeps to the news (names one of its players, or says
it) are not said (``why = "cut to the news"``, the whole answer kept in
``refused``). Otherwise, or when the model fails or is too slow, the news goes out in the
events' own words (``by = "template"``, with why): a narrated game never stalls on its
narrator and never lies.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from maw.engine import events as ev
from maw.errors import BackendError
from maw.llm.base import Backend
from maw.llm.prompts import Prompts
from maw.llm.retry import Retry, send
from maw.policies.gate import echoes, names_in, roles_named, sentences, unfit, whole_sentences
from maw.protocol.render import event_text

# the news a narrator tells: deaths, the day's verdicts, the sheriff, the speaking order
# (a batch of public events with none of these, a chat or a vote, is not narrated)
TOLD = (ev.Murdered, ev.NoMurder, ev.Executed, ev.NoExecution, ev.Revote, ev.Spared,
        ev.Shot, ev.Exploded, ev.SheriffElected, ev.BadgePassed, ev.SpeakingOrder,
        ev.GameOver)
# ... and what it is told with them, for the facts' sake (a dead one's role, where public;
# not the tally: a model asked to retell it lists names, and the template has it already)
CONTEXT = (ev.RoleRevealed,)
# what a line must say of each kind of news, in some words: a line that keeps the names but
# not the news ("Fay is in a coma") is not the news
MEANS: dict[type, re.Pattern] = {
    ev.Murdered: re.compile(r"murder|kill|dead|died|slain|lifeless|body|struck", re.I),
    ev.NoMurder: re.compile(r"\b(?:nobody|no one|no-one|none|safe|surviv|spared|peaceful|quiet|"
                            r"everyone|all)\b", re.I),
    ev.Executed: re.compile(r"execut|hang|hanged|lynch|vot|sentenc|put to death|died|dead", re.I),
    ev.NoExecution: re.compile(r"\b(?:nobody|no one|no-one|tie|tied|spared|none)\b", re.I),
    ev.Revote: re.compile(r"tie|tied|again|revote|another", re.I),
    ev.Shot: re.compile(r"shot|shoot|hunter|gun|fire", re.I),
    ev.Exploded: re.compile(r"explod|blew|werewolf|wolf", re.I),
    ev.SheriffElected: re.compile(r"sheriff|badge|elect|no one|nobody", re.I),
    ev.BadgePassed: re.compile(r"sheriff|badge", re.I),
    ev.SpeakingOrder: re.compile(r"speak|order|turn|first|then", re.I),
}
# ... and what a line may say only if the news is of that kind: "Eve was killed by the
# Werewolf, and they were both executed", the embedded model's line for a murder
ONLY: tuple[tuple[re.Pattern, tuple[type, ...]], ...] = (
    (re.compile(r"execut|hanged|lynch|gallows", re.I),
     (ev.Executed, ev.NoExecution, ev.Revote, ev.Spared)),
    (re.compile(r"murder|slain", re.I), (ev.Murdered, ev.NoMurder, ev.GameOver)),
)
WINNERS = {"village": re.compile(r"villag", re.I), "werewolves": re.compile(r"wolf|wolves", re.I)}
LONGEST = 1000  # characters of a line (maw.protocol.messages.Narration)
COMMON_ROLES = {"Werewolf", "Villager"}  # every game has them: "the wolves struck" says none
# the moderator tells the players' news, never of itself ("I am the leader of a group
# called The Werewolf. I will be executed by Cid", said for Cid's execution)
FIRST_PERSON = re.compile(r"\b(?-i:I)\b|\b(?:I'm|me|my|mine|myself)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Line:
    """What the narrator says: its ``text``, whose words (``model``, ``template``) and why
    not the model's; the events told (their numbers in the round); the model's time."""

    text: str
    by: str
    events: tuple[int, ...]
    summary: bool = False
    why: str = ""
    seconds: float = 0.0
    tokens: int = 0
    refused: str = ""  # (by template: the model's own answer, that the gate refused)


def fact(e: ev.Event) -> str:
    """An event as the narrator reads it (the transcript's words, without their marks)."""
    return (event_text(e) or "").strip().lstrip("*=-").strip()


@dataclass
class Narrator:
    """A game's narrator: its model (``backend``, the roster's ``[moderator]`` settings),
    its prompts, and what it has told so far (``told``: the facts, in order)."""

    backend: Backend
    prompts: Prompts
    temperature: float = 0.7
    max_tokens: int = 120
    max_chars: int = 200  # a line's; the summary's is twice as long
    retry: Retry = Retry()
    summary: bool = True  # sum the game up at its end
    label: str = ""
    told: list[str] = field(default_factory=list)

    def new_round(self) -> None:
        self.told = []

    @staticmethod
    def tells(events: Sequence[tuple[int, ev.Event]]) -> list[tuple[int, ev.Event]]:
        """The events of a batch it tells (with their numbers), or none: public ones
        only, and only if one of them is news (``TOLD``)."""
        public: list[tuple[int, ev.Event]] = [
            (i, e) for i, e in events if e.audience is None and isinstance(e, TOLD + CONTEXT)]
        return public if any(isinstance(e, TOLD) for _, e in public) else []

    async def narrate(self, events: Sequence[tuple[int, ev.Event]], players: Sequence[str],
                      ruleset: str) -> Line | None:
        """Its line on ``events`` (those it ``tells``), or ``None`` if none is news."""
        mine = self.tells(events)
        if not mine:
            return None
        numbers = tuple(i for i, _ in mine)
        news = [fact(e) for _, e in mine]
        summary = self.summary and any(isinstance(e, ev.GameOver) for _, e in mine)
        template = " ".join(f"{n.rstrip('.')}." for n in news if n)
        if len(template) > LONGEST:  # (a 75-player tally)
            template = template[:LONGEST - 1].rstrip() + "…"
        day = max(getattr(e, "day", 0) for _, e in mine)
        # (the names it must keep: the news's own, not every voter of a tally told with it)
        must = " ".join(fact(e) for _, e in mine if isinstance(e, TOLD))
        over = next((e for _, e in mine if isinstance(e, ev.GameOver)), None)
        line = await self._ask("summarise.md" if summary else "narrate.md", day, players,
                               ruleset, template, must, summary,
                               {type(e) for _, e in mine}, over.winner if over else None)
        self.told.extend(news)
        return Line(line[0], line[1], numbers, summary, *line[2:])

    async def _ask(self, prompt_file: str, day: int, players: Sequence[str],
                   ruleset: str, template: str, must: str, summary: bool,
                   kinds: set[type], winner: str | None
                   ) -> tuple[str, str, str, float, int, str]:
        chars = self.chars(summary)
        prompt = self.prompts.render(
            prompt_file, ruleset=ruleset, players=", ".join(players), day=day,
            before=" ".join(f"{f.rstrip('.')}." for f in self.told) or "nothing yet.",
            news=template, max_chars=chars)
        schema = {"type": "object", "properties": {"text": {
            "type": "string", "minLength": 1, "maxLength": chars}},
            "required": ["text"], "additionalProperties": False}
        t0 = time.monotonic()
        try:
            answer = await send(self.backend, [{"role": "user", "content": prompt}], schema,
                                self.max_tokens, self.temperature, self.retry, [])
        except BackendError as exc:
            return template, "template", f"the model failed: {exc}", \
                time.monotonic() - t0, 0, ""
        seconds = time.monotonic() - t0
        tokens = answer.prompt_tokens + answer.completion_tokens
        try:
            said = str(json.loads(answer.text, strict=False)["text"]).strip()
        except (json.JSONDecodeError, KeyError, TypeError):
            return template, "template", "not the answer's form", seconds, tokens, \
                answer.text
        # (a whole answer, its JSON closed, that ends on a word or a bracket: a full stop;
        # "Ann is executed (2 votes)" was refused as not a sentence in a real game)
        if said and (said[-1].isalnum() or said[-1] in ")]'\""):
            said += "."
        text, why = self.check(said, template, players, summary, must)
        whole = text
        if text is not None:
            text = self.on_the_news(text, must if not summary else template + " " +
                                    " ".join(self.told), players, kinds)
            why = "" if text is not None else "it does not keep to the news"
        if text is not None:
            why = self.untrue(text, kinds, winner)
            text = None if why else text
        if text is None:
            return template, "template", why, seconds, tokens, said
        if text != whole:  # (the sentences after the news, that it made up, are not said)
            return text, "model", "cut to the news", seconds, tokens, said
        return text, "model", "", seconds, tokens, ""

    @staticmethod
    def on_the_news(text: str, news: str, players: Sequence[str],
                    kinds: set[type]) -> str | None:
        """``text`` up to its last sentence that keeps to the news: one that names a player
        the news names, or says one of its kinds of news (``MEANS``) or who won. What it
        adds after that, nobody told it (the embedded model, after "Eve was found
        murdered.": "She is in a coma, and she has been taken to the hospital"), and it
        is not said; ``None`` if no sentence keeps to the news."""
        named = names_in(news, players)
        said = sentences(text)
        last = max((i for i, sentence in enumerate(said)
                    if names_in(sentence, players) & named
                    or any(MEANS[k].search(sentence) for k in kinds if k in MEANS)
                    or (ev.GameOver in kinds and any(w.search(sentence)
                                                     for w in WINNERS.values()))),
                   default=None)
        return None if last is None else " ".join(said[:last + 1])

    @staticmethod
    def untrue(text: str, kinds: set[type], winner: str | None) -> str:
        """What ``text`` fails to say of the news (``MEANS``; the game's end: who won, and
        not the other side), or ""."""
        for kind in kinds:
            means = MEANS.get(kind)
            if means is not None and not means.search(text):
                return f"it does not say the news ({kind.__name__})"
        for words, news in ONLY:
            if (said := words.search(text)) and not kinds & set(news) and \
                    ev.GameOver not in kinds:
                return f"it says {said.group(0)!r}, which the news does not"
        if ev.GameOver in kinds:
            if winner is None:
                return "" if re.search(r"draw|nobody|no one|no side", text, re.I) else \
                    "it does not say the game was a draw"
            if not WINNERS[winner].search(text):
                return f"it does not say the {winner} won"
            other = next(w for w in WINNERS if w != winner)
            if re.search(rf"(?:{WINNERS[other].pattern})\w*\s+(?:win|won|triumph)", text, re.I):
                return f"it says the {other} won"
        return ""

    def chars(self, summary: bool) -> int:
        return self.max_chars * (2 if summary else 1)

    def check(self, text: str, news: str, players: Sequence[str], summary: bool = False,
              must: str | None = None) -> tuple[str | None, str]:
        """The gate of a narrator's line: ``(text, "")`` to say, or ``(None, why)``. It
        names every player ``must`` names (default: ``news``) and none that ``news`` does
        not (a summary: nor what was told before)."""
        said, _cut = whole_sentences(text.strip().strip('"'), self.chars(summary))
        if said is None:
            return None, "not a whole sentence"
        echo = echoes(said, [self.prompts.source("narrate.md"),
                             self.prompts.source("summarise.md")], allowed=news)
        if echo:
            return None, f"it repeats its prompt ({echo!r})"
        if FIRST_PERSON.search(said):
            return None, "it speaks of itself, not of the players"
        if (word := unfit(said)) is not None:
            return None, f"it says what no one at the table should hear ({word!r})"
        named = names_in(said, players)
        wanted = names_in(news if must is None else must, players)
        if not summary and wanted - named:
            return None, f"it leaves out {', '.join(sorted(wanted - named))}"
        known = news + (" " + " ".join(self.told) if summary else "")
        extra = named - names_in(known, players)
        if extra:
            return None, f"it names {', '.join(sorted(extra))}, whom the news does not"
        roles = roles_named(said) - roles_named(news) - COMMON_ROLES
        if summary:
            roles -= roles_named(" ".join(self.told))
        if roles:
            return None, f"it names the role {', '.join(sorted(roles))}, which the news does not"
        return said, ""


def narrator_for(backend: Backend, prompts: Prompts, *, temperature: float, max_tokens: int |
                 None, max_chars: int, retry: Retry, summary: bool) -> Narrator:
    """A narrator with a roster's ``[moderator]`` settings."""
    return Narrator(backend, prompts, temperature, max_tokens or 120, max_chars, retry,
                    summary, backend.describe())
