"""The rules of a game in plain English, built from its :class:`Ruleset` (what the prompts
and the screen tell players): written from the same data the engine applies, so the text
cannot be wrong for any ruleset or option."""

from __future__ import annotations

from collections import Counter

from maw.engine.roles import role_named
from maw.engine.rulesets import Flow, Ruleset, TiePolicy, VotesOpen, WinCondition

_TIE = {
    TiePolicy.NONE: "nobody is executed",
    TiePolicy.RANDOM: "one of the tied is executed at random",
    TiePolicy.REVOTE: "everyone votes once more between the tied, then one of those still "
                      "tied is picked at random",
    TiePolicy.RUNOFF: "everyone votes once more, for one of the tied alone, and if they tie "
                      "again nobody is executed",
}
def _plural(role: str, k: int) -> str:
    if k == 1:
        return f"1 {role}"
    return f"{k} " + ("Werewolves" if role == "Werewolf" else f"{role}s")


def rules_text(rules: Ruleset, players: int) -> str:
    """The rules of ``rules`` for a game of ``players``, in a few sentences."""
    roles = Counter(r.name for r in rules.roles_for(players))
    order = sorted(roles, key=lambda r: (r != "Werewolf", r == "Villager", r))
    lines = [f"{players} players: {', '.join(_plural(r, roles[r]) for r in order)}. "
             "The werewolves know each other; nobody else knows anyone's role."]
    powers = [role_named(r).power for r in order if role_named(r).power]
    if powers:
        text = "; ".join(powers)
        lines.append(text[0].upper() + text[1:] + ".")
    if rules.flow is Flow.MAW:
        day = "Each day everyone talks in the Village."
        if rules.votes_open is VotesOpen.TALK:
            day += (" The votes open once every living player has spoken or passed (or "
                    "when the talk's share of the day is over).")
        lines.append(day + " Each living player has one public vote, which it may change "
                     "or withdraw: as soon as a majority of the living vote for the same "
                     "player, that player is executed. When the day's time runs out, the "
                     "player with the most votes is executed (no votes: nobody); on a tie "
                     f"{_TIE[rules.tie]}.")
        if rules.whisper:
            lines.append("By day a living player may also whisper a line to one other living "
                         "player, which nobody else hears (at most 5 whispers a day).")
        lines.append("The executed player's role is told only to the werewolves. At night "
                     "the werewolves talk in the Hideout and each votes for a victim: the "
                     "victim dies only if every living werewolf votes for the same player "
                     "before the night ends.")
    else:
        talk = "Each day everyone talks in the Village"
        if rules.talks_per_day is not None:
            talk += f" (at most {rules.talks_per_day} messages each)"
        first = "" if rules.day0_talk else f" (not on day {rules.first_day})"
        lines.append(f"{talk}{first}, saying Over when done; then each living player casts "
                     "one secret vote and the most voted is executed (on a tie "
                     f"{_TIE[rules.tie]}). Votes for oneself are "
                     f"{'allowed' if rules.self_vote else 'not allowed'}.")
        if rules.base_length:
            mention = (f"; what follows your first mention of another player (@Name) may "
                       f"have {rules.mention_length} more" if rules.mention_length else "")
            lines.append(f"A message is cut after {rules.base_length} characters, spaces "
                         f"not counted{mention}.")
        attack_tie = _TIE[rules.attack_tie].replace("executed", "attacked")
        lines.append("At night the werewolves whisper, then vote for a victim (on a tie "
                     f"{attack_tie}); there is no attack on the first night. "
                     "Nobody's role is revealed when they die.")
    if rules.win is WinCondition.PARITY:
        lines.append("The village wins when no werewolf lives; the werewolves win as soon "
                     "as the living werewolves are at least as many as the living humans.")
    else:
        lines.append("The village wins when no werewolf lives; the werewolves win when no "
                     "villager lives.")
    limit = rules.max_days if rules.max_days is not None else 2 * players + 5
    if limit:
        lines.append(f"After {limit} days the game is a draw.")
    return " ".join(lines)
