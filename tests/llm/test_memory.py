"""An LLM player's memory of its whole game (``maw.llm.memory``): a long engine game with a
model seat on the scripted backend, whose conversation is cut oldest-first to a small
window, still has the first day's coming-out in its prompts of the sixth; and the notes hold only
what the player heard."""

from __future__ import annotations

import asyncio
import json

from maw import engine
from maw.llm import LLM
from maw.llm.backends import ScriptedBackend
from maw.llm.decider import LLMDecider
from maw.llm.memory import Memory
from maw.simulate import aplay_game


class Listener(ScriptedBackend):
    """A model that listens when it may, and else takes the first choice its schema
    offers (the first legal target); it keeps every prompt it was sent."""

    async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
        self.calls.append([dict(m) for m in messages])
        alternatives = (schema or {}).get("anyOf") or [schema or {}]
        answer: dict = {}
        for alt in alternatives:
            props = alt.get("properties", {})
            action = props.get("action", {}).get("const") or \
                (props.get("action", {}).get("enum") or [None])[0]
            if action == "listen":
                answer = {"action": "listen"}
                break
            if not answer and action is not None:
                answer = {"action": action}
                target = props.get("target", {})
                if target.get("enum"):
                    answer["target"] = target["enum"][0]
                if "text" in props:
                    answer["text"] = "I have nothing to add."
        for key in ("suspicion",):
            if any(key in alt.get("properties", {}) for alt in alternatives):
                answer[key] = {}
        self.replies.append(json.dumps(answer))
        return await super().chat(messages, schema, max_tokens, temperature)


def _game(seed: int) -> tuple[list[list[dict]], list]:
    backend = Listener()
    seat = "Ann"

    def llm_seat(player, rng):
        return LLMDecider(player, rng, LLM(backend, window=900), max_chars=60)

    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim",
             "Lou", "Max", "Ned", "Oli"]
    rules = engine.ruleset("aiwolf-15", max_days=12)
    policy = {n: (llm_seat if n == seat else "rule") for n in names}
    record = asyncio.run(aplay_game(rules, names, policy, seed))
    return backend.calls, record


def test_the_first_day_s_coming_out_is_in_the_sixth_day_s_prompt_after_the_talk_was_cut():
    # a seeded game in which the model seat is asked on the sixth day (AIWolf counts
    # from day 0), with a coming-out on the first: the first of seeds 0-9
    for seed in range(10):
        calls, record = _game(seed)
        prompts = [c[-1]["content"] for c in calls]
        first = [line for p in prompts if p.startswith("Day 0,")
                 for line in p.splitlines() if "I am the Seer" in line]
        late = [c for c in calls if c[-1]["content"].startswith("Day 5,")]
        if first and late:
            break
    else:
        raise AssertionError("no seed of 0-9 asked the model seat on the sixth day")
    claimer = first[0].split(":")[0].split("]")[-1].strip()
    context = late[0]
    # the first day's talk was cut from the conversation (the window is small) ...
    assert context[0]["role"] == "system" and not any(
        m["content"].startswith("Day 0,") for m in context if m["role"] == "user")
    # ... but the turn's prompt remembers the claim, on its day
    prompt = context[-1]["content"]
    memory = next(line for line in prompt.splitlines() if line.startswith("What you remember"))
    assert f"Day 0: {claimer} said they are the Seer" in memory, memory


def test_the_notes_hold_claims_deaths_votes_and_results_as_the_player_heard_them():
    m = Memory("Ann")
    players = ("Ann", "Bob", "Cid", "Dee")
    m.hear(1, ["   [Village] Bob: I am the Seer. Cid is a werewolf.",
               "Dee: I suspect Bob.",  # (no claim of a role or a species)
               "[GM] Bob votes for Cid.", "[whisper] Cid to Dee: I am the Seer",
               "Zed: I am the Seer."], players)  # (not a player)
    m.hear(2, ["Bob: I am the Seer."], players)  # (said again: noted once)
    view = seen(day=2, living=("Ann", "Bob", "Dee"), deaths=((1, "Cid", "executed"),),
                vote_history=((1, "execute", 0, (("Ann", "Cid"), ("Bob", "Cid"),
                                                 ("Cid", "Bob"))),),
                results=((1, "divine", "Dee", "human"),))
    text = m.text(view)
    assert text == ("What you remember: Day 1: Bob said they are the Seer; Bob said Cid is a "
                    "werewolf; the votes: Cid 2 (Ann, Bob); Bob 1 (Cid); Cid was executed; "
                    "your divine: Dee is human."), text
    assert Memory("Ann").text(view).startswith("What you remember: Day 1: the votes")
    assert Memory("Ann").text(seen()) == ""


def seen(**fields) -> engine.PlayerView:
    """Ann's view on a day of a four-player game, with ``fields``."""
    players = ("Ann", "Bob", "Cid", "Dee")
    base = dict(player="Ann", role="Seer", team="village", alive=True, ruleset="maw", day=1,
                phase="day", vote_round=0, players=players, living=players, deaths=(),
                known_roles={"Ann": "Seer"}, pack=(), room="Village", messages_left=None,
                votes={}, vote_history=(), results=(), winner=None)
    return engine.PlayerView(**{**base, **fields})
