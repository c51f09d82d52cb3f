"""What a language-model player is told: the templates of a prompts/ folder (``MAW_PROMPTS``,
else those shipped with MAW), the rules of its game in words, and the two messages each
conversation starts with (the rules, then the player's role)."""

from __future__ import annotations

import os
import string
from pathlib import Path

from maw import engine
from maw.errors import ConfigError
from maw.llm.llm import LLM
from maw.policies.base import max_chat, rules_of

# the prompts shipped in the package (the repository's prompts/, linked in as maw/prompts)
PACKAGE_PROMPTS = Path(__file__).resolve().parent.parent / "prompts"


class Prompts:
    """The templates of a prompts/ folder (``MAW_PROMPTS``, else those shipped with MAW)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder or os.environ.get("MAW_PROMPTS") or PACKAGE_PROMPTS)
        if not (self.folder / "turn.md").is_file():
            raise ConfigError(f"no prompts in {self.folder} (turn.md is missing)")

    def source(self, template: str) -> str:
        """A template as written, its ``$variables`` unfilled (what the gate keeps a
        model from repeating); empty if it is missing."""
        try:
            return (self.folder / template).read_text(encoding="utf-8")
        except OSError:
            return ""

    def instructions(self, view: engine.PlayerView, *templates: str,
                     persona: str = "") -> tuple[str, ...]:
        """The instructions a model of ``view.player`` reads in ``templates``, besides the
        rules, its role's prompt and its ``persona``: what its words may not echo
        (``maw.policies.gate``; a line that was its persona's own description, "You are
        Eve, a cheerful virtual mascot...", passed before the persona was among them)."""
        return (*(self.source(t) for t in templates), self.source("rules.md"),
                self.source(f"roles/{view.role}.md"), game_rules(view), persona)

    def render(self, template: str, /, **values: object) -> str:
        path = self.folder / template
        try:
            text = string.Template(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"cannot read prompt {path}: {exc}") from None
        try:
            return text.substitute({k: str(v) for k, v in values.items()}).strip()
        except KeyError as exc:
            raise ConfigError(f"prompt {path} uses ${exc.args[0]}, which the game does not "
                              f"supply ({', '.join(sorted(values))})") from None
        except ValueError as exc:
            raise ConfigError(f"prompt {path}: {exc}") from None


def game_rules(view: engine.PlayerView) -> str:
    """The rules of the player's game in plain English, from its ruleset and options."""
    from maw.engine.describe import rules_text

    return rules_text(rules_of(view), len(view.players))


def chat_limit(view: engine.PlayerView, wanted: int) -> int:
    """The longest chat a model may write: its own limit (the roster's ``max_chars``), or
    the ruleset's ``max_chat_length`` where that is shorter (the GameMaster refuses a
    longer one)."""
    return min(wanted, max_chat(view))


def opening(prompts: Prompts, view: engine.PlayerView) -> list[str]:
    """The conversation's first two messages (the guiding prompt): the rules of the game
    (the same for every player, a cached prefix), then the player's role."""
    pack = ", ".join(p for p in view.pack if p != view.player) or "none"
    return [prompts.render("rules.md", name=view.player, players=", ".join(view.players),
                           ruleset=view.ruleset, rules=game_rules(view)),
            prompts.render(f"roles/{view.role}.md", name=view.player, pack=pack)]


def pin_game(llm: LLM, prompts: Prompts, view: engine.PlayerView,
             supplied: list[str] | None = None) -> None:
    """The conversation's first two messages, kept for the whole game (``opening``), or
    those its question ``supplied`` (the chat completion of a ``get_input``)."""
    for text in supplied or opening(prompts, view):
        llm.pin("system", text)


def completion(prompts: Prompts, view: engine.PlayerView, lines: list[str],
               model: str = "") -> dict:
    """The chat completion a ``get_input`` carries to a model's interface (design document
    §3.2.2, Algorithm 1's "post M ∪ {g}"): the guiding prompt g (system: the rules, then
    the role) and the messages M the player heard since its last question (user), for the
    interface to forward to its model. MAW's own model players take their conversation's
    guiding prompt from it and ask their turn's question with more (the votes, what they
    remember, the choices: ``maw.llm.decider``)."""
    return {"model": model,
            "messages": [*({"role": "system", "content": text}
                           for text in opening(prompts, view)),
                         {"role": "user", "content": "\n".join(lines) or "(nothing new)"}]}


def supplied_opening(completion: dict | None) -> list[str] | None:
    """The guiding prompt of a ``get_input``'s chat completion (its system messages)."""
    messages = completion.get("messages") if isinstance(completion, dict) else None
    if not isinstance(messages, list):
        return None
    texts = [m.get("content", "") for m in messages
             if isinstance(m, dict) and m.get("role") == "system"]
    return [t for t in texts if isinstance(t, str) and t] or None
