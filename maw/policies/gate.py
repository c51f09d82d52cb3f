"""The gate a language model's words pass before anyone hears them (the hybrid paper's
"untrusted output"): one check for every decider that talks (``llm``, ``hybrid``, and
the AIWolf client's seats, which run those deciders).

A line is refused when it

* **echoes its prompt**: the instructions' own words (four of them in a row, that the
  line was not asked to say), its own name as the prompt tells it ("You are Ann"),
  braces, JSON keys, ``$`` variables, "at most N characters", "Your pack:", a chat
  template's tokens (``<</SYS>>``, ``[INST]``, ``<|im_start|>``);
* **gives away what the speaker's role keeps hidden**: a werewolf's role, pack or
  Hideout said in the open, a role the speaker came out as when its strategy chose not to
  (a Seer before it comes out);
* **names a role the game does not have** ("she is a witch" in a game without a Witch);
* **contradicts what the speaker may say** (:func:`contradictions`: a Game Master's voice,
  another player's (a sentence begun "Cid:", as the talk is written), a packmate named a
  werewolf, a role or a result it does not have, a dead player addressed);
* **is not a sentence**: it stops mid-word or mid-sentence, or leaves a bracket open. A
  line whose last sentence is cut is first cut back to its last full sentence; only a
  line with no full sentence in it is refused for it. The speaker's own name put before
  its line ("Dee: ...") is dropped: the room says who speaks.

:func:`check` says what may be said (``Verdict.text``) and why a line was refused
(``Verdict.faults``, each a short sentence for the log, the re-prompt and the summary);
:func:`fault_kind` names a fault's kind for counting.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from maw.engine import PlayerView
from maw.engine.roles import ROLES
from maw.policies import claims
from maw.policies.base import rules_of

# the kinds of fault, as the summary and the reports count them
ECHO, SECRET, ROLE, CONTRADICTS, SENTENCE = "echo", "secret", "role", "contradicts", "sentence"
UNFIT, MEANING = "unfit", "meaning"

_MARKERS = re.compile(
    r"[{}$\\]|\"\w+\"\s*:|\bat most \d+ characters\b|\b\d+ characters\b|\byour \w+\s*:|"
    r"\banswer with\b|\bjson\b|\b(?-i:WHAT YOU SAY)\b|\bin your own voice\b|"
    # a chat template's own tokens (<</SYS>>, [INST], <|im_start|>, <start_of_turn>, </s>),
    # which a model served with another model's template writes back
    r"<{1,2}[/|]?[a-z_|]+\|?>{1,2}|\[/?inst\]", re.IGNORECASE)
_GM = re.compile(r"\[\s*gm\s*\]|\bgame ?master\b|\balive:", re.IGNORECASE)
# a werewolf's own side, said in the open
_PACK_TALK = re.compile(
    r"\b(?:my|our) (?:pack|fellow (?:wolves|werewolves)|packmates?)\b|"
    r"\b(?:us|we|fellow) (?:were)?wolves\b|\bwe (?:are )?(?:the )?(?:werewolves|wolves)\b|"
    r"\bI(?: am|'m) (?:a |the |one of the )?(?:were)?wolf\b|\bwolf ?pack\b|\bpackmates?\b|"
    r"\bhideout\b|\bmy (?:fellow )?(?:were)?wolf\b|\bthe pack\b|\bpack\b",
    re.IGNORECASE)
# a speaker calling itself a wolf in other words than the claims grammar's "I am a
# werewolf" (a villager of the README's main game: "I am from the village, and have been
# a werewolf for many years now.")
_SELF_WOLF = re.compile(
    r"\b(?:I(?:'m| am|'ve been| have been| was)|and (?:I )?(?:have|'ve) been)"
    r"(?: (?:really|actually|secretly|also|truly|always))? (?:a |the |one of the )?"
    r"(?:were)?wol(?:f|ves)\b", re.IGNORECASE)
# what nobody at a game's table should hear, whoever speaks: the embedded model, asked to
# retell a murder, added "She was raped and strangled in her room" (a real game). A short
# list of the plainest words; a model's other inventions are kept out by what a line must
# say (the narrator keeps to the news, a player's line to its intent)
_UNFIT = re.compile(
    r"\b(?:rap(?:e|ed|es|ing|ist)|sexual(?:ly)?|molest\w*|incest\w*|porn\w*|genital\w*|"
    r"naked|nude|tortur\w*|kill (?:yo)?urself|suicid\w*)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?…](?:[\"'”’)\]]*)(?=\s|$)")
_CLOSERS = "\"'”’)] "
_WORD = re.compile(r"[a-z0-9']+")


@dataclass(frozen=True)
class Verdict:
    """What a line may be: ``text`` (cut back to its last full sentence where its end was
    cut off), or ``None`` with ``faults`` saying why nothing of it may be said."""

    text: str | None
    faults: tuple[str, ...] = ()
    cut: bool = False

    @property
    def ok(self) -> bool:
        return self.text is not None


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _grams(words: list[str], n: int = 4) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


@lru_cache(maxsize=64)
def _template_grams(text: str) -> frozenset[tuple[str, ...]]:
    """The four-word runs of a prompt's own words (its ``$variables`` left out)."""
    plain = string.Template(text).safe_substitute(
        {k: "\n" for k in re.findall(r"\$(\w+)", text)})
    out: set[tuple[str, ...]] = set()
    for part in plain.split("\n"):  # (a variable breaks a run)
        out |= _grams(_words(part))
    return frozenset(out)


