"""werewolf-12's rules in plain English (:meth:`WerewolfFlow.rules_text
<maw.engine.werewolf.WerewolfFlow.rules_text>`), written from its options as
``maw.engine.werewolf`` applies them: the night's steps (and their order, when it is not
the seed's) and each power, the sheriff, the day's turns and vote, last words, the win.
``tests/engine/test_rules_claims.py`` checks every sentence against engine games of each
option."""

from __future__ import annotations

from maw.engine.describe import deal, draw, sentence, tie, win
from maw.engine.rulesets import Ruleset
from maw.engine.werewolf_night import STEPS, before


def rules_text(rules: Ruleset, players: int) -> str:
    roles = {r.name for r in rules.roles_for(players)}
    return " ".join([
        *deal(rules, players),
        "The players sit round a table in the order in which they are listed.",
        "The game starts with night 0; after it, each day (day 1, 2 and so on) is followed "
        "by its night.",
        *_night(rules, roles),
        *_deaths(rules, roles),
        *_sheriff(rules),
        *_day(rules, roles),
        *_after_deaths(rules, roles),
        win(rules, players),
        *draw(rules, players),
    ])


def _night(rules: Ruleset, roles: set[str]) -> list[str]:
    victim = "who may be one of their own" if rules.self_knife else "who is not a werewolf"
    out = [f"Each night, the first one included, the werewolves talk in the Hideout and each "
           f"votes once for a victim, {victim}: the player with the most votes is attacked "
           f"(on a tie {tie('attack', rules.attack_tie)})."]
    also = []
    if "Seer" in roles:
        also.append("the Seer chooses one player and learns at dawn whether that player is "
                    "a werewolf or human")
    if "Guard" in roles:
        limits = ("itself too" if rules.guard_self_guard else "never itself") + (
            "" if rules.guard_repeat else ", and never the same player two nights running")
        also.append(f"the Guard protects one player from the attack, {limits}")
    if also:
        out.append(sentence("meanwhile " + ", and ".join(also)))
    steps = [x for x in rules.night_steps or STEPS if x == "wolves" or _ROLE[x] in roles]
    seed = [x for x in STEPS if x in steps]
    if "Witch" in roles:
        itself = ("she may save herself on the first night only" if rules.witch_self_heal_n1
                  else "she may never save herself")
        unless = (", and unless the Guard protected them"
                  if "Guard" in roles and before(rules, "guard", "witch") else "")
        out.append("Then the Witch, while she lives and has a potion she may use, is told whom "
                   f"the werewolves attack (if anyone{unless}) and may either save that player "
                   "or poison any living player but herself, never both in one night: each "
                   f"potion serves once a game, and {itself}.")
    if steps != seed:  # (the seed's order is what the sentences above tell)
        named = [_STEP[x] for x in steps]
        out.append(f"The night's steps take effect in this order: {', '.join(named[:-1])}, "
                   f"then {named[-1]}.")
        by = [how for how, step in (("the werewolves' attack", "wolves"),
                                    ("the Witch's poison", "witch"))
              if step in steps and "Seer" in roles and before(rules, step, "seer")]
        if by:
            out.append(f"A Seer killed that night by {' or '.join(by)} learns nothing.")
    return out


_ROLE = {"seer": "Seer", "witch": "Witch", "guard": "Guard"}
_STEP = {"seer": "the Seer's", "wolves": "the werewolves'", "witch": "the Witch's",
         "guard": "the Guard's"}


def _deaths(rules: Ruleset, roles: set[str]) -> list[str]:
    guard = "Guard" in roles
    unless = ("unless the Guard protected or the Witch saved them" if guard and "Witch" in roles
              else "unless the Guard protected them" if guard
              else "unless the Witch saved them" if "Witch" in roles else "")
    both = (" (a player both protected and saved dies all the same)"
            if guard and "Witch" in roles and rules.same_guard_same_save_kills else "")
    poison = (", and the poisoned player dies whatever protects them" if "Witch" in roles
              else "")
    out = [f"At dawn the attacked player dies {unless}{both}{poison}; everyone learns who "
           "died, but not how."]
    if "Hunter" in roles:
        out.append("When the Hunter dies, unless poisoned, it may shoot one living player, "
                   "who dies at once; the shot shows everyone that it was the Hunter.")
    return out


def _sheriff(rules: Ruleset) -> list[str]:
    if not rules.sheriff:
        return []
    return [
        "On day 1, before its talk, the village elects a sheriff: any living player may "
        "stand; each candidate speaks once and may stand down; then everyone who did not "
        "stand votes for one of the candidates left, and the one with the most votes is "
        "sheriff.",
        "There is no sheriff if nobody or everyone stands, or if the vote ties; a lone "
        "candidate is sheriff without a vote.",
        "The sheriff's vote counts 1.5 in the day's vote.",
        "When the sheriff dies, it passes the badge to a living player, who is sheriff from "
        "then on, or tears it (as it does if it does neither in time), and then nobody is "
        "sheriff for the rest of the game.",
    ]


def _day(rules: Ruleset, roles: set[str]) -> list[str]:
    if rules.speaking_order:
        start = ("the sheriff chooses which of its two neighbours speaks first, the turns go "
                 "round away from the sheriff, and the sheriff speaks last; with no sheriff "
                 "the turns start" if rules.sheriff else "the turns start")
        out = ["Each day the living speak once each (one message, or a pass), in turn round "
               f"the table: {start} from the seat after the last player to die."]
        when = "In its turn to speak"
    else:
        limit = (f" (at most {rules.talks_per_day} messages each)"
                 if rules.talks_per_day is not None else "")
        out = [f"Each day everyone talks in the Village{limit}, saying Over when done."]
        when = "During the day's talk"
    if rules.self_explode:
        out.append(f"{when} a werewolf may instead explode: it shows everyone it is a "
                   "werewolf and dies, and the day ends at once with no vote.")
    whom = "any living player" if rules.self_vote else "another living player"
    out.append(f"Then each living player casts one secret vote for {whom}, and the votes are "
               "shown to all: the player with the most votes is executed (no votes: nobody); "
               f"on a tie {tie('execute', rules.tie)}.")
    if "Idiot" in roles:
        out.append("The Idiot, voted out for the first time, is not executed: everyone is "
                   "shown it is the Idiot, and it lives on but votes no more.")
    return out


def _after_deaths(rules: Ruleset, roles: set[str]) -> list[str]:
    steps = ["a dead Hunter shoots"] if "Hunter" in roles else []
    if rules.sheriff:
        steps.append("a dead sheriff passes or tears the badge")
    out = ["The executed, and those who die on the first night (unless shot), each say last "
           "words, one speech, before the game goes on; nobody else does."]
    if steps:
        out.append(f"After deaths, first {', then '.join(steps)}, then come the last words.")
    shown = [s for s, on in (("a Hunter's shot", "Hunter" in roles),
                             ("a werewolf's explosion", rules.self_explode),
                             ("an Idiot's survival", "Idiot" in roles)) if on]
    if not shown:
        return [*out, "Nobody's role is revealed when they die."]
    listed = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
    show = "shows" if len(shown) == 1 else "show"
    return [*out, f"Nobody's role is revealed when they die; only {listed} {show} a role to "
                  "everyone."]
