"""The web observer: what a watcher may receive (secrecy), and the page itself in a real
headless browser (Debian's chromium through chromium-driver and Selenium): a live game
from the lobby to the winner, the spectator switch, and a replay with the models' prompts.

Screenshots go to tests/artifacts/web/ (kept out of git) to be looked at."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from page_layout import ARTIFACTS, look, up, wait

from maw import engine
from maw.hosting.xmpp import free_port
from maw.records.schema import recipients
from maw.web.observer import Observer, public


def frames(watcher) -> list[tuple[str, dict]]:
    """What the watcher was sent so far (event name, data), until its end."""
    out = []
    while not watcher.queue.empty():
        item = watcher.queue.get_nowait()
        if item is None:
            break
        head, data = item.decode().strip().split("\n", 1)
        out.append((head.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return out


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_watcher_sees_only_what_every_player_sees_until_the_game_is_over(server,
                                                                                tmp_path):
    from maw.agents.gamemaster import GameConfig
    from maw.hosting.game import default_seats, run_game

    observer = Observer(spectator=False)
    watcher = observer.watch()
    with pytest.raises(PermissionError):
        observer.watch(spectator=True)
    config = GameConfig(players=6, rules=engine.ruleset("maw"), seed=2, day_seconds=4,
                        night_seconds=2, log_dir=tmp_path, early_end=True)
    result = await run_game(config, default_seats(6), server, timeout=120,
                            watch=observer.feed)
    logged = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    assert observer.records == logged  # the observer holds the log, record for record
    sent = frames(watcher)
    assert sent[0][0] == "hello" and sent[0][1]["spectator"] is False
    got = [d for name, d in sent if name == "record"]
    assert [d["r"] for d in got] == [r for r in logged if public(r)]
    # nothing that tells a role: no deal, no private event, no Hideout, no minds
    kinds = {d["r"]["kind"] for d in got}
    assert kinds <= {"started", "join", "timer", "outcome", "event", "state"}
    for d in got:
        r = d["r"]
        if r["kind"] == "event":
            assert r["data"]["audience"] is None and r["data"].get("room") != "Hideout"
            assert r["event"] not in ("RoleAssigned", "Divined", "MediumResult")
        assert r["kind"] != "state" or r["agent"] == "GameMaster"
    hidden = [r for r in logged if not public(r)]
    assert any(r["kind"] == "round" for r in hidden)
    assert any(r["kind"] == "beliefs" for r in hidden)  # rule players state beliefs
    assert any(r["kind"] == "event" and r["data"].get("room") == "Hideout" for r in hidden)
    # the game is over: the rest is revealed, then the end
    observer.end()
    rest = frames(watcher)
    assert [name for name, _ in rest] == ["reveal", "end"]
    revealed = rest[0][1]["records"]
    assert sorted([d["i"] for d in got] + [d["i"] for d in revealed]) == list(
        range(len(logged)))
    # and a watcher that comes later is a spectator of the whole game at once
    late = frames(observer.watch())
    assert late[0][1]["spectator"] is True and late[-1][0] == "end"
    assert len([1 for name, _ in late if name == "record"]) == len(logged)


# ---------------------------------------------------------------- in a real browser


def maw(*args: str, group: bool = False) -> subprocess.Popen:
    """``maw ARGS``, its output and errors in one pipe; ``group``: in a process group of
    its own, as a terminal's foreground command is (``os.killpg`` is its Ctrl-C)."""
    # (PYTHONFAULTHANDLER: a host that would not end prints its stacks: ``ended``)
    return subprocess.Popen([sys.executable, "-m", "maw", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=group,
                            env=dict(os.environ, PYTHONFAULTHANDLER="1"))


def ended(proc: subprocess.Popen, timeout: float = 30) -> int:
    """``proc``'s exit code. One still running after ``timeout`` s is aborted, and the
    test fails with what it printed, ending with the stack of each of its threads (a host
    that stayed up after Ctrl-C, once in CI, left nothing to say where it was)."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        pytest.fail(f"still running {timeout:.0f} s later:\n{proc.stdout.read()[-8000:]}")


def texts(driver, css: str) -> list[str]:
    """The text of each element ``css`` selects, read at once (the page redraws)."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText)", css)


def content(driver, element_id: str) -> str:
    """An element's text, shown or folded away (a closed <details>)."""
    return driver.execute_script("return document.getElementById(arguments[0]).textContent",
                                 element_id)


def shown(driver, element_id: str) -> bool:
    return driver.find_element("id", element_id).is_displayed()


def press(driver, command: str) -> bool:
    """Click the seat page's button that types ``command``, if it is there now."""
    return driver.execute_script(
        "const b = [...document.querySelectorAll('#actions button.act')]"
        ".find(b => b.dataset.command === arguments[0]); if (b) b.click(); return !!b;",
        command)