def echoes(text: str, instructions: Iterable[str], allowed: str = "") -> str | None:
    """The first run of the instructions' words that ``text`` repeats (and ``allowed``,
    what it was asked to say, does not have), or ``None``."""
    mine = _grams(_words(text))
    if not mine:
        return None
    ok = _grams(_words(allowed))
    for instruction in instructions:
        hit = sorted((mine & _template_grams(instruction)) - ok)
        if hit:
            return " ".join(hit[0])
    return None


ALIASES = {"Guard": "Bodyguard", "Bodyguard": "Guard"}  # one power, two rulesets' names


def _names_all(text: str, pack: tuple[str, ...]) -> bool:
    """Does ``text`` name every member of a pack of two or more (the speaker too)?"""
    return len(pack) > 1 and all(re.search(rf"\b{re.escape(p)}\b", text) for p in pack)


def _own_label(text: str, me: str) -> str:
    """``text`` without the speaker's own name put before it as the talk is written
    ("Dee: I suspect Bob." said by Dee: the room says who speaks)."""
    return re.sub(rf"^{re.escape(me)}\s*:\s*", "", text)


def _told_who(text: str, me: str) -> str | None:
    """The prompt's "You are ... the player ME", said back by ME to the table ("You are
    Ann. You have been asked by the Village...", a line of the README's main game):
    what of it the line says, or ``None``."""
    found = re.search(rf"\byou(?: are|'re)(?: playing\b.*?\bas)?(?: the player)? "
                      rf"{re.escape(me)}\b(?!['’]s\b)", text, re.IGNORECASE)
    return found.group(0) if found else None


def roles_in_game(view: PlayerView) -> set[str]:
    """The roles dealt in the speaker's game."""
    return {r.name for r in rules_of(view).roles_for(len(view.players))}


def _role_pattern(name: str) -> re.Pattern:
    """A role named as a role: capitalised ("the Witch") or after an article or "am",
    "is", "as" ("she is a witch"); words that are also common English ("guard", "idiot",
    "medium") only so."""
    words = re.escape(name).replace(r"\ ", r"\s+")
    article = r"\b(?:the|a|an|our|my|your|their|is|am|as|real|fake)\s+"
    return re.compile(rf"(?:{article}(?i:{words})|\b{words})s?\b")


