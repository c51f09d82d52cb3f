"""What the tests ask of every page a browser shows (the web observer's, a tournament's
report): its layout at a size, checked in the page itself."""

from __future__ import annotations

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