def commands(driver) -> list[str]:
    return driver.execute_script(
        "return [...document.querySelectorAll('#actions button.act')]"
        ".map(b => b.dataset.command)")


def said_line(proc: subprocess.Popen, pattern: str, out: list[str], timeout: float = 120):
    """Read the process's output until a line matches ``pattern``; the match."""
    import re

    def one():
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            raise AssertionError("the process ended: " + "".join(out))
        out.append(line)
        return re.search(pattern, line)
    return wait(one, timeout, f"a line like {pattern!r}")


# Elements that must not cover one another: for each pair of selectors, every visible
# element of the first against every one of the second
APART = """
const bad = [], box = (e) => e.getBoundingClientRect();
const seen = (e) => { const r = box(e); return r.width > 0 && r.height > 0; };
const meet = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 &&
                       b.top < a.bottom - 1;
for (const [x, y] of arguments[0])
  for (const a of document.querySelectorAll(x)) for (const b of document.querySelectorAll(y))
    if (a !== b && seen(a) && seen(b) && meet(box(a), box(b)))
      bad.push(x + ' "' + a.innerText + '" covers ' + y + ' "' + b.innerText + '"');
return bad;
"""
# the observer's table: a seat's tags run into nothing under the table, and a dead seat's
# mark is beside its initials, not over them
TABLE_APART = [("#players .seat", "#mind-hint"), ("#players .seat", "#lobby-note"),
               ("#players .cross", "#players .initials")]


def apart(*pairs: tuple[str, str]):
    return lambda driver, size: driver.execute_script(APART, [list(p) for p in pairs])


def in_first_screen(*css: str):
    """On a phone, the elements ``css`` selects are on the first screen (no scrolling)."""
    def check(driver, size: str) -> list[str]:
        if size != "phone":
            return []
        return driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])].filter(e => e.offsetParent)"
            ".filter(e => e.getBoundingClientRect().bottom > innerHeight)"
            ".map(e => (e.innerText || e.id) + ' is below the first screen')", ", ".join(css))
    return check


def game_clock(log: list[dict]) -> float:
    """time.time() at the log's t = 0 (its 'started' record says when it was)."""
    started = next(r for r in log if r["kind"] == "started")
    return started["wall"] - started["t"]


def read_log(folder: Path) -> list[dict]:
    path = next(folder.glob("*.jsonl"))
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_a_rule_game_ends_in_a_second_and_its_page_stays_up_to_replay(browser, tmp_path):
    """Rule players end a game in well under a second: the page stays up after it (until
    Ctrl-C), says who won, reveals the roles and the Hideout, and replays it."""
    from selenium.webdriver.common.by import By

    port = free_port()
    proc = maw("game", "--policy", "rule", "--players", "6", "--seed", "2", "--early-end",
               "--xmpp", f"embedded:{free_port()}", "--log-dir", str(tmp_path),
               "--web", str(port))
    url = f"http://127.0.0.1:{port}/"
    out: list[str] = []
    try:
        said_line(proc, r"page stays up", out, 60)
        assert any(x.startswith("Summary:") for x in out)  # the summary came first
        browser.get(url)
        wait(lambda: browser.find_element(By.ID, "status").text == "GAME OVER", what="the end")
        log = read_log(tmp_path)
        over = next(r for r in log if r["kind"] == "outcome")
        banner = wait(lambda: browser.find_element(By.ID, "winner").text, what="the winner")
        assert banner.lower().startswith(f"{over['winner']} won on day {over['day']}")
        roles = texts(browser, "#players .seat .role")
        assert sorted(roles) == sorted(["Werewolf"] * 2 + ["Villager"] * 4)
        # the end's table: every player's role, how it fared, its points
        fate = {n: "survived" for n in over["roles"]}
        for r in log:
            if r["kind"] == "event" and r["event"] in ("Executed", "Murdered"):
                d = r["data"]
                fate[d["player"]] = (f"executed, day {d['day']}" if r["event"] == "Executed"
                                     else f"murdered, night {d['day']}")
        rows = browser.execute_script(
            "return [...document.querySelectorAll('#end-table tbody tr')].map(r =>"
            " [...r.cells].map(c => c.innerText.replace(/\\u00a0/g, ' ')))")
        assert sorted(rows) == sorted([n, role, fate[n], str(over["points"][n])]
                                      for n, role in over["roles"].items())
        assert shown(browser, "tab-hideout") and shown(browser, "replay")
        # the timeline: from the start, a phase on, an event on
        browser.find_element(By.ID, "replay-start").click()
        position = lambda: browser.find_element(By.ID, "position")  # noqa: E731
        assert position().text.startswith("Day 1 · event ")
        upto = int(position().get_attribute("data-upto"))
        browser.find_element(By.ID, "step").click()
        assert int(position().get_attribute("data-upto")) > upto
        browser.find_element(By.ID, "next-phase").click()
        assert position().text.startswith("Night 1 · ")
        assert not shown(browser, "banner")  # the winner is not known yet on night 1
        assert proc.poll() is None  # still serving
        proc.send_signal(signal.SIGINT)
        assert ended(proc) == 0
    finally:
        proc.kill()