def foreign_roles(text: str, view: PlayerView) -> list[str]:
    """The roles ``text`` names that the game has not dealt."""
    dealt = roles_in_game(view)
    out = []
    for role in ROLES.values():
        if role.name in dealt or role.name in ("Villager", "Werewolf"):
            continue
        if ALIASES.get(role.name, role.name) in dealt:
            continue  # (a Guard is what the Bodyguard's game calls a guard too)
        if _role_pattern(role.name).search(text):
            out.append(role.name)
    return out


def names_in(text: str, players: Iterable[str]) -> set[str]:
    """The players ``text`` names (whole words)."""
    return {p for p in players if re.search(rf"\b{re.escape(p)}\b", text)}


def names_lost(text: str, meant: str, players: Iterable[str]) -> list[str]:
    """The players ``meant`` names that ``text``, its wording by a model, leaves out: a
    voiced vote that no longer says for whom has lost its meaning."""
    players = list(players)
    return sorted(names_in(meant, players) - names_in(text, players))


# words too common to carry what a line means (a line's other words of four letters or
# more, by their first four letters, are what its wording must keep one of), and a few
# that mean the same at a werewolf table
_COMMON = frozenset(
    "about also been both does done each even from have here into just know like made "
    "make many more most much must only over said same some such than that them then "
    "there these they this those very want well were what when where which while will "
    "with would could should your yours ours their today everyone everybody".split())
_SAME = {**dict.fromkeys("hello hi hey greetings morning evening welcome".split(), "hello"),
         **dict.fromkeys("enjoy fun happy glad play playing luck".split(), "enjoy"),
         **dict.fromkeys("vote votes voted voting execute executed execution lynch "
                         "eliminate".split(), "vote"),
         **dict.fromkeys("find hunt search catch track".split(), "find")}


def _keys(text: str, players: Iterable[str]) -> set[str]:
    """What ``text``'s own words mean, roughly: each word of four letters or more that is
    not common and not a player's name, by its first four letters (a wolf's every name
    as "wolf", and ``_SAME``'s words as one)."""
    names = {p.lower() for p in players}
    out = set()
    for w in _words(text):
        if w in _SAME:
            out.add(_SAME[w])
        elif len(w) >= 4 and w not in _COMMON and w not in names:
            out.add("wolf" if "wolf" in w or "wolves" in w else w[:4])
    return out


def _claim_words(c: claims.Claim) -> str:
    if c.kind == "role":
        return f"you are the {c.value}"
    if c.kind == "species":
        return f"{c.target} is {'a werewolf' if c.value == 'werewolf' else 'human'}"
    if c.target == c.speaker:  # ("I'm voting for Bob", said by Bob)
        return f"you {'suspect or vote for' if c.kind == 'suspect' else 'trust'} yourself"
    return f"you {'suspect' if c.kind == 'suspect' else 'trust'} {c.target}"


def unfaithful(text: str, meant: str, speaker: str, players: Iterable[str],
               why: str = "") -> list[str]:
    """Why ``text``, a model's wording of what ``speaker`` means to say (``meant``: its
    strategy's line, and ``why``: the reason it may give), does not say it, each reason a
    sentence (empty: it does): players ``meant`` names that it leaves out (a vote that no
    longer says for whom; the speaker's own name aside), other players, statements of the
    claims grammar that neither makes (another vote, a role, a result), or, where they
    name no other player, none of their words (a greeting that became "I was born in
    Osaka. I'm an animal")."""
    players = tuple(players)
    faults = []
    lost = [p for p in names_lost(text, meant, players) if p != speaker]
    if lost:
        faults.append(f"it leaves out {', '.join(lost)}, whom what you mean to say names")
    both = f"{meant} {why}"
    added = sorted(names_in(text, players) - names_in(both, players) - {speaker})
    if added:
        faults.append(f"it names {', '.join(added)}, whom what you mean to say does not")
    wanted = set(claims.parsed(speaker, meant, players)) | \
        set(claims.parsed(speaker, why, players))
    faults += [f"it says {_claim_words(c)}, which is not what you mean"
               for c in claims.parsed(speaker, text, players) if c not in wanted]
    keep = _keys(both, players)
    if not faults and keep and not keep & _keys(text, players) and \
            not names_in(both, players) - {speaker}:  # (a line about a player is bound by
        # its names and its claims: "Honestly, D worries me" says "I suspect D")
        faults.append("it says nothing of what you mean")
    return list(dict.fromkeys(faults))


