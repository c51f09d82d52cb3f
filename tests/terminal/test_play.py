"""`maw play`: a person in a real terminal (a pseudo-terminal driven by pexpect) joins a
lobby hosted by `maw game --humans 1` on a real XMPP server, with five AI players; and the
screen model on its own."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time

import pexpect
import pyte
import pytest
from stand_ins import person

from maw.hosting.xmpp import free_port
from maw.records.schema import recipients
from maw.terminal.screen import Screen

pytestmark = pytest.mark.xmpp


def maw(*args: str) -> list[str]:
    return [sys.executable, "-m", "maw", *args]


def host(port: int, tmp_path, *extra: str) -> tuple[subprocess.Popen, str]:
    """`maw game --humans 1`, and the `maw play` command it prints for the person."""
    proc = subprocess.Popen(
        maw("game", "--players", "6", "--humans", "1", "--policy", "rule", "--seed", "5",
            "--xmpp", f"embedded:{port}", "--early-end",
                "--day-seconds", "8", "--night-seconds", "4",
            "--lobby-seconds", "90", "--log-dir", str(tmp_path), *extra),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        found = re.search(r"maw play --name NAME (--xmpp \S+ --lobby \S+)", line)
        if found:
            return proc, found.group(1)
    proc.kill()
    raise AssertionError(f"no join command printed: {proc.stderr.read()}")


def finish(proc: subprocess.Popen) -> str:
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err[-2000:]
    return out


def test_a_person_plays_a_whole_game_from_the_terminal(tmp_path):
    # (phases long enough for the AI players' pace: they act seconds after a person)
    game, xmpp = host(free_port(), tmp_path, "--day-seconds", "30", "--night-seconds", "10")
    assert xmpp.startswith("--xmpp localhost:")
    # "Ann" is an AI player's: the person is asked for another name
    child = person(xmpp, "Ann")
    try:
        child.expect("is taken")
        child.expect("Your name")
        assert "is taken" not in child.before  # (said once: it was said twice)
        child.sendline("Alice")
        seen = {}
        while len(seen) < 2:  # the role and the start of the round, in either order
            i = child.expect([r"You are an? (\w+)", r"starts with 6 players: ([\w, ]+)\."])
            seen[i] = child.match.group(1)
        role = seen[0]
        others = [n for n in seen[1].split(", ") if n != "Alice"]
        child.expect(r"Day 1, day")
        child.sendline("/role")
        child.expect(f"you are Alice, a {role}")
        child.sendline("hello, I am new here")
        child.expect("Alice: hello, I am new here")
        child.sendline("/vote Zed")
        # (the votes may not be open yet: the talk comes first)
        child.expect(["Refused: 'Zed' is not a player", "Refused: the votes open once"])
        child.sendline("/dance")
        child.expect("unknown command /dance")
        child.expect("/vote NAME")  # the help follows
        child.sendline(f"/vote {others[0]}")
        child.expect([f"Alice votes for {others[0]}", "Refused", "you are dead"])
        child.sendline("/who")
        child.expect("alive: ")
        # then, each day, a vote once the votes are open (for the first other it may vote
        # for) and done for the day: the day ends once all are
        while child.expect([r"the votes are open", "The game is over: (village|werewolves) won"],
                           timeout=150) == 0:
            child.sendline("/who")
            child.expect(r"alive: ([\w, ]+)")
            alive = [n for n in child.match.group(1).split(", ") if n != "Alice"]
            child.sendline(f"/vote {alive[0]}")
            child.sendline("/pass")
        winner = child.match.group(1)
        # every player's role and points, the person's own among them
        child.expect("Who was who")
        child.expect(rf"Alice\s+{role}\s+\d+ points?")
        child.expect(f"round 1: {winner} won")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close()
    assert child.exitstatus == 0, child.before
    out = finish(game)
    assert f"round 1: {winner} won" in out
    assert "absent" not in out  # the person played: it was asked and answered


def test_ctrl_c_leaves_and_the_game_goes_on(tmp_path):
    game, xmpp = host(free_port(), tmp_path)
    child = person(xmpp, "Alice")
    try:
        child.expect(r"Day 1, day")
        child.sendintr()  # Ctrl-C
        child.expect("You leave the game")
        child.expect("the game goes on without you")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close()
    assert child.exitstatus == 1  # (it left before the end: not a game played out)
    out = finish(game)
    assert "won on day" in out
    assert re.search(r"absent \(never acted, or left\): .*Alice", out)


def test_a_person_who_idles_gets_a_stand_in_and_takes_the_seat_back_with_a_move(tmp_path):
    """A person at the table who lets two days in a row run out without a move (a wolf
    who never joins the attack blocked every kill of a pack that must agree, and the game
    ran to its day limit): a rule player plays the seat from the next phase on, the person
    is told so, and a move of theirs takes it back."""
    # (one day, for a short test; tests/agents/test_idle.py counts more)
    game, xmpp = host(free_port(), tmp_path, "--seed", "3", "--idle-phases", "1",
                      "--day-seconds", "6", "--night-seconds", "3")
    child = person(xmpp, "Alice")
    try:
        child.expect(r"Day 1, day")
        i = child.expect([r"a rule player plays your seat", "you are dead", "is over"],
                         timeout=90)
        assert i == 0, child.before
        child.expect("Any move of yours")
        child.expect(r"Day 2, day")  # (Alice is a villager: her next move is by day)
        child.expect(r"Alice (passes|votes for)")  # (the stand-in)
        child.sendline("/pass")
        child.expect("You are back: your seat is yours again")
        child.expect("The game is over: (village|werewolves) won", timeout=150)
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close()
    finish(game)
    records = [json.loads(x) for x in next(tmp_path.glob("*.jsonl")).read_text().splitlines()]
    kinds = [(r["kind"], r.get("player")) for r in records]
    gone = kinds.index(("gone", "Alice"))
    assert next(r for r in records if r["kind"] == "gone")["why"] == "idle"
    assert kinds[gone + 1] == ("substituted", "Alice")
    back = kinds.index(("returned", "Alice"))
    assert back > gone
    # she was away once a phase that awaited her move ran out on its timer with none of
    # hers; the stand-in played from the next phase on, and her /pass took the seat back
    assert not any(r["kind"] == "action" and r["data"].get("actor") == "Alice"
                   for r in records[:gone])
    ran = [r for r in records[gone:back] if r["kind"] == "action"]
    assert ran[0]["action"] == "EndPhase"
    assert any(r["data"].get("actor") == "Alice" for r in ran[1:]), "no stand-in acted"
    from maw.records.audit import audit_records

    assert audit_records(records).ok


def test_an_ai_player_whose_name_is_taken_leaves_at_once_with_one_line(tmp_path):
    port = free_port()
    game = subprocess.Popen(
        maw("game", "--players", "6", "--remote", "1", "--policy", "rule", "--xmpp",
            f"embedded:{port}", "--lobby-seconds", "60", "--log-dir", str(tmp_path)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert game.stdout is not None
        while "an AI player joins with" not in game.stdout.readline():
            pass
        t0 = time.monotonic()
        proc = subprocess.run(maw("player", "--name", "Ann", "--xmpp", f"localhost:{port}"),
                              capture_output=True, text=True, timeout=60)
        took = time.monotonic() - t0
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.strip() == ("maw player: error: could not join: the name 'Ann' is "
                                       "taken"), proc.stderr
        assert took < 20
        # the GameMaster said it once, and no more
        time.sleep(1)
        refusals = [r for r in records(tmp_path) if r["kind"] == "msg"
                    and r["type"] == "refuse" and "taken" in r["body"]["reason"]]
        assert len(refusals) == 1
    finally:
        game.kill()
        game.wait(timeout=30)


def test_no_server_at_the_address_is_said_at_once():
    t0 = time.monotonic()
    proc = subprocess.run(maw("play", "--name", "Alice", "--xmpp", f"127.0.0.1:{free_port()}"),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "no XMPP server answers at 127.0.0.1:" in proc.stderr
    assert "Traceback" not in proc.stderr and time.monotonic() - t0 < 15


def test_a_bad_name_is_refused_before_joining():
    proc = subprocess.run(maw("play", "--name", "no spaces", "--xmpp", "127.0.0.1:1"),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "bad name 'no spaces'" in proc.stderr


# ---------------------------------------------------------------- the screen model


# ---------------------------------------------------------------- a slow typist


ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>]|\r")


class Terminal:
    """A person's terminal: what `maw play` wrote, as text (escape codes left out) and as
    the screen it draws (pyte), read as it comes."""

    def __init__(self, child: pexpect.spawn, rows: int, columns: int) -> None:
        self.child = child
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.Stream(self.screen)
        self.text = ""  # everything written, as plain text
        self.ended = False

    def pump(self, seconds: float, until: str | None = None) -> None:
        """Read for ``seconds``, or until the text has a match for ``until``."""
        end = time.monotonic() + seconds
        while not self.ended and time.monotonic() < end and not (
                until and re.search(until, self.text)):
            try:
                chunk = self.child.read_nonblocking(65536, timeout=0.1)
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                self.ended = True
                break
            self.stream.feed(chunk)
            self.text += ANSI.sub("", chunk)

    def type(self, line: str) -> None:
        self.child.sendline(line)

    def resize(self, rows: int, columns: int) -> None:
        """The window changes size: the program is told (SIGWINCH) and redraws."""
        if (self.screen.columns, self.screen.lines) != (columns, rows):
            self.child.setwinsize(rows, columns)
            self.screen.resize(rows, columns)

    def bar(self) -> list[str]:
        """The status bar's lines: those under the input line ("> ...")."""
        lines = [x.rstrip() for x in self.screen.display]
        prompt = max(i for i, x in enumerate(lines) if x.startswith("> "))
        return [x for x in lines[prompt + 1:] if x.strip()]


