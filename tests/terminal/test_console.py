"""The terminal console (``maw.terminal.screen.TerminalConsole``) under a real pseudo-
terminal: what the person types reaches the game whatever else the process's event loop
does."""

from __future__ import annotations

import io
import os
import sys
import textwrap

import pexpect

SCRIPT = textwrap.dedent("""
    import asyncio
    from prompt_toolkit.patch_stdout import patch_stdout
    from maw.terminal.screen import TerminalConsole

    async def main():
        console = TerminalConsole()
        loop = asyncio.get_running_loop()
        # a background task's error, reported while the person is at the prompt
        loop.call_later(0.5, loop.call_exception_handler,
                        {"message": "Task was destroyed but it is pending!"})
        await asyncio.sleep(0)
        print("READY", flush=True)
        line = await console.read()
        print(f"GOT {line!r}", flush=True)

    with patch_stdout(raw=True):
        asyncio.run(main())
""")


def test_an_error_reported_by_a_background_task_does_not_take_the_persons_next_line():
    """prompt_toolkit's own handler of such errors stopped the prompt with "Press ENTER
    to continue...", and the person's next line went to it, not to the game (CI on
    716627d: a person's only line of a game was lost so). The console leaves the error
    to the loop's handler and keeps the keyboard."""
    env = dict(os.environ, TERM="xterm-256color", PYTHONUNBUFFERED="1",
               PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(sys.executable, ["-c", SCRIPT], env=env, encoding="utf-8",
                          timeout=30, dimensions=(24, 120))
    child.logfile_read = seen = io.StringIO()
    try:
        child.expect("READY")
        child.expect("Task was destroyed but it is pending")  # (said above the prompt)
        child.sendline("hello village")
        child.expect(r"GOT '(.*)'")
        assert child.match.group(1) == "hello village"
        child.expect(pexpect.EOF)
        assert "Press ENTER" not in seen.getvalue()
    finally:
        child.close()