def roles_named(text: str) -> set[str]:
    """The roles ``text`` names as roles (``_role_pattern``), by their names in MAW."""
    return {role.name for role in ROLES.values() if _role_pattern(role.name).search(text)}


def unfit(text: str) -> str | None:
    """The first word of ``text`` that no one at a game's table should hear, or ``None``."""
    found = _UNFIT.search(text)
    return found.group(0) if found else None


def sentences(text: str) -> list[str]:
    """``text``'s sentences, each with its end mark (a last one without is kept too)."""
    out, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        out.append(text[start:end.end()].strip())
        start = end.end()
    if text[start:].strip():
        out.append(text[start:].strip())
    return [s for s in out if s]


def whole_sentences(text: str, max_chars: int) -> tuple[str | None, bool]:
    """``text`` within ``max_chars``, ending with a full sentence: as it is, or cut back to
    its last full sentence (``True``: it was cut); ``None``: not one full sentence."""
    text = " ".join(text.split())
    head = text[:max_chars].rstrip()
    if _ends_a_sentence(head) and len(text) <= max_chars and _balanced(head):
        return head, False
    ends = [m.end() for m in _SENTENCE_END.finditer(head)]
    for end in reversed(ends):
        cut = head[:end].rstrip()
        if len(_words(cut)) >= 2 and _balanced(cut):
            return cut, True
    return None, False


def _ends_a_sentence(text: str) -> bool:
    """Does ``text`` end as a sentence does: a full stop, a question or an exclamation
    mark (or a persona's "~", "♪", an emoji), closing quotes or brackets after it?"""
    core = text.rstrip(_CLOSERS)
    if not core:
        return False
    last = core[-1]
    return last in ".!?…~♪" or unicodedata.category(last) == "So"


def _balanced(text: str) -> bool:
    return text.count("(") == text.count(")") and text.count("[") == text.count("]") and \
        text.count('"') % 2 == 0 and text.count("“") == text.count("”")