def records(folder) -> list[dict]:
    path = next(folder.glob("game-*.jsonl"))
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_a_person_who_types_slowly_speaks_before_any_vote_every_day(tmp_path):
    """A person who takes 5 s before each line: every day it lives, its first line comes
    before the day's votes open (so before anyone can be executed), AI players act at a
    person's pace, the screen tells things in order, and the status bar shows all of
    itself at 80 and at 160 columns (the person widens its terminal every day)."""
    game, xmpp = host(free_port(), tmp_path, "--day-seconds", "60", "--night-seconds",
                      "15", "--seed", "11", "--rule", "max_days=2")
    rows, columns = 30, 80
    child = person(xmpp, "Alice", rows, columns)
    term = Terminal(child, rows, columns)
    said_on: dict[int, float] = {}
    checked_bar: set[int] = set()
    try:
        term.pump(30, until=r"You are an? [^\n]*\n")
        assert "Round 1 of 1 starts" in term.text
        dealt = re.search(r"You are an? (\w+)(?: \(the pack: ([\w, ]+)\))?", term.text)
        role, pack = dealt.group(1), (dealt.group(2) or "").split(", ")
        day, living = 0, []
        while not term.ended:
            days = [int(d) for d in re.findall(r"\[GM\] Day (\d+), day", term.text)]
            if days and days[-1] != day and "You were" not in term.text:
                day = days[-1]
                # (/who before its line: the votes wait for its line, so nobody can be
                # executed yet and the bar is still today's; a day that ended at once,
                # the first to be done ready, once ran out under a /who typed later)
                term.pump(3)
                term.type("/who")
                term.pump(2)
                if "The game is over" in term.text:
                    continue
                who = term.text[term.text.rindex("alive: "):].splitlines()[0]
                living = who.removeprefix("alive: ").split(", ")
                for columns in (80, 160):  # the person widens its window
                    term.resize(rows, columns)
                    term.pump(1)
                    bar = " ".join(x.strip() for x in term.bar())
                    assert all(len(x) <= columns for x in term.bar())
                    if f"Day {day}, night" not in term.text:  # (the bar is still today's)
                        assert f"alive: {', '.join(living)}" in bar, (bar, living)
                        checked_bar.add(columns)
                term.type(f"I am thinking hard about day {day}.")  # a slow typist's line
                said_on[day] = time.monotonic()
                term.pump(5)
                target = next(n for n in living if n != "Alice")
                term.type(f"/vote {target}")
                term.type("/pass")  # done for the day: the day ends once all are done
            nights = re.findall(r"\[GM\] Day (\d+), night", term.text)
            if role == "Werewolf" and nights and int(nights[-1]) == day and \
                    f"attack night {day}" not in term.text and "You were" not in term.text:
                term.pump(5)
                victim = next((n for n in living if n not in pack
                               and f"{n} was executed" not in term.text), None)
                term.type(f"/attack {victim}")
                term.text += f"\n(attack night {day})"
            term.pump(1)
    finally:
        child.close()
    out = finish(game)
    assert checked_bar == {80, 160} and said_on, (checked_bar, term.text[-2000:])
    # the screen told things in order: the round, then the first day; an execution
    # before the end of the game it ended
    assert term.text.index("Round 1 of 1 starts") < term.text.index("[GM] Day 1, day")
    end = term.text.index("The game is over")
    if "won (no werewolf lives)" in out or "executed" in term.text[end - 200:end]:
        last = [m.start() for m in re.finditer(r"was executed\.", term.text)]
        assert not last or last[-1] < end
    # the host's log: every day Alice lived, her first line came before the votes opened
    log = records(tmp_path)
    alive = True
    for r in log:
        if r["kind"] != "event":
            continue
        e, d = r["event"], r["data"]
        if e == "PhaseStarted" and d["phase"] == "day":
            today, spoke = d["day"], False
            alive = "Alice" in d["living"]
        elif e == "Chatted" and d["speaker"] == "Alice" and d["room"] == "Village":
            spoke = True
        elif e in ("VotesOpened", "Executed") and alive:
            assert spoke, f"day {today}: {e} before Alice's first line"
    # the AI players kept a person's pace: none acted within a second of a phase's start
    starts = [r["t"] for r in log if r["kind"] == "event" and r["event"] == "PhaseStarted"]
    acts = [r["t"] for r in log if r["kind"] == "action" and r["action"] in ("Chat", "Vote")
            and r["data"]["actor"] != "Alice"]
    assert acts and all(min(a - s for s in starts if s <= a) >= 0.4 for a in acts)
    print(f"\n--- the screen of `maw play` at {columns} columns, at the end ---")
    print("\n".join(x.rstrip() for x in term.screen.display))