def test_a_werewolf12_page_shows_the_sheriff_the_potions_and_the_nights_steps(browser,
                                                                             tmp_path):
    """AutoWerewolf's game on the page: the sheriff's badge on its seat, the Witch's
    potions left, and the night's steps and the election in the timeline."""
    from selenium.webdriver.common.by import By

    port = free_port()
    proc = maw("game", "--ruleset", "werewolf-12", "--players", "12", "--policy", "rule",
               "--seed", "3", "--early-end", "--xmpp", f"embedded:{free_port()}",
               "--log-dir", str(tmp_path), "--web", str(port))
    out: list[str] = []
    try:
        said_line(proc, r"page stays up", out, 120)
        browser.get(f"http://127.0.0.1:{port}/")
        wait(lambda: browser.find_element(By.ID, "status").text == "GAME OVER", what="the end")
        log = read_log(tmp_path)
        events = [(r["event"], r["data"]) for r in log if r["kind"] == "event"]
        sheriff = ""
        for name, d in events:
            if name == "SheriffElected":
                sheriff = d["sheriff"]
            elif name == "BadgePassed":
                sheriff = d["target"]
        witch = next(n for n, role in next(r for r in log if r["kind"] == "round")[
            "roles"].items() if role == "Witch")
        spent = {d["action"] for name, d in events if name == "Acted" and d["actor"] == witch}
        left = [p for p in ("save", "poison") if p not in spent]
        seats = browser.execute_script(
            "return Object.fromEntries([...document.querySelectorAll('#players .seat')]"
            ".map(e => [e.dataset.name, e.innerText]))")
        assert set(seats) >= {witch}
        assert f"potions: {', '.join(left) or 'none'}" in seats[witch]
        badged = [n for n, t in seats.items() if "★ sheriff" in t]
        assert badged == ([sheriff] if sheriff else [])
        page = browser.execute_script("return document.body.textContent")  # (all tabs)
        assert "Night 0 · the Witch's step" in page
        assert ("is elected sheriff" in page) or ("No sheriff is elected" in page)
        proc.send_signal(signal.SIGINT)
        assert ended(proc) == 0
    finally:
        proc.kill()