def contradictions(text: str, view: PlayerView, allowed: Iterable[claims.Claim] | None = None
                   ) -> list[str]:
    """What ``text`` says that ``view.player`` may not: each reason a sentence (empty: it
    may be said). Checked: a Game Master impersonation; a werewolf naming its own role or
    its pack; a role or a result claimed that the speaker does not have and its intent
    does not claim on purpose (``allowed``; ``None``: no intent, the speaker's own role
    may be claimed); a villager calling itself a werewolf; a dead player addressed or
    accused as alive."""
    me = view.player
    wrong: list[str] = []
    if _GM.search(text):
        wrong.append("it speaks as the Game Master")
    for name in view.players:  # (a line of the transcript's form, "Cid: ...", put in
        # another's mouth: a werewolf-12 game's "Ann, Bob. Cid: I'm sorry to say it")
        if name != me and re.search(rf"(?:^|[.!?…][\"'”’)\]]*\s+){re.escape(name)}\s*:(?!\d)",
                                    text):
            wrong.append(f"it speaks in {name}'s voice (\"{name}:\", as the talk is written)")
    said = claims.parse(me, text, view.players)
    chosen = set(allowed) if allowed is not None else set()
    if view.pack:
        for c in said:
            if c.kind == "species" and c.target in view.pack and c.value == "werewolf" \
                    and c not in chosen:
                wrong.append(f"a werewolf names its packmate {c.target}")
    if view.team == "village" and _SELF_WOLF.search(text):
        wrong.append("it says it is a werewolf, which it is not")
    own = {view.role} if view.team == "village" and allowed is None else set()
    for c in said:
        if c.kind == "role" and c.value not in own | {"Villager"} and c not in chosen:
            wrong.append(f"it claims to be the {c.value}"
                         + (", which it is not" if c.value != view.role else
                            ", a role it keeps to itself for now"))
        if c.kind == "species" and c not in chosen and c.target != me:
            known = {(t, s) for _d, _k, t, s in view.results}
            if (c.target, c.value) not in known:
                wrong.append(f"it states {c.target} is {c.value}, a result it never received")
    dead = [p for p in view.players if p not in view.living and p != me]
    for name in dead:
        n = re.escape(name)
        if re.search(rf"(?:^|[.!?]\s+){n}\s*[,:]", text) or \
                re.search(rf"(?<!voted to )(?<!wanted to )\b(?:vote for|execute|suspect|"
                          rf"accuse) {n}\b", text, re.I):
            wrong.append(f"it speaks to or accuses {name}, who is dead")
    return list(dict.fromkeys(wrong))


def check(text: str, view: PlayerView, max_chars: int, *,
          instructions: Iterable[str] = (), allowed_text: str = "",
          allowed: Iterable[claims.Claim] | None = None) -> Verdict:
    """The gate: what of ``text`` ``view.player`` may say in its room now.

    ``instructions``: the prompt texts its model was given (their own words may not be
    repeated); ``allowed_text``: what the line was asked to say (an intent: its words may
    be); ``allowed``: the claims its strategy makes on purpose (``None``: a model that
    chooses its own claims; the speaker's own role then may be claimed, unless it is a
    werewolf's)."""
    faults: list[str] = []
    line = _own_label(" ".join(str(text).split()), view.player)
    if not line:
        return Verdict(None, ("it is empty",))
    marker = _MARKERS.search(line)
    if marker is not None:
        faults.append(f"it repeats its instructions (\"{marker.group(0)}\")")
    elif (told := _told_who(line, view.player)) is not None:
        faults.append(f"it repeats its instructions (\"{told}\")")
    else:
        run = echoes(line, instructions, allowed_text)
        if run is not None:
            faults.append(f"it repeats its instructions (\"{run}\")")
    in_open = (view.room or "Village") == "Village"
    if view.pack and in_open and (_PACK_TALK.search(line) or _names_all(line, view.pack)):
        faults.append("a werewolf gives away its role or its pack")
    foreign = foreign_roles(line, view)
    if foreign:
        faults.append(f"it names the {', the '.join(foreign)}, which this game does not have")
    faults += contradictions(line, view, allowed)
    if (word := unfit(line)) is not None:
        faults.append(f"it says what no one at the table should hear (\"{word}\")")
    said, cut = whole_sentences(line, max_chars)
    if said is None:
        faults.append("it stops mid-sentence")
    if faults:
        return Verdict(None, tuple(dict.fromkeys(faults)))
    return Verdict(said, (), cut)


_KINDS = ((ECHO, "repeats its instructions"), (SECRET, "gives away"),
          (SECRET, "keeps to itself"), (ROLE, "does not have"),
          (SENTENCE, "mid-sentence"), (SENTENCE, "is empty"), (UNFIT, "should hear"),
          (MEANING, "you mean"))


def fault_kind(fault: str) -> str:
    """The kind of a fault (``echo``, ``secret``, ``role``, ``sentence``, ``unfit``,
    ``meaning`` (a wording that does not say what was meant) or ``contradicts``), to count
    them."""
    for kind, words in _KINDS:
        if words in fault:
            return kind
    return CONTRADICTS
