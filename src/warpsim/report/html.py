"""One self-contained HTML file: headlines first, then figures, then the tables behind them.

No external CSS, fonts or scripts (figures are inline base64 PNGs), so the file can be mailed,
attached to an issue or opened offline years later and still look the same.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from html import escape

from warpsim.report.plots import Figure
from warpsim.report.tables import TableData

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1200px;
color:#1d2330;padding:0 1rem;line-height:1.45}
h1{margin-bottom:.2rem}h2{margin-top:2.2rem;border-bottom:1px solid #dde;padding-bottom:.2rem}
.meta{color:#667;font-size:.9rem}
ul.headlines{background:#f4f7fb;border-left:4px solid #3b6fd8;padding:.8rem 1.2rem .8rem 2rem}
ul.headlines li{margin:.25rem 0}
table{border-collapse:collapse;margin:.6rem 0;font-size:.86rem}
th,td{border-bottom:1px solid #e4e6ee;padding:.25rem .6rem;text-align:left;white-space:nowrap}
th{background:#f0f2f7;position:sticky;top:0}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr:hover td{background:#fafbff}caption{caption-side:bottom;color:#667;font-size:.8rem;text-align:left}
.prov{font-size:.75rem;border-radius:3px;padding:0 .3rem}
.prov-simulated{background:#e3f4e6;color:#1b6b2c}.prov-projected{background:#fff2d6;color:#875a00}
.prov-estimated{background:#f1e4fa;color:#6a2c91}
.status-failed{color:#b3261e;font-weight:600}.status-done{color:#1b6b2c}
figure{margin:1rem 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{color:#556;font-size:.85rem}td.err{white-space:normal;max-width:40rem}
"""

PROVENANCES = ("simulated", "projected", "estimated")


def _cell(text: str, header: str, numeric: bool) -> str:
    cls = ["num"] if numeric else []
    body = escape(text)
    if header.startswith("provenance") and text != "-":
        body = " ".join(
            f'<span class="prov prov-{escape(w)}">{escape(w)}</span>' if w in PROVENANCES else escape(w)
            for w in text.split()
        )
    elif header == "status":
        cls.append(f"status-{escape(text)}")
    elif header == "error":
        cls.append("err")
    attr = f' class="{" ".join(cls)}"' if cls else ""
    return f"<td{attr}>{body}</td>"


def table_html(t: TableData) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in t.headers)
    body = "\n".join(
        "<tr>" + "".join(_cell(c, t.headers[i], i in t.numeric) for i, c in enumerate(row)) + "</tr>"
        for row in t.rows
    )
    cap = f"<caption>{escape(t.note)}</caption>" if t.note else ""
    slug = t.title.lower().replace(" ", "-")
    return (
        f'<h2 id="{escape(slug)}">{escape(t.title)}</h2>\n<table class="{escape(slug)}">{cap}'
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody></table>"
    )


def figure_html(f: Figure) -> str:
    return (
        f'<figure><img alt="{escape(f.title)}" src="data:image/png;base64,{f.png_base64}">'
        f"<figcaption><b>{escape(f.title)}.</b> {escape(f.caption)}</figcaption></figure>"
    )


def render(
    title: str,
    sources: Sequence[str],
    headlines: Sequence[str],
    figures: Sequence[Figure],
    tables: Sequence[TableData],
) -> str:
    from warpsim import __version__

    now = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f'<p class="meta">warpsim {escape(__version__)} · generated {now} · from '
        f"{escape(', '.join(sources))}</p>",
        '<ul class="headlines">' + "".join(f"<li>{escape(h)}</li>" for h in headlines) + "</ul>",
        '<p class="meta">Provenance: <span class="prov prov-simulated">simulated</span> cycle-level model to '
        'the end · <span class="prov prov-projected">projected</span> partly simulated, rest projected by a '
        'sampling method · <span class="prov prov-estimated">estimated</span> analytical model. '
        "Wall times and KIPS are measured.</p>",
    ]
    if figures:
        parts.append('<h2 id="figures">Figures</h2>')
        parts += [figure_html(f) for f in figures]
    parts += [table_html(t) for t in tables]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