def test_the_spectator_switch_shows_roles_and_the_hideout_live(browser, tmp_path):
    from selenium.webdriver.common.by import By

    port = free_port()
    # (--no-early-end: each phase runs to its timer, the game lasts to be watched, long
    # enough for the browser's steps on a loaded machine: days of 45 s, two at most (a
    # night ends once the pack agrees; the game may end at the first night after a day).
    # Phases of hosted AI players alone end early by default: six rule players then finish
    # in a fraction of a second, and the page was read after the end; with days of 20 s
    # the game still ended, under the whole suite's load, before the page was read)
    proc = maw("game", "--policy", "rule", "--players", "6", "--seed", "2", "--day-seconds",
               "45", "--night-seconds", "4", "--rule", "max_days=2", "--no-early-end",
               "--xmpp", f"embedded:{free_port()}",
               "--log-dir", str(tmp_path), "--web", str(port), "--web-spectator", group=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        up(url, proc)
        browser.get(url)
        wait(lambda: len(texts(browser, "#players .seat[data-name]")) == 6, what="six players")
        box = wait(lambda: browser.find_element(By.ID, "spectator-box"), what="the switch")
        wait(box.is_displayed, what="the switch shown")
        # (the roles and the status read at once: at the end every role is shown to all)
        roles, status = browser.execute_script(
            "return [[...document.querySelectorAll('#players .seat .role')]"
            ".map(e => e.innerText), document.getElementById('status').innerText]")
        assert status == "LIVE" and roles == [""] * 6, (status, roles)
        browser.find_element(By.ID, "spectator").click()
        wait(lambda: "" not in texts(browser, "#players .seat .role"), what="roles")
        # still live: the roles came from the switch, not from the end
        assert browser.find_element(By.ID, "status").text == "LIVE"
        wait(lambda: shown(browser, "tab-hideout"), 90, "the Hideout at night")
        browser.save_screenshot(str(ARTIFACTS / "spectator.png"))
        # the host is stopped (Ctrl-C) as soon as the Hideout was seen, mid-game or at its
        # end (a night that ends it): it closes its page, stops its agents and exits, 130
        # if the game was cut short (as without a page), 0 once it was over and its page
        # stayed up (the watch to the end is the seat page's test). Ctrl-C reaches the
        # whole process group (the embedded server's workers too: each printed a
        # traceback)
        os.killpg(proc.pid, signal.SIGINT)
        code = ended(proc)
        said = proc.stdout.read()
        assert "Traceback" not in said, said
        if "Summary:" in said:  # (the game had ended: its summary is printed at its end)
            assert code == 0 and "maw game: the web page is closed" in said, said
        else:
            assert code == 130 and "maw game: interrupted" in said, said
    finally:
        proc.kill()


async def test_a_ctrl_c_eaten_on_the_games_way_out_still_closes_its_page():
    """A Ctrl-C as the game ended was eaten by a stop on the game's way out, and the host
    kept the finished game's page up for good. Such a game still gets its summary
    (``after``), and the page closes as the Ctrl-C asked."""
    import asyncio

    from maw.web.host import watched

    started, summed = asyncio.Event(), []

    async def game(feed):
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:  # (a stop that swallows the cancel it gets)
            pass
        return "result"

    host = asyncio.create_task(watched(game, str(free_port()), say=lambda line: None,
                                       after=summed.append))
    await asyncio.wait_for(started.wait(), 10)
    host.cancel()
    done, _ = await asyncio.wait({host}, timeout=10)
    assert done and host.cancelled() and summed == ["result"]


@pytest.mark.xmpp
def test_a_host_stopped_with_ctrl_c_tells_its_seat_pages_and_exits(tmp_path):
    """A person's seat page, its stream open, saw the stream close with no end when the
    host was stopped (the page said "reconnecting…"), and the host took 5 to 17 s to go:
    Ctrl-C raised out of the event loop, so every task was cancelled at once, the
    page's stream before the seat's end; a stopped seat then waited 5 s for the main
    task, which was waiting for it."""
    import threading

    proc = maw("game", "--policy", "rule", "--players", "5", "--humans", "1",
               "--xmpp", f"embedded:{free_port()}", "--log-dir", str(tmp_path),
               "--web", str(free_port()), "--lobby-seconds", "120")
    out: list[str] = []
    try:
        seat = said_line(proc, r"(http://\S+/seat/\S+)", out, 30).group(1)
        frames: list[str] = []

        def read() -> None:
            with contextlib.suppress(Exception), \
                    urllib.request.urlopen(seat + "/events", timeout=60) as stream:
                for raw in stream:
                    frames.append(raw.decode())
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        wait(lambda: any("Your name?" in f for f in frames), 30, "the seat's question")
        proc.send_signal(signal.SIGINT)
        assert ended(proc) == 130
        reader.join(10)
        text = "".join(frames)
        assert "event: end" in text and "the host stopped" in text, text
        assert "Traceback" not in proc.stdout.read()
    finally:
        proc.kill()


def test_a_lobby_that_never_fills_says_why_on_the_page(browser, tmp_path):
    from selenium.webdriver.common.by import By

    port = free_port()
    # (a lobby long enough for the five AI players to log in on a loaded machine)
    proc = maw("game", "--policy", "rule", "--players", "6", "--humans", "1",
               "--lobby-seconds", "20", "--xmpp", f"embedded:{free_port()}",
               "--log-dir", str(tmp_path), "--web", str(port))
    url = f"http://127.0.0.1:{port}/"
    try:
        up(url, proc)
        browser.get(url)
        wait(lambda: len(texts(browser, "#players .seat[data-name]")) == 5,
             what="the AI players seated")
        assert browser.find_element(By.ID, "phase").text == "the lobby"
        # what the lobby waits for: the seat kept for a person, free
        assert texts(browser, "#players .seat.free .name") == ["free seat"]
        assert browser.find_element(By.ID, "lobby-note").text.startswith(
            "The lobby waits for 1 person: ")
        assert browser.find_element(By.ID, "center-note").text == "5 of 6 seated"
        look(browser, "lobby", apart(*TABLE_APART))
        why = wait(lambda: browser.find_element(By.ID, "winner").text, 60, "the reason")
        assert why == "No game: only 5 of 6 players joined within 20 s"
        assert not texts(browser, "#players .seat.free")  # (no lobby any more)
        assert ended(proc) == 2
    finally:
        proc.kill()


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_replay_opens_at_the_start_steps_by_event_and_phase_and_shows_prompts(
        server, tmp_path, browser):
    import asyncio

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from stand_ins import NAMES, FirstChoice  # a stand-in model that takes the first choice

    from maw.agents.gamemaster import GameConfig
    from maw.hosting.game import run_game, seats_from_roster
    from maw.hosting.roster import load_roster
    from maw.llm import register_backend

    register_backend(FirstChoice)
    roster = tmp_path / "r.toml"
    roster.write_text('[llm]\nbackend = "first-choice-for-test"\nmax_wait = 0\n' + "".join(
        f'[[player]]\nname = "{n}"\ndecider = "llm"\npersona = "You are {n}."\n'
        for n in NAMES[:6]))
    logs = tmp_path / "logs"
    config = GameConfig(early_end=True, players=6, rules=engine.ruleset("maw"), seed=4,
                        day_seconds=4, night_seconds=2, log_dir=logs)
    result = await run_game(config, seats_from_roster(load_roster(roster), 6), server,
                            timeout=300)
    log = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    # a second game in the archive, of rule players: the search tells them apart
    from maw.hosting.game import default_seats

    older = GameConfig(early_end=True, players=5, rules=engine.ruleset("aiwolf-5"), seed=9,
                       day_seconds=4, night_seconds=2, log_dir=logs / "older")
    await run_game(older, default_seats(5), server, timeout=120)
    port = free_port()
    proc = maw("web", str(logs), "--web", str(port))
    url = f"http://127.0.0.1:{port}/"

    def check() -> None:
        up(url, proc)
        browser.get(url)
        rows = lambda: [r for r in browser.find_elements(  # noqa: E731
            By.CSS_SELECTOR, "#games tbody tr[data-id]") if r.is_displayed()]
        wait(lambda: len(rows()) == 2, what="the list of games")
        mine = next(r for r in rows() if "maw" in r.text.split())
        cells = mine.find_elements(By.TAG_NAME, "td")
        assert cells[1].text == "4"  # the seed replays it
        over = next(r for r in log if r["kind"] == "outcome")
        assert (over["winner"] or "draw") in mine.text
        search = browser.find_element(By.ID, "search")
        search.send_keys("aiwolf")
        wait(lambda: len(rows()) == 1 and "aiwolf-5" in rows()[0].text, what="a search")
        search.clear()
        search.send_keys("Fay maw")  # a player (of the first game alone) and a ruleset
        wait(lambda: len(rows()) == 1 and "maw" in rows()[0].text.split(), what="another")
        search.clear()
        search.send_keys(" ")
        wait(lambda: len(rows()) == 2, what="all again")
        search.send_keys(Keys.BACKSPACE)  # (and the box empty again, for the picture)
        wait(lambda: len(rows()) == 2 and not search.get_attribute("value"), what="empty")
        look(browser, "archive")
        mine = next(r for r in rows() if "maw" in r.text.split())
        mine.find_element(By.CSS_SELECTOR, "a.replay-link").click()
        # it opens at the start: the players seated, day 1, not a blank page
        wait(lambda: shown(browser, "replay"), what="the timeline")
        # under a title that says which game it is (not the log's file name)
        started = next(r for r in log if r["kind"] == "started")
        date = time.strftime("%Y-%m-%d %H:%M", time.localtime(started["wall"]))
        won = f"{over['winner']} won on day {over['day']}" if over["winner"] else \
            f"a draw on day {over['day']}"
        assert browser.find_element(By.ID, "title").text == \
            f"maw, 6 players, {date}, seed 4: {won}"
        position = lambda: browser.find_element(By.ID, "position")  # noqa: E731
        wait(lambda: position().text.startswith("Day 1 · event "), what="day 1")
        assert len(texts(browser, "#players .seat[data-name]")) == 6
        at = lambda: int(position().get_attribute("data-upto"))  # noqa: E731
        start = at()
        browser.find_element(By.ID, "step").click()
        one = at()
        assert one > start and log[one - 1]["kind"] in ("event", "outcome")
        browser.find_element(By.ID, "back").click()
        assert at() == start
        browser.find_element(By.ID, "next-phase").click()
        assert position().text.startswith("Night 1 · ")
        # the phase strip: one button a phase, the last the end
        labels = texts(browser, "#phases button")
        assert labels[0] == "D1" and labels[1] == "N1" and labels[-1] == "end"
        assert not shown(browser, "banner")
        # to the end: the whole game, minds included
        browser.find_elements(By.CSS_SELECTOR, "#phases button")[-1].click()
        wait(lambda: shown(browser, "banner"), what="the winner")
        last = [r for r in log if r["kind"] == "llm" and r["player"] == "Bob"][-1]
        browser.find_element(By.CSS_SELECTOR, '#players .seat[data-name="Bob"]').click()
        wait(lambda: shown(browser, "mind"), what="Bob's mind")
        prompt = content(browser, "mind-prompt")
        # the whole prompt of Bob's last decision, as the model got it (folded away)
        assert prompt.startswith("[system]") and "You may now:" in prompt
        assert last["prompts"][-1][-1]["content"].splitlines()[0] in prompt
        assert content(browser, "mind-answer") == last["answers"][-1]
        # ... and the options of its last question (the log keeps them action -> targets)
        asked = [r for r in log if r["kind"] == "input" and r["player"] == "Bob"
                 and "options" in r][-1]  # (left out where unchanged since the last)
        labels = [f"{a} {t}" if t else a for a, on in asked["options"].items()
                  for t in (on or [""])]
        assert labels and content(browser, "mind-options") == ", ".join(labels)
        assert not shown(browser, "mind-prompt")  # folded until asked for
        summary = browser.find_element(By.CSS_SELECTOR, "#prompt-box summary")
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
        summary.click()
        assert shown(browser, "mind-prompt")
        # the end: every player's role and points, in the replay as live
        ended = {r[0]: r for r in browser.execute_script(
            "return [...document.querySelectorAll('#end-table tbody tr')].map(r =>"
            " [...r.cells].map(c => c.innerText.replace(/\\u00a0/g, ' ')))")}
        assert {n: (r[1], r[3]) for n, r in ended.items()} == {
            n: (role, str(over["points"][n])) for n, role in over["roles"].items()}

        def compact(driver, size: str) -> list[str]:  # (on a phone, the timeline is small)
            share = driver.execute_script(
                "return document.getElementById('replay').getBoundingClientRect().height"
                " / innerHeight")
            return [f"the timeline takes {share:.0%} of the screen"] if share > 0.1 else []
        look(browser, "replay", compact, apart(*TABLE_APART))

    try:
        await asyncio.to_thread(check)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_person_plays_a_whole_game_from_a_seat_page_while_it_is_watched(browser, tmp_path):
    """``--humans 1 --web``: the seat link's page is the person's interface: the name,
    a chat, a vote by button, a refusal with its reason, to the end of the game; it is
    sent nothing its player may not see. Meanwhile the observer's page shows the game live
    (its countdown counted from the phase's start, for a page opened mid-phase), at a
    desktop's size and a phone's."""
    import contextlib
    import re

    from selenium.common.exceptions import ElementNotInteractableException
    from selenium.webdriver.common.by import By

    port = free_port()
    proc = maw("game", "--policy", "rule", "--players", "6", "--humans", "1", "--seed", "3",
               "--rule", "seer=1", "--rule", "whisper=on",
               "--day-seconds", "20", "--night-seconds", "8", "--lobby-seconds", "60",
               "--xmpp", f"embedded:{free_port()}", "--log-dir", str(tmp_path),
               "--web", str(port))
    out: list[str] = []
    url = f"http://127.0.0.1:{port}/"
    try:
        seat = said_line(proc, r"(http://\S+/seat/\S+)", out, 30).group(1)
        # a wrong secret is no seat
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(seat[: seat.rindex("/") + 1] + "nope", timeout=5)
        assert missing.value.code == 404
        browser.get(seat)
        seat_tab = browser.current_window_handle
        lines = lambda: browser.execute_script(  # noqa: E731 - each line as heard
            "return [...document.querySelectorAll('#lines li')].map(e => e.dataset.text)")
        box = lambda: browser.find_element(By.ID, "text")  # noqa: E731
        wait(lambda: "Your name?" in lines(), what="the name question")
        assert box().get_attribute("placeholder") == "your name, then Enter"
        look(browser, "seat-name")
        box().send_keys("Quinn\n")
        me = wait(lambda: (t := browser.find_element(By.ID, "me").text).startswith("Quinn, ")
                  and t, what="a role")
        wait(lambda: "open once everyone has spoken" in " ".join(lines()), what="day 1")
        assert "/help" in box().get_attribute("placeholder")  # (a name no more)
        # the interface's own answers: the help line by line, /who as a note (not a chat
        # line from a player called "alive")
        box().send_keys("/help\n")
        box().send_keys("/who\n")
        drawn = lambda: browser.execute_script(  # noqa: E731 - each line as the page draws it
            "return [...document.querySelectorAll('#lines li')].map(e => ({text: e.dataset.text,"
            " shown: e.innerText, system: e.classList.contains('system'),"
            " speaker: e.querySelector('.who') && e.querySelector('.who').innerText}))")
        helped = wait(lambda: [x for x in drawn() if x["text"].startswith("Type a message")],
                      what="the help")[0]
        assert helped["system"] and helped["shown"].count("\n") >= 5, helped
        who = wait(lambda: [x for x in drawn() if x["text"].startswith("alive: ")],
                   what="/who")[0]
        assert who["system"] and who["speaker"] is None
        assert who["shown"].splitlines()[1].startswith("votes: ")
        # a chat line is a player's, drawn as said
        assert all(x["speaker"] == x["text"].split(": ")[0] for x in drawn()
                   if not x["system"] and not x["text"].startswith("[whisper]"))
        look(browser, "seat-day")
        # the refusal and the whisper come before Quinn speaks: the votes open only then
        # (or at half the day), and the AI players' votes may end the day by a majority
        # before a browser's slower steps. A vote before the votes open is refused
        browser.find_element(By.ID, "text").send_keys("/vote Nobody\n")
        refusal = wait(lambda: [x for x in lines() if "Refused" in x], what="a refusal")
        assert "the votes open once every living player has spoken" in refusal[0] or \
            "'Nobody' is not a player" in refusal[0], refusal[0]  # (opened at half the day)
        # a whisper, typed: it reaches its target alone (checked in the log below)
        hushed = wait(lambda: [n for n in texts(browser, "#living li") if n != "Quinn (you)"],
                      what="the living")[0]
        browser.find_element(By.ID, "text").send_keys(f"/whisper {hushed} between us\n")
        wait(lambda: f"[whisper] Quinn to {hushed}: between us" in lines(), what="a whisper")
        browser.find_element(By.ID, "text").send_keys("hello from the browser\n")
        wait(lambda: "Quinn: hello from the browser" in lines(), what="the chat said")
        offered = wait(lambda: [c for c in commands(browser) if c.startswith("/vote ")],
                       what="the votes open")
        assert commands(browser)[-1] == "/ready"  # (the day's end, once all are)
        assert press(browser, offered[0])
        target = offered[0].removeprefix("/vote ")
        wait(lambda: f"[GM] Quinn votes for {target}." in lines(), what="the vote")
        # on a phone too, the choices and the box to type in are on the first screen
        look(browser, "seat-vote", in_first_screen("#actions button.act", "#text"))

        # the observer's page, opened mid-phase, beside the seat
        browser.switch_to.new_window("tab")
        browser.get(url)
        wait(lambda: len(texts(browser, "#players .seat[data-name]")) == 6, what="six seats")
        assert browser.find_element(By.ID, "status").text == "LIVE"
        assert texts(browser, "#players .seat .role") == [""] * 6  # no role while live
        for _ in range(5):  # (read again if a phase began between the two reads)
            before = [r for r in read_log(tmp_path) if r["kind"] == "timer"][-1]
            left = wait(lambda: re.match(r"(\d+) s left", browser.find_element(
                By.ID, "timer").text), what="a countdown")
            log = read_log(tmp_path)
            timer = [r for r in log if r["kind"] == "timer"][-1]
            if timer == before:
                break
        expected = game_clock(log) + timer["t"] + timer["seconds"] - time.time()
        assert abs(int(left.group(1)) - expected) <= 2.5, (left.group(0), expected)
        look(browser, "live", apart(*TABLE_APART))
        # a seat's mind, live: nothing of it is sent to this page, and it says so rather
        # than show empty sections
        # (clicked again until it takes: the seats are redrawn as the game goes on, and a
        # seat found a moment before may be gone, "stale", when it is clicked)
        wait(lambda: browser.find_element(By.CSS_SELECTOR, "#players .seat[data-name]")
             .click() or shown(browser, "mind"), what="a mind")
        assert shown(browser, "mind-secret")
        for part in ("beliefs-box", "question-box", "prompt-box", "answer-box"):
            assert not shown(browser, part), part
        browser.switch_to.window(seat_tab)

        # then whenever choices come, the person takes the first, and once it has voted
        # it is done for the day (/ready: the day ends once all are), to the game's end
        night, voted = False, ""
        while not any(x.startswith("-- ") for x in lines()):
            phase = browser.find_element(By.ID, "phase").text
            if not night and phase.startswith("Night"):
                night = True  # (before the choice: the night may end once all have chosen)
                look(browser, "seat-night")
            offered = commands(browser)
            choice = next((c for c in offered if c not in ("/ready", "/unvote")), None)
            if voted == phase and "/ready" in offered:
                press(browser, "/ready")
            elif choice:
                press(browser, choice)
                voted = phase if choice.startswith("/vote ") else voted
            if browser.find_element(By.ID, "text").is_enabled() and \
                    phase.startswith("Day") and voted != phase:
                with contextlib.suppress(ElementNotInteractableException):  # (it just ended)
                    browser.find_element(By.ID, "text").send_keys("still here\n")
            time.sleep(1.5)
            assert proc.poll() is None
        assert "-- the game is over" in lines()
        # a night the page did not catch in the phase box (under load, it may pass between
        # two looks, or while the observer's tab is read) is still among its lines
        night = night or any(re.fullmatch(r"\[GM\] Day \d+, night\.", x) for x in lines())
        # the end: who won, every role and points; and the table follows the deaths
        wait(lambda: shown(browser, "end"), what="the end's table")
        winner = browser.find_element(By.ID, "end-winner").text
        ended = browser.execute_script(
            "return [...document.querySelectorAll('#end-table tbody tr')].map(r =>"
            " [...r.cells].map(c => c.innerText.replace(/\\u00a0/g, ' ')))")
        living = [n.removesuffix(" (you)") for n in texts(browser, "#living li")]
        look(browser, "seat-end")
        said_line(proc, r"page stays up", out, 60)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0, "".join(out) + proc.stdout.read()
    finally:
        proc.kill()
    log = read_log(tmp_path)
    assert {"Chat", "Vote", "Whisper"} <= {r["action"] for r in log if r["kind"] == "action"
                                           and r["data"].get("actor") == "Quinn"}
    jid = {r["player"]: r["jid"] for r in log if r["kind"] == "join"}
    assert {to for r in log if r["kind"] == "msg" and r["type"] == "private_line"
            for to in recipients(r)} == {jid[hushed]}
    over = next(r for r in log if r["kind"] == "outcome")
    role = over["roles"]["Quinn"]
    won = f"{over['winner'].capitalize()} won" if over["winner"] else "Nobody won"
    assert winner == f"{won} ({over['reason']})."
    assert sorted(ended) == sorted([n + (" (you)" if n == "Quinn" else ""), r,
                                    str(over["points"][n])] for n, r in over["roles"].items())
    died = {r["data"]["player"] for r in log if r["kind"] == "event"
            and r["event"] in ("Executed", "Murdered")}
    assert died and sorted(living) == sorted(set(over["roles"]) - died)
    from maw.records.audit import audit_records

    assert audit_records(log).ok  # a person's game keeps the rules and the secrets too
    assert me == f"Quinn, {role}" or me.startswith(f"Quinn, {role} ")
    lived_to_a_night = any(r["kind"] == "event" and r["event"] == "PhaseStarted" and
                           r["data"]["phase"] == "night" and "Quinn" in r["data"]["living"]
                           for r in log)
    assert night or not lived_to_a_night  # (a game may end before a night Quinn lives to)
    if role == "Seer" and lived_to_a_night:  # its night's button divined
        assert "Divine" in {r["action"] for r in log if r["kind"] == "action"
                            and r["data"].get("actor") == "Quinn"}
    # secrecy: every frame the page got is the player's own view and what it heard
    sent = browser.execute_script("return window.mawFrames")
    wolves = sorted(n for n, r in over["roles"].items() if r == "Werewolf")
    for f in sent:
        view = f["data"].get("view") if f["kind"] == "status" else None
        if view:
            assert view["player"] == "Quinn"
            knows = {"Quinn"} | (set(wolves) if role == "Werewolf" else set())
            assert set(view["known_roles"]) <= knows
    said = [f["data"]["text"] for f in sent if f["kind"] == "line"]
    end = next(i for i, x in enumerate(said) if "won" in x or "over" in x.lower())
    if role != "Werewolf":
        hideout = {r["data"]["text"] for r in log if r["kind"] == "event"
                   and r["event"] == "Chatted" and r["data"]["room"] == "Hideout"}
        assert not any(any(h in x for h in hideout) for x in said)
        assert not any(f"{w} was a Werewolf" in x for x in said[:end] for w in wolves)
    # every day Quinn lived, nobody was executed before Quinn had spoken
    alive, spoke = True, False
    for r in log:
        if r["kind"] != "event":
            continue
        e, d = r["event"], r["data"]
        if e == "PhaseStarted" and d["phase"] == "day":
            alive, spoke = "Quinn" in d["living"], False
        elif e == "Chatted" and d["speaker"] == "Quinn":
            spoke = True
        elif e == "Executed" and alive:
            assert spoke or d["player"] != "Quinn", f"Quinn executed unheard on day {d['day']}"


def test_a_tournament_page_follows_each_game_and_keeps_the_standings(browser, tmp_path):
    from selenium.webdriver.common.by import By

    roster = Path(__file__).resolve().parents[2] / "agents" / "rule.toml"
    port = free_port()
    # (phases run to their timers: each game lasts long enough to be seen live)
    proc = maw("tournament", "--roster", str(roster), "--games", "2", "--players", "6",
               "--day-seconds", "3", "--night-seconds", "2",
               "--out", str(tmp_path / "t.db"), "--log-dir", str(tmp_path / "logs"),
               "--web", str(port))
    url = f"http://127.0.0.1:{port}/"
    try:
        up(url, proc)
        browser.get(url)
        title = lambda: browser.find_element(By.ID, "title").text  # noqa: E731
        wait(lambda: title().startswith("tournament game "), 60, "a game followed")
        seen = {title()}
        # the page moves on to the next games by itself, and the standings fill
        wait(lambda: seen.add(title()) or len(seen) >= 2, 120, "the next game followed")
        wait(lambda: texts(browser, "#board-title") == ["TOURNAMENT STANDINGS"] and len(
            texts(browser, "#board tbody tr")) >= 6, 60, "the standings")
        browser.save_screenshot(str(ARTIFACTS / "tournament.png"))
        assert proc.wait(timeout=180) == 0
    finally:
        proc.kill()
    import sqlite3

    with sqlite3.connect(tmp_path / "t.db") as db:
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2
