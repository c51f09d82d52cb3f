"""What the tests ask of every page a browser shows (the web observer's, a tournament's
report): its layout at a size, checked in the page itself."""

from __future__ import annotations

import os
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "web"
ARTIFACTS.mkdir(parents=True, exist_ok=True)

# What a page must not do, at any size: be wider than the window (a sideways scroll), put
# an element past the window's edge (unless a scrolling box holds it), or show a heading
# with nothing under it.
LAYOUT = """
const W = window.innerWidth, bad = [];
const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
  (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : '');
const visible = (e) => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden'; };
const clipped = (e) => { for (let a = e.parentElement; a; a = a.parentElement) {
  const o = getComputedStyle(a).overflowX; if (o !== 'visible') return true; } return false; };
if (document.documentElement.scrollWidth > W + 1)
  bad.push('the page is ' + document.documentElement.scrollWidth + ' px wide in ' + W);
for (const e of document.body.querySelectorAll('*')) {
  if (!visible(e) || clipped(e)) continue;
  const r = e.getBoundingClientRect();
  if (r.right > W + 1 || r.left < -1) bad.push(name(e) + ' goes past the edge: ' +
                                               Math.round(r.left) + '..' + Math.round(r.right));
}
for (const h of document.querySelectorAll('h2, h3')) {
  if (!visible(h)) continue;
  let n = h.nextElementSibling, said = false;
  for (; n && !/^H[23]$/.test(n.tagName); n = n.nextElementSibling)
    if (visible(n) && n.innerText.trim()) said = true;
  if (!said) bad.push('the heading "' + h.innerText + '" has nothing under it');
}
for (const p of document.querySelectorAll('.panel'))
  if (visible(p) && !p.innerText.trim()) bad.push(name(p) + ' is empty');
return bad;
"""


def at_size(driver, w: int, h: int) -> None:
    """The page's viewport at ``w`` x ``h`` (a phone's: as a phone shows it)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": w, "height": h, "deviceScaleFactor": 1, "mobile": w < 600})


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


SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
# MAW_DOCS_IMAGES=1: the screenshots also go to docs/images for the README
DOCS = Path(__file__).resolve().parents[1] / "docs" / "images"


def look(driver, name: str, *checks) -> None:
    """At a desktop's size and a phone's: the page's layout holds (and each of ``checks``,
    given the driver and the size, finds nothing), and a screenshot."""
    try:
        for size, (w, h) in SIZES.items():
            at_size(driver, w, h)
            driver.execute_script("window.scrollTo(0, 0)")  # (the page as it opens)
            time.sleep(0.8)  # (the page redraws for its new size)
            problems = driver.execute_script(LAYOUT)
            for check in checks:
                problems += check(driver, size)
            driver.save_screenshot(str(ARTIFACTS / f"{name}-{size}.png"))
            if os.environ.get("MAW_DOCS_IMAGES"):
                driver.save_screenshot(str(DOCS / f"web-{name}-{size}.png"))
            assert not problems, f"{name} at {w}x{h}: {problems[:5]}"
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
