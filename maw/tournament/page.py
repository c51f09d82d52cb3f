"""``maw report --html``: one page of the tables, the notes and the charts (inlined), for
a browser on a desktop or a phone."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from maw.errors import MawError
from maw.tournament.charts import plot

if TYPE_CHECKING:
    from maw.tournament.report import Report

HTML_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MAW tournament report</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; background: #f4f1ea; color: #22201c;
       margin: 0 auto; padding: 1em 1.2em 3em; max-width: 1100px; }
h1 { font-size: 1.4rem; } h2 { font-size: 1rem; margin: 1.6em 0 .5em; }
section { background: #fffdf8; border: 1px solid #e3ddd0; border-radius: 10px;
          padding: .4em 1em 1em; margin: 1em 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
td, th { padding: .3em .5em; border-bottom: 1px solid #e3ddd0; white-space: nowrap; }
th { font-size: .75rem; text-transform: uppercase; color: #7a746a; }
.l { text-align: left; } .r { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #5b5346; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; max-width: 100%; } img { max-width: 100%; height: auto; }
figcaption { text-align: center; color: #7a746a; }
/* a phone: the tables wrap their cells to fit; one still too wide scrolls in its box,
   with a shadow on the side where more of it is */
@media (max-width: 700px) {
  body { padding: .6em .4em 2em; }
  section { padding: .3em .4em .8em; }
  td, th { white-space: normal; padding: .25em .22em; font-size: .72rem; }
  th { font-size: .66rem; letter-spacing: 0; text-transform: none; }
  .scroll { background:
      linear-gradient(to right, #fffdf8 30%, rgba(255,253,248,0)) left / 2em 100%,
      linear-gradient(to left, #fffdf8 30%, rgba(255,253,248,0)) right / 2em 100%,
      radial-gradient(farthest-side at 0 50%, rgba(0,0,0,.18), transparent) left / .8em 100%,
      radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.18), transparent) right / .8em 100%;
    background-repeat: no-repeat; background-attachment: local, local, scroll, scroll; }
}
</style></head><body>
{body}
</body></html>
"""


def write_html(report: Report, path: Path) -> Path:
    """One HTML page at ``path``: the tables, the notes and the charts (inlined)."""
    import base64
    import html
    import tempfile

    charts = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for png in plot(report, Path(tmp)):
                charts.append((png.stem.replace("_", " "),
                               base64.b64encode(png.read_bytes()).decode()))
    except MawError:  # no matplotlib: the page has the tables only, and says so
        charts = []
    e = html.escape
    parts = [f"<h1>MAW tournament: {report.games} games</h1>"]
    parts += [f"<p class=note>{e(line)}</p>" for line in report.notes()]
    for sec in report.sections():
        head = "".join(f"<th class={'l' if i < sec.left else 'r'}>{e(h)}</th>"
                       for i, h in enumerate(sec.header))
        body = "".join("<tr>" + "".join(f"<td class={'l' if i < sec.left else 'r'}>"
                                        f"{e(c)}</td>" for i, c in enumerate(row))
                       + "</tr>" for row in sec.rows)
        parts.append(f"<section><h2>{e(sec.title)}</h2><div class=scroll><table>"
                     f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
                     + (f"<p class=note>{e(sec.note)}</p>" if sec.note else "")
                     + "</section>")
    if charts:
        parts.append("<section><h2>Charts</h2><div class=charts>" + "".join(
            f"<figure><img alt='{e(t)}' src='data:image/png;base64,{b}'>"
            f"<figcaption>{e(t)}</figcaption></figure>" for t, b in charts)
            + "</div></section>")
    else:
        parts.append("<p class=note>No charts: pip install 'maw[report]' for "
                     "matplotlib.</p>")
    page = HTML_PAGE.replace("{body}", "\n".join(parts))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