VIEW = {"player": "Alice", "role": "Werewolf", "alive": True, "day": 2, "phase": "vote",
        "vote_round": 0, "room": "Village", "living": ["Alice", "Bob", "Cid"],
        "pack": ["Alice", "Bob"], "votes": {"Bob": "Cid", "Alice": "Cid"}}


def test_the_status_bar_shows_phase_time_role_pack_living_and_votes():
    s = Screen(name="Alice")
    assert s.toolbar() == "Alice"
    s.update(view=VIEW, seconds=30)
    bar = s.toolbar(now=s.deadline - 12.4)
    assert bar == ("Alice (Werewolf) | pack: Alice, Bob | Day 2 vote in the Village | 12 s "
                   "left | alive: Alice, Bob, Cid | votes: Cid 2 (Bob, Alice)")
    assert s.seconds_left(now=s.deadline + 5) == 0.0


def test_a_new_phase_without_a_time_clears_the_old_time_and_the_dead_watch():
    s = Screen()
    s.update(view=VIEW, seconds=30)
    s.update(view={**VIEW, "phase": "night", "room": "Hideout", "votes": {}})
    assert s.deadline is None and "s left" not in s.toolbar()
    s.update(view={**VIEW, "alive": False, "room": None, "phase": "day", "day": 3},
             seconds=10)
    bar = s.toolbar()
    assert "dead: watching" in bar and "Day 3 day: talk |" in bar
    s.update(view={**VIEW, "phase": "over", "winner": "village"})
    assert s.seconds_left() is None


