"""A person's terminal (``maw play``): messages scroll above an input line that they never
overwrite, and a status bar under it shows the phase, the time left, the person's role
(and pack), who is alive and the votes so far.

:class:`Screen` is the model (what the bar says, how a line is styled), testable alone;
:class:`TerminalConsole` draws it with prompt_toolkit (``patch_stdout``, so lines printed
while the person types go above the prompt) and rich (the styles).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console as RichConsole
from rich.text import Text

from maw.agents.user_interface import phase_of

PHASES = {"day": "day: talk", "vote": "vote", "whisper": "wolves whisper",
          "night": "night", "over": "over"}


@dataclass
class Screen:
    """What the person knows now, from the player's news and questions."""

    name: str | None = None
    role: str | None = None
    pack: list[str] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)
    deadline: float | None = None  # time.monotonic() when the phase ends
    over: bool = False

    def update(self, *, name: str | None = None, role: str | None = None,
               pack: list[str] | None = None, view: dict[str, Any] | None = None,
               seconds: float | None = None, options: list | None = None) -> None:
        # (options: the actions offered now; the terminal names them in /help and /who)
        if name:
            self.name = name
        if role:
            self.role = role
        if pack is not None:
            self.pack = list(pack)
        if view:
            phase_changed = phase_of(view) != phase_of(self.view)
            self.view = view
            if phase_changed and seconds is None:
                self.deadline = None
            self.over = view.get("phase") == "over" or view.get("winner") is not None
        if seconds is not None:
            self.deadline = time.monotonic() + seconds

    def seconds_left(self, now: float | None = None) -> float | None:
        if self.deadline is None or self.over:
            return None
        return max(0.0, self.deadline - (time.monotonic() if now is None else now))

    def toolbar(self, now: float | None = None, width: int | None = None) -> str:
        """The status bar: who I am, the phase and its time, the living, the votes; at
        most ``width`` characters a line (as many lines as it takes: nothing is cut)."""
        parts = self.parts(now)
        if width is None:
            return " | ".join(parts)
        return "\n".join(fit(parts, width))

    def parts(self, now: float | None = None) -> list[str]:
        v = self.view
        me = v.get("player") or self.name or "joining"
        role = v.get("role") or self.role
        parts = [f"{me}" + (f" ({role})" if role else "")]
        pack = list(v.get("pack") or self.pack)  # (all of it, as the news of the role says)
        if pack:
            parts.append(f"pack: {', '.join(pack)}")
        if v.get("alive") is False:
            parts.append("dead: watching")
        if v.get("day") is not None:
            phase = PHASES.get(v.get("phase", ""), v.get("phase", ""))
            revote = " (revote)" if v.get("vote_round") else ""
            room = f" in the {v['room']}" if v.get("room") else ""
            parts.append(f"Day {v['day']} {phase}{revote}{room}")
        left = self.seconds_left(now)
        if left is not None:
            parts.append(f"{left:.0f} s left")
        if v.get("living"):
            parts.append(f"alive: {', '.join(v['living'])}")
        votes = v.get("votes") or {}
        if votes:
            by: dict[str, list[str]] = {}
            for voter, target in votes.items():
                by.setdefault(target, []).append(voter)
            parts.append("votes: " + "; ".join(
                f"{t} {len(vs)} ({', '.join(vs)})"
                for t, vs in sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0]))))
        return parts

    def style(self, line: str) -> Text:
        """A line as the person sees it: the GameMaster's in bold, deaths and refusals in
        red, the wolves' room in magenta, the person's own words in green."""
        me = self.view.get("player") or self.name
        if line.startswith("! ") or line.startswith("[GM] Refused"):
            return Text(line, style="bold red")
        if line.startswith("[GM]"):
            dark = any(w in line for w in ("executed", "murdered", "You were"))
            over = "game is over" in line
            return Text(line, style="bold red" if dark else "bold yellow" if over else "bold")
        if line.startswith("["):
            return Text(line, style="cyan")
        speaker, sep, _ = line.partition(": ")
        if sep and me and speaker == me:
            return Text(line, style="green")
        if sep and self.view.get("room") == "Hideout":
            return Text(line, style="magenta")
        return Text(line)


def fit(parts: list[str], width: int) -> list[str]:
    """``parts`` joined by " | " into lines of at most ``width`` characters; a part too
    long for a line is broken after its commas and semicolons, its next lines indented."""
    width = max(20, width)
    pieces: list[str] = []
    for part in parts:
        if len(part) <= width:
            pieces.append(part)
            continue
        line = ""
        for word in part.replace("; ", ";\0").replace(", ", ",\0").split("\0"):
            if line and len(line) + 1 + len(word) > width:
                pieces.append(line)
                line = "  " + word
            else:
                line = f"{line} {word}" if line else word
        pieces.append(line)
    lines: list[str] = []
    for piece in pieces:
        joined = f"{lines[-1]} | {piece}" if lines and not piece.startswith("  ") else None
        if joined is not None and len(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(piece[:width])
    return lines


class TerminalConsole:
    """The :class:`~maw.agents.user_interface.Console` of a real terminal."""

    def __init__(self, screen: Screen | None = None) -> None:
        from prompt_toolkit import PromptSession

        self.screen = screen or Screen()
        self.session: PromptSession = PromptSession()
        self._rich = RichConsole(file=io.StringIO(), force_terminal=True,
                                 color_system="standard", width=10_000, soft_wrap=True)

    def show(self, line: str) -> None:
        from prompt_toolkit import print_formatted_text
        from prompt_toolkit.formatted_text import ANSI

        # (the lines in one print: each print redraws the prompt under it, and a review
        # saw a stray "> " inside the end's table of roles, one per line)
        styled = []
        for one in line.splitlines() or [""]:
            with self._rich.capture() as cap:
                self._rich.print(self.screen.style(one), end="")
            styled.append(cap.get())
        print_formatted_text(ANSI("\n".join(styled)))

    def update(self, **status: Any) -> None:
        self.screen.update(**status)

    def _bar(self) -> str:
        columns = self.session.app.output.get_size().columns
        return "\n".join(" " + line for line in self.screen.toolbar(
            width=columns - 2).splitlines())

    async def read(self) -> str | None:
        """What the person typed; Ctrl-C is /quit, Ctrl-D (end of input) is ``None``."""
        try:
            # (prompt_toolkit's handler of a background task's error stops the prompt
            # with "Press ENTER to continue...", and the person's next line went to it:
            # the loop's own handler says it above the prompt instead)
            return await self.session.prompt_async(
                "> ", bottom_toolbar=self._bar, refresh_interval=1.0,
                set_exception_handler=False)
        except KeyboardInterrupt:
            return "/quit"
        except EOFError:
            return None


class PlainConsole:
    """Lines in, lines out: ``maw play`` with a pipe instead of a terminal. stdin is read
    by a daemon thread, so a game that ends does not wait for the pipe to close."""

    def __init__(self) -> None:
        self._lines: asyncio.Queue[str | None] | None = None

    def show(self, line: str) -> None:
        print(line, flush=True)

    def _start(self) -> asyncio.Queue[str | None]:
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[str | None] = asyncio.Queue()

        def pump() -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: the game is over
                for line in sys.stdin:
                    loop.call_soon_threadsafe(lines.put_nowait, line.rstrip("\n"))
                loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=pump, name="maw-stdin", daemon=True).start()
        return lines

    async def read(self) -> str | None:
        if self._lines is None:
            self._lines = self._start()
        return await self._lines.get()
