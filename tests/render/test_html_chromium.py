"""The HTML timetable as a person sees it: rendered by headless Chromium, then measured.

A probe script appended to a copy of the page records, for every task block, which day heading
sits above it and which section labels its top and bottom edges line up with, plus the text of
each day column. Skipped when /usr/bin/chromium is not installed.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pytest

from planner_cli.io.loader import load_any
from planner_cli.render.grid import section_times
from planner_cli.render.html import render_html
from planner_cli.settings import load_settings
from planner_cli.tools.common import ToolContext
from planner_cli.tools.registry import run_tool

CHROMIUM = Path("/usr/bin/chromium")
S0 = Path(__file__).resolve().parents[2] / "fixtures" / "states" / "s0.json"
EVIL = "<b>英语1</b> & \"q\" 'x'"

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="/usr/bin/chromium is not installed (apt-get install chromium)"
)

PROBE = """
<script>
(function () {
  const out = {blocks: [], columns: {}};
  document.querySelectorAll('.week').forEach(function (week) {
    const heads = [];
    week.querySelectorAll('.col.day').forEach(function (col) {
      const r = col.querySelector('.head').getBoundingClientRect();
      heads.push({date: col.dataset.date, left: r.left, right: r.right});
      out.columns[col.dataset.date] = col.innerText;
    });
    const labels = [];
    week.querySelectorAll('.sec').forEach(function (sec) {
      const r = sec.getBoundingClientRect();
      labels.push({section: +sec.dataset.section, top: r.top, bottom: r.bottom});
    });
    week.querySelectorAll('.block[data-state-id]').forEach(function (b) {
      const r = b.getBoundingClientRect();
      const cx = (r.left + r.right) / 2;
      const under = heads.filter(function (h) { return cx >= h.left && cx <= h.right; });
      const top = labels.filter(function (l) { return r.top + 4 >= l.top && r.top + 4 < l.bottom; });
      const bottom = labels.filter(function (l) { return r.bottom - 4 > l.top && r.bottom - 4 <= l.bottom; });
      const style = getComputedStyle(b);
      out.blocks.push({
        id: +b.dataset.stateId,
        guest: b.classList.contains('guest'),
        suggested: b.classList.contains('suggested'),
        date: under.length === 1 ? under[0].date : null,
        top: top.length ? top[0].section : null,
        bottom: bottom.length ? bottom[0].section : null,
        text: b.innerText,
        visible: r.width > 30 && r.height > 12 && style.visibility === 'visible',
        background: style.backgroundColor
      });
    });
  });
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


def chromium_probe(page: str, tmp_path: Path) -> dict:
    probed = page.replace("</body>", PROBE + "</body>")
    path = tmp_path / "page.html"
    path.write_text(probed, encoding="utf-8")
    cmd = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1400,2000",
        "--dump-dom",
        path.as_uri(),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    match = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert match, f"no probe output; chromium exit {done.returncode}: {done.stderr[-2000:]}"
    return json.loads(html.unescape(match.group(1)))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    state = load_any(S0).state
    placed = run_tool("place", state, {"task_id": 4, "day": 2, "slot_start": 3}, ToolContext())
    assert placed.ok, placed.text
    state = placed.state
    state.task(6).name = EVIL
    page = render_html(state, "zh", "S0", section_times(load_settings()["sections"]))
    return state, page, chromium_probe(page, tmp_path_factory.mktemp("chromium"))


def test_every_task_block_sits_under_its_day_and_on_its_sections(rendered):
    state, _, probe = rendered
    seen = {(b["id"], b["date"], b["top"], b["bottom"]) for b in probe["blocks"] if not b["guest"]}
    expected = set()
    for task in state.tasks:
        if task.is_guest:
            continue
        for slot in task.slots:
            info = state.day_info(slot.day)
            date = f"2026-11-{22 + info.day_of_week}"  # week 12 starts Monday 2026-11-23
            expected.add((task.state_id, date, slot.slot_start, slot.slot_end))
    assert seen == expected
    assert all(b["visible"] for b in probe["blocks"])


def test_guest_is_drawn_inside_its_water_course(rendered):
    _, _, probe = rendered
    guests = [b for b in probe["blocks"] if b["guest"]]
    assert [(g["id"], g["date"], g["bottom"]) for g in guests] == [(4, "2026-11-24", 4)]
    host = next(b for b in probe["blocks"] if b["id"] == 2)
    assert "思政" in host["text"] and "线代2" in host["text"]


def test_day_columns_show_the_names_a_person_reads(rendered):
    _, _, probe = rendered
    columns = probe["columns"]
    assert "高等数学" in columns["2026-11-23"] and "线代1" in columns["2026-11-23"]
    assert "线代2" in columns["2026-11-24"]
    assert "线代3" in columns["2026-11-25"]
    assert EVIL in columns["2026-11-26"]  # escaped, so shown literally
    assert "线代1" not in columns["2026-11-24"]
    assert "杂项" not in "".join(columns.values())  # pending: not in the grid


def test_suggested_tasks_are_highlighted(rendered):
    _, _, probe = rendered
    by_id = {b["id"]: b for b in probe["blocks"]}
    assert by_id[3]["suggested"] and by_id[3]["text"].startswith("★")
    assert not by_id[1]["suggested"] and "★" not in by_id[1]["text"]
    assert by_id[3]["background"] != by_id[1]["background"]


def test_names_are_escaped_in_the_source(rendered):
    _, page, _ = rendered
    assert "<b>英语1</b>" not in page
    assert "&lt;b&gt;英语1&lt;/b&gt; &amp; &quot;q&quot; &#x27;x&#x27;" in page
    assert "<script" not in page
