"""The web observer: what a watcher may receive (secrecy), and the page itself in a real
headless browser (Debian's chromium through chromium-driver and Selenium): a live game
from the lobby to the winner, the spectator switch, and a replay with the models' prompts.

Screenshots go to tests/artifacts/web/ (kept out of git) to be looked at."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from maw import engine
from maw.hosting.xmpp import free_port
from maw.web.observer import Observer, public

ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "web"


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


@pytest.fixture(scope="module")
def browser():
    driver_path = shutil.which("chromedriver")
    if driver_path is None:
        message = "no chromedriver: apt-get install chromium chromium-driver"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


def wait(condition, timeout: float = 30.0, what: str = "the page"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = condition()
        except Exception:  # (an element not there yet)
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what} did not happen in {timeout:.0f} s")


def up(url: str, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    def answers() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited: {proc.stdout.read()}")
        try:
            urllib.request.urlopen(url + "api/info", timeout=1).read()
            return True
        except (urllib.error.URLError, ConnectionError):
            return False
    wait(answers, timeout, f"{url} answering")


def maw(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "maw", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def texts(driver, css: str) -> list[str]:
    """The text of each element ``css`` selects, read at once (the page redraws)."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText)", css)


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


def live_game(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = maw("game", "--policy", "rule", "--players", "6", "--seed", "2", "--day-seconds",
               "5", "--night-seconds", "2", "--xmpp", f"embedded:{free_port()}",
               "--log-dir", str(tmp_path), "--web", str(port), *extra)
    url = f"http://127.0.0.1:{port}/"
    up(url, proc)
    return proc, url


def test_the_observer_shows_a_game_live_from_the_lobby_to_the_winner(browser, tmp_path):
    from selenium.webdriver.common.by import By

    proc, url = live_game(tmp_path)
    try:
        # no spectator switch: asking for one is refused
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url + "events?spectator=1", timeout=5)
        assert refused.value.code == 403
        browser.get(url)
        wait(lambda: browser.find_element(By.ID, "status").text == "live", what="live")
        wait(lambda: len(texts(browser, "#players .player")) == 6, what="six players")
        wait(lambda: browser.find_element(By.ID, "phase").text.startswith("Day "),
             what="a phase")
        wait(lambda: "s left" in browser.find_element(By.ID, "timer").text, what="a timer")
        wait(lambda: len(texts(browser, "#village .line")) > 3, what="the Village talking")
        # while the game is on, nobody's role shows, and there is no Hideout
        assert texts(browser, "#players .player .role") == [""] * 6
        assert not browser.find_element(By.ID, "hideout-box").is_displayed()
        assert not browser.find_element(By.ID, "spectator-box").is_displayed()
        browser.save_screenshot(str(ARTIFACTS / "live.png"))
        wait(lambda: browser.find_element(By.ID, "winner").is_displayed(), 90, "a winner")
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
    # the game is over: roles, the Hideout and minds are revealed
    wait(lambda: browser.find_element(By.ID, "status").text == "game over", what="the end")
    roles = texts(browser, "#players .player .role")
    assert sorted(roles) == sorted(["Werewolf"] * 2 + ["Villager"] * 4)
    assert browser.find_element(By.ID, "hideout-box").is_displayed()
    winner = browser.find_element(By.ID, "winner").text
    log = [json.loads(x) for x in next(tmp_path.glob("*.jsonl")).read_text().splitlines()]
    over = next(r for r in log if r["kind"] == "outcome")
    assert winner.startswith(f"{over['winner']} won on day {over['day']}")
    villager = next(n for n, r in over["roles"].items() if r == "Villager")
    browser.find_element(By.CSS_SELECTOR, f'#players .player[data-name="{villager}"]').click()
    wait(lambda: browser.find_element(By.ID, "mind").is_displayed(), what="the mind panel")
    beliefs = texts(browser, "#beliefs tbody tr")
    assert len(beliefs) == 5 and all(row.endswith("%") for row in beliefs)
    last = [r for r in log if r["kind"] == "beliefs" and r["player"] == villager][-1]
    top = max(sorted(last["beliefs"]), key=last["beliefs"].get)
    assert beliefs[0].startswith(top)  # its likeliest wolf first, as the log says
    assert "rule player" in browser.find_element(By.ID, "mind-prompt").text
    browser.save_screenshot(str(ARTIFACTS / "over.png"))