def test_lines_are_styled_by_who_speaks():
    s = Screen(name="Alice")
    s.update(view=VIEW)
    assert s.style("Alice: hi").style == "green"
    assert s.style("Bob: hi").style == ""
    assert s.style("[GM] Cid was executed.").style == "bold red"
    assert s.style("[GM] Refused: dead").style == "bold red"
    assert s.style("! unknown command /x").style == "bold red"
    assert s.style("[GM] The game is over: village won (x).").style == "bold yellow"
    assert s.style("[GM] Day 2, vote.").style == "bold"
    assert s.style("[Hideout] open for Alice, Bob.").style == "cyan"
    s.update(view={**VIEW, "room": "Hideout"})
    assert s.style("Bob: take Cid").style == "magenta"


def test_the_status_bar_fits_any_width_and_cuts_nothing():
    s = Screen(name="Alice")
    names = ["Alice", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim"]
    votes = {n: names[(i + 3) % len(names)] for i, n in enumerate(names)}
    s.update(view={**VIEW, "living": names, "votes": votes}, seconds=30)
    one = s.toolbar()
    for width in (40, 80, 160):
        lines = s.toolbar(width=width).splitlines()
        assert all(len(x) <= width for x in lines), (width, lines)
        # nothing is lost: the lines hold every word of the one-line bar
        assert " ".join(" ".join(lines).replace(" | ", " ").split()) == \
            " ".join(one.replace(" | ", " ").split())
    assert len(s.toolbar(width=160).splitlines()) < len(s.toolbar(width=80).splitlines())


def leave(child: pexpect.spawn) -> None:
    """The person presses Ctrl-C: ``maw play`` ends."""
    child.sendintr()
    child.expect(pexpect.EOF, timeout=30)


def stop(game: subprocess.Popen, folder) -> list[dict]:
    """Stop the host mid-game; its log's records."""
    game.kill()
    game.wait(timeout=30)
    return records(folder)


def seed_dealing(names: list[str], person: str, role: str, ruleset_name: str = "maw",
                 after: int = 0, **options) -> int:
    """A seed (the first above ``after``) whose deal makes ``person`` a ``role``
    (``maw play``'s game: its round 1)."""
    import random

    from maw.engine import new_game, ruleset

    rules = ruleset(ruleset_name, **options)
    for seed in range(after + 1, after + 500):
        state = new_game(rules, sorted(names), random.Random(f"{seed}:1"))
        if state.role_of(person).name == role:
            return seed
    raise AssertionError(f"no seed deals {person} the {role}")


def first_night(folder, seconds: float = 10) -> list[str]:
    """The living at the start of the game's first night, as its log says."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(StopIteration, ValueError):  # (not yet; a line half written)
            return next(r["data"]["living"] for r in records(folder) if r["kind"] == "event"
                        and r["event"] == "PhaseStarted" and r["data"]["phase"] == "night")
        time.sleep(0.2)
    raise AssertionError("no night in the log")


def test_a_person_divines_and_whispers_from_the_terminal(tmp_path):
    names = ["Alice", "Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
    # the game's timing is not seeded: a day-1 execution can take Alice (the Seer) before
    # any night; then another seed that deals her the Seer plays (at most three games)
    seed = 0
    for _ in range(3):
        seed = seed_dealing(names, "Alice", "Seer", after=seed, seer=1)
        folder = tmp_path / str(seed)
        game, xmpp = host(free_port(), folder, "--players", "7", "--rule", "seer=1",
                          "--rule", "whisper=on", "--seed", str(seed), "--day-seconds", "30",
                          "--night-seconds", "12")
        child = person(xmpp, "Alice")
        try:
            child.expect("You are a Seer")
            child.expect(r"Day 1, day")
            child.sendline("/whisper Ann I am the Seer, keep it quiet")
            child.expect(r"\[whisper\] Alice to Ann: I am the Seer, keep it quiet")
            child.sendline("/whisper Zed hello")
            child.expect("Refused: 'Zed' is not a player")
            child.sendline("hello everyone")
            child.expect("the votes are open", timeout=60)
            child.sendline("/vote Fay")  # and done for the day: the day ends once all are
            child.sendline("/pass")
            child.expect(r"Day 1, night", timeout=90)
            living = first_night(folder)
            if "Alice" in living:  # Ann, or another if day 1 executed Ann
                child.expect(r"\(you may now: /divine NAME; /help for all\)")  # (told)
                seen = next(n for n in ["Ann", *names] if n in living and n != "Alice")
                child.sendline(f"/divine {seen}")
                child.expect(rf"Your divination: {seen} is (human|werewolf)", timeout=30)
            leave(child)
        finally:
            child.close()
        log = stop(game, folder)
        if "Alice" in living:
            break
    assert "Alice" in living, "Alice was executed on day 1 in every game"
    whispered = [r["data"] for r in log if r["kind"] == "event" and r["event"] == "Whispered"]
    assert whispered[0]["speaker"] == "Alice" and whispered[0]["target"] == "Ann"
    jid = {r["player"]: r["jid"] for r in log if r["kind"] == "join"}
    got = {to for r in log if r["kind"] == "msg" and r["type"] == "private_line"
           for to in recipients(r)}
    assert got == {jid["Ann"]}  # Ann alone heard it


def test_a_person_plays_the_witch_and_stands_for_sheriff_in_werewolf12(tmp_path):
    names = ["Alice", "Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon",
             "Kim"]
    seed = seed_dealing(names, "Alice", "Witch", "werewolf-12")
    game, xmpp = host(free_port(), tmp_path, "--ruleset", "werewolf-12", "--players", "12",
                      "--seed", str(seed), "--day-seconds", "30", "--night-seconds", "20")
    child = person(xmpp, "Alice")
    try:
        child.expect("You are a Witch")
        child.expect(r"Tonight the werewolves attack (\w+): /save", timeout=90)
        victim = child.match.group(1)
        child.sendline(f"/save {victim}")
        child.expect(r"Day 1: the sheriff's election: /run", timeout=90)
        child.sendline("/run")
        child.expect(r"Alice stands for sheriff")
        leave(child)
    finally:
        child.close()
    log = stop(game, tmp_path)
    saves = [r["data"] for r in log if r["kind"] == "action" and r["action"] == "Save"]
    assert saves == [{"actor": "Alice", "target": victim}]
    events = [(r["event"], r["data"]) for r in log if r["kind"] == "event"]
    guarded = any(e == "Guarded" and d["target"] == victim for e, d in events)
    if guarded:  # saved and guarded: the victim dies (same_guard_same_save_kills)
        assert ("Murdered", {"day": 0, "player": victim, "audience": None}) in events
    else:  # she saved the victim
        assert ("NoMurder", {"day": 0, "audience": None}) in events
    assert any(e == "Ran" and d["player"] == "Alice" for e, d in events)
    # her step was hers alone: no other seat was told of it
    jid = {r["player"]: r["jid"] for r in log if r["kind"] == "join"}
    told = {to for r in log if r["kind"] == "msg" and r["type"] == "phase_change"
            and r["body"]["new_phase"] == "witch" for to in recipients(r)}
    assert told == {jid["Alice"]}


def test_a_person_knocking_at_a_lobby_that_does_not_answer_is_told_before_the_end(
        tmp_path):
    """A review mistyped the lobby ("mian") and waited a minute in silence before
    "did not answer within 60 s". After 10 s the person is told it has not answered."""
    game, xmpp = host(free_port(), tmp_path)
    try:
        where = xmpp.split()[1]
        # (its input left open: at its end, a person would leave)
        play = subprocess.Popen(maw("play", "--name", "Quinn", "--xmpp", where, "--lobby",
                                    "mian", "--join-seconds", "11.5"), text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        code = play.wait(timeout=60)
        out, err = play.stdout.read(), play.stderr.read()
    finally:
        game.kill()
    assert code == 2, err
    told = re.search(r"no answer from the lobby 'mian' yet: still asking for (\d+) s", err)
    assert told and told.group(1) == "2", (out, err)  # (1.5 s, rounded)
    assert "did not answer within 12 s" in err