def test_the_spectator_switch_shows_roles_and_the_hideout_live(browser, tmp_path):
    from selenium.webdriver.common.by import By

    proc, url = live_game(tmp_path, "--web-spectator")
    try:
        browser.get(url)
        wait(lambda: len(texts(browser, "#players .player")) == 6, what="six players")
        box = wait(lambda: browser.find_element(By.ID, "spectator-box"), what="the switch")
        wait(box.is_displayed, what="the switch shown")
        assert texts(browser, "#players .player .role") == [""] * 6
        browser.find_element(By.ID, "spectator").click()
        wait(lambda: "" not in texts(browser, "#players .player .role"), what="roles")
        # still live: the roles came from the switch, not from the end
        assert browser.find_element(By.ID, "status").text == "live"
        wait(lambda: browser.find_element(By.ID, "hideout-box").is_displayed(), 30,
             "the Hideout at night")
        browser.save_screenshot(str(ARTIFACTS / "spectator.png"))
        assert proc.wait(timeout=90) == 0
    finally:
        proc.kill()


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_replay_steps_to_the_end_and_shows_each_models_prompt(server, tmp_path,
                                                                     browser):
    import asyncio

    from selenium.webdriver.common.by import By
    from test_llm import NAMES, FirstChoice  # a stand-in model that takes the first choice

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
    port = free_port()
    proc = maw("web", str(logs), "--web", str(port))
    url = f"http://127.0.0.1:{port}/"

    def look() -> None:
        up(url, proc)
        browser.get(url)
        rows = wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#games tbody tr[data-id]"),
                    what="the list of games")
        assert len(rows) == 1 and "maw" in rows[0].text
        over = next(r for r in log if r["kind"] == "outcome")
        assert (over["winner"] or "draw") in rows[0].text
        browser.save_screenshot(str(ARTIFACTS / "archive.png"))
        rows[0].find_element(By.CSS_SELECTOR, "a.replay-link").click()
        wait(lambda: browser.find_element(By.ID, "replay").is_displayed(), what="controls")
        assert browser.find_element(By.ID, "position").text.startswith(f"0 / {len(log)} ")
        for _ in range(3):
            browser.find_element(By.ID, "step").click()
        assert browser.find_element(By.ID, "position").text.startswith(f"3 / {len(log)} ")
        assert not browser.find_element(By.ID, "winner").is_displayed()
        # the slider to the end: the whole game, minds included
        browser.execute_script(
            "const s = document.getElementById('slider'); s.value = s.max;"
            "s.dispatchEvent(new Event('input'));")
        wait(lambda: browser.find_element(By.ID, "winner").is_displayed(), what="the winner")
        last = [r for r in log if r["kind"] == "llm" and r["player"] == "Bob"][-1]
        browser.find_element(By.CSS_SELECTOR, '#players .player[data-name="Bob"]').click()
        prompt = wait(lambda: browser.find_element(By.ID, "mind-prompt").text,
                      what="Bob's prompt")
        # the whole prompt of Bob's last decision, as the model got it
        assert prompt.startswith("[system]") and "You may now:" in prompt
        assert last["prompts"][-1][-1]["content"].splitlines()[0] in prompt
        assert browser.find_element(By.ID, "mind-answer").text == last["answers"][-1]
        browser.save_screenshot(str(ARTIFACTS / "replay.png"))

    try:
        await asyncio.to_thread(look)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_person_plays_a_whole_game_from_a_seat_page(browser, tmp_path):
    """``--humans 1 --web``: the seat link's page is the person's interface: the name,
    a chat, a vote by button, a refusal with its reason, to the end of the game; and it is
    sent nothing its player may not see."""
    import re

    from selenium.webdriver.common.by import By

    port = free_port()
    proc = maw("game", "--policy", "rule", "--players", "6", "--humans", "1", "--seed", "3",
               "--day-seconds", "8", "--night-seconds", "4", "--lobby-seconds", "60",
               "--xmpp", f"embedded:{free_port()}", "--log-dir", str(tmp_path),
               "--web", str(port))
    out: list[str] = []

    def link() -> str | None:
        line = proc.stdout.readline()
        out.append(line)
        found = re.search(r"(http://\S+/seat/\S+)", line)
        return found.group(1) if found else None

    try:
        seat = wait(link, 30, "a seat link")
        # a wrong secret is no seat
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(seat[: seat.rindex("/") + 1] + "nope", timeout=5)
        assert missing.value.code == 404
        browser.get(seat)
        lines = lambda: texts(browser, "#lines li")  # noqa: E731
        wait(lambda: "Your name?" in lines(), what="the name question")
        browser.find_element(By.ID, "text").send_keys("Quinn\n")
        me = wait(lambda: (t := browser.find_element(By.ID, "me").text).startswith("Quinn, ")
                  and t, what="a role")
        offered = wait(lambda: commands(browser), what="the day's choices")
        assert offered[-1] == "/pass"
        browser.find_element(By.ID, "text").send_keys("hello from the browser\n")
        wait(lambda: "Quinn: hello from the browser" in lines(), what="the chat said")
        browser.find_element(By.ID, "text").send_keys("/vote Nobody\n")
        refusal = wait(lambda: [x for x in lines() if "Refused" in x], what="a refusal")
        assert "'Nobody' is not a player" in refusal[0]
        vote = next(c for c in commands(browser) if c.startswith("/vote "))
        assert press(browser, vote)
        target = vote.removeprefix("/vote ")
        wait(lambda: f"[GM] Quinn votes for {target}." in lines(), what="the vote")
        browser.save_screenshot(str(ARTIFACTS / "seat.png"))
        # then whenever choices come, it takes the first (to the end of the game)
        while not any(x.startswith("-- ") for x in lines()):
            choice = next((c for c in commands(browser) if c not in ("/pass", "/unvote")),
                          None)
            if choice:
                press(browser, choice)
            time.sleep(1)
            assert proc.poll() is None or proc.returncode == 0
        assert "-- the game is over" in lines()
        assert proc.wait(timeout=60) == 0, "".join(out) + proc.stdout.read()
    finally:
        proc.kill()
    log = [json.loads(x) for x in next(tmp_path.glob("*.jsonl")).read_text().splitlines()]
    assert {"Chat", "Vote"} <= {r["action"] for r in log if r["kind"] == "action"
                                and r["data"].get("actor") == "Quinn"}
    over = next(r for r in log if r["kind"] == "outcome")
    role = over["roles"]["Quinn"]
    from maw.records.audit import audit_records

    assert audit_records(log).ok  # a person's game keeps the rules and the secrets too
    assert me == f"Quinn, {role}" or me.startswith(f"Quinn, {role} ")
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
        assert hideout and not any(any(h in x for h in hideout) for x in said)
        assert not any(f"{w} is a Werewolf" in x for x in said[:end] for w in wolves)


def test_a_tournament_page_follows_each_game_and_keeps_the_standings(browser, tmp_path):
    from selenium.webdriver.common.by import By

    roster = Path(__file__).resolve().parent.parent / "agents" / "rule.toml"
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
