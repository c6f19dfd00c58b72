"""The report of one simulation: one self-contained HTML file (Jinja2 template, Plotly charts with
plotly.js inlined once), laid out like the tools people study GPU runs with.

- overview: totals, the GPU, method, memory model and the actual override values;
- sampled runs: every kernel's cycles coloured by provenance, what each projection came from and
  the sampling parameters (PKP interval, threshold; selection groups);
- time series (AerialVision-like): IPC and active warps over simulated cycles, L2 / DRAM where the
  memory model gives them; per-SM and per-DRAM-channel heatmaps (report/spatial.py) when the run
  recorded them;
- correlation with hardware counters (`warpsim correlate`'s scatters) when a hardware CSV is given;
- one page per kernel (Nsight Compute-like): issue-slot breakdown per scheduler cycle, occupancy
  achieved vs theoretical and its limiter, memory traffic and hit rates, and the kernel's point
  on an instruction roofline of the GPU description.
"""

from __future__ import annotations

import math
from pathlib import Path

from warpsim.frames import SECTOR_BYTES, STALLS, kernel_records

MAX_KERNEL_PAGES = 40
COLORS = {"simulated": "#2e7d32", "projected": "#e08a00", "estimated": "#7b3fa0"}
STALL_TEXT = {
    "issued": "issued an instruction", "no_instruction": "no warp to issue (idle / fetch)",
    "scoreboard": "waiting on a register (scoreboard)", "unit_busy": "execution unit busy",
    "memory": "memory pipeline / outstanding loads", "barrier": "waiting at a barrier",
    "wait": "compiler stall count (SASS control word)",
}

TEMPLATE = Path(__file__).with_name("single.html.j2")   # Jinja2, autoescaped


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.3f}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)


class _Plots:
    """Plotly figures as HTML fragments; plotly.js goes inline with the first one only."""

    def __init__(self) -> None:
        self.first = True

    def html(self, fig, height: int = 360) -> str:
        fig.update_layout(height=height, margin={"l": 60, "r": 20, "t": 50, "b": 60}, template="plotly_white",
                          font={"size": 12})
        fig.update_xaxes(automargin=True)
        fig.update_yaxes(automargin=True)
        out = fig.to_html(full_html=False, include_plotlyjs=self.first, config={"displaylogo": False})
        self.first = False
        return out


def _cycles_figure(doc: dict, plots: _Plots) -> str:
    import plotly.graph_objects as go

    ks = doc["kernels"]
    provs = [k.get("provenance", "simulated") for k in ks]
    hover = [(f"projected from kernel {k['represented_by']}" if k.get("represented_by") is not None else
              f"PKP: simulated {k.get('simulated_cycles', 0):,} cycles, then projected" if k.get("pkp")
              else p)
             for k, p in zip(ks, provs, strict=True)]
    fig = go.Figure(go.Bar(x=[f"#{k['id']} {k['name'][:18]}" for k in ks], y=[k["cycles"] for k in ks],
                           marker_color=[COLORS.get(p, "#555") for p in provs], customdata=hover,
                           showlegend=False,
                           hovertemplate="%{x}<br>%{y:,} cycles<br>%{customdata}<extra></extra>"))
    for prov in dict.fromkeys(provs):       # legend entries, in launch order of first appearance
        fig.add_scatter(x=[None], y=[None], mode="markers", name=prov,
                        marker={"color": COLORS.get(prov, "#555"), "symbol": "square", "size": 10})
    fig.update_layout(title="Cycles per kernel", xaxis_title="kernel (launch id, name)",
                      yaxis_title="core cycles", xaxis={"tickangle": -45, "categoryorder": "trace"})
    return plots.html(fig, 380)


def _timeseries_figure(rows: list[dict], doc: dict, plots: _Plots) -> str:
    from plotly.subplots import make_subplots

    x = [r["cycle"] for r in rows]
    has_mem = any(r.get("l2_accesses") for r in rows)
    n = 3 if has_mem else 2
    titles = ["IPC (warp instructions per cycle)", "active warps"] + (["L2 miss rate / DRAM utilisation"]
                                                                      if has_mem else [])
    fig = make_subplots(rows=n, cols=1, shared_xaxes=True, subplot_titles=titles, vertical_spacing=0.08)
    fig.add_scatter(x=x, y=[r["ipc"] for r in rows], name="IPC", mode="lines", row=1, col=1)
    fig.add_scatter(x=x, y=[r["active_warps"] for r in rows], name="active warps", mode="lines", row=2, col=1)
    if has_mem:
        fig.add_scatter(x=x, y=[r["l2_miss_rate"] for r in rows], name="L2 miss rate", mode="lines",
                        row=3, col=1)
        fig.add_scatter(x=x, y=[r["dram_utilization"] for r in rows], name="DRAM utilisation", mode="lines",
                        row=3, col=1)
    for k in doc["kernels"]:
        if k.get("end_cycle") is not None:
            fig.add_vline(x=k["end_cycle"], line_dash="dash", line_color="#999", line_width=1)
    fig.update_xaxes(title_text="core cycle", row=n, col=1)
    return plots.html(fig, 220 * n + 80)


def _ceilings(gpu) -> dict[str, float] | None:
    if gpu is None:
        return None
    from warpsim.analytic.machine import hardware_ceilings

    return hardware_ceilings(gpu)


def _kernel_page(k: dict, rec: dict, doc: dict, ceil: dict | None, plots: _Plots) -> dict:
    import plotly.graph_objects as go

    page = {"id": k["id"], "name": k["name"], "provenance": k.get("provenance", "simulated")}
    occ = k.get("occupancy") or {}
    page["summary"] = (f"{k['cycles']:,} cycles ({k.get('time_us', 0):,.2f} µs), "
                       f"{k['warp_instructions']:,} warp instructions, IPC {k['ipc']:.2f}, "
                       f"grid {tuple(k.get('grid', ()))} x block {tuple(k.get('block', ()))}, "
                       f"{k['ctas']:,} CTAs")
    # issue-slot breakdown
    fr = (k.get("stalls") or {}).get("fractions") or {}
    names = [s for s in STALLS if s in fr]
    fig = go.Figure(go.Bar(x=[100 * fr[s] for s in names], y=[STALL_TEXT[s] for s in names], orientation="h",
                           marker_color=["#2e7d32" if s == "issued" else "#c62828" for s in names],
                           hovertemplate="%{y}: %{x:.2f} %<extra></extra>"))
    fig.update_layout(title="Issue slots per scheduler cycle", xaxis_title="% of scheduler cycles",
                      yaxis={"autorange": "reversed"})
    page["stalls"] = plots.html(fig, 300) if names else "<p class='note'>no issue-slot counts</p>"
    # occupancy
    if occ:
        vals = [100 * occ.get("theoretical", 0), 100 * occ.get("achieved", 0)]
        fig = go.Figure(go.Bar(x=["theoretical", "achieved"], y=vals, marker_color=["#90a4c8", "#1f3b73"],
                               text=[f"{v:.1f} %" for v in vals], textposition="outside"))
        fig.update_layout(title=f"Occupancy (limited by {occ.get('limited_by', '?')}, "
                                f"{occ.get('ctas_per_sm', '?')} CTAs/SM)",
                          yaxis_title="% of max warps per SM", yaxis_range=[0, 110])
        page["occupancy"] = plots.html(fig, 300)
    else:
        page["occupancy"] = "<p class='note'>no occupancy (projected kernel without a representative)</p>"
    # memory traffic
    l1d, l2, dram = k.get("l1d") or {}, k.get("l2") or {}, k.get("dram") or {}
    levels = [("L1D", l1d.get("accesses")), ("L2", l2.get("accesses")),
              ("DRAM", (dram.get("reads") or 0) + (dram.get("writes") or 0) if dram else None)]
    secs = k["cycles"] / (doc.get("gpu_clock_mhz", 0) * 1e6) if doc.get("gpu_clock_mhz") else 0.0
    xs = [n for n, v in levels if v is not None]
    ys = [SECTOR_BYTES * v / 1e6 for n, v in levels if v is not None]
    bw = [SECTOR_BYTES * v / secs / 1e9 if secs else 0.0 for n, v in levels if v is not None]
    hits = {"L1D": l1d.get("miss_rate"), "L2": l2.get("miss_rate")}
    text = [f"{b:,.1f} GB/s" + (f", hit {100 * (1 - hits[n]):.0f} %" if hits.get(n) is not None else "")
            for n, b in zip(xs, bw, strict=True)]
    fig = go.Figure(go.Bar(x=xs, y=ys, text=text, textposition="outside", marker_color="#3b6fd8"))
    fig.update_layout(title="Memory traffic (32 B sectors)", yaxis_title="MB moved", xaxis_title="level")
    page["memory"] = plots.html(fig, 300)
    page["memory_note"] = ""
    if doc.get("memory_model") == "fixed":
        page["memory_note"] = ("fixed-latency memory model: every access hits at L1 latency; L2 and DRAM are "
                               "not modelled (--memory-model hierarchy models them)")
    if k.get("memory_from"):
        page["memory_note"] += f" Counters projected: scaled x{k['memory_from']['scale']:.3g} from " \
                               f"{k['memory_from']['source']}."
    page["roofline"] = _roofline(k, rec, ceil, secs, plots)
    return page


def _roofline(k: dict, rec: dict, ceil: dict | None, secs: float, plots: _Plots) -> str:
    """Instruction roofline: warp instructions per second against warp instructions per byte."""
    import plotly.graph_objects as go

    if ceil is None or not secs:
        return "<p class='note'>no roofline (GPU description not available)</p>"
    dram_b = SECTOR_BYTES * ((rec.get("dram_read_sectors") or 0) + (rec.get("dram_write_sectors") or 0))
    l2_b = SECTOR_BYTES * (rec.get("l2_sectors") or 0)
    if dram_b:
        level, traffic, roof = "DRAM", dram_b, ceil["dram_bytes_per_s"]
    elif l2_b:      # everything hit in the L2 (or stayed there): the L2 is the memory level that bounds it
        level, traffic, roof = "L2", l2_b, ceil["l2_bytes_per_s"]
    else:
        return ("<p class='note'>no roofline point: no L2 or DRAM traffic (with the fixed-latency memory "
                "model none is modelled)</p>")
    peak = ceil["warp_instructions_per_s"]
    if not k["warp_instructions"]:
        return "<p class='note'>no roofline point (no instructions)</p>"
    intensity = k["warp_instructions"] / traffic
    achieved = k["warp_instructions"] / secs
    knee = peak / roof
    lo, hi = min(intensity, knee) / 100, max(intensity, knee) * 100
    xs = [lo * (hi / lo) ** (i / 60) for i in range(61)]
    fig = go.Figure()
    fig.add_scatter(x=xs, y=[min(peak, x * roof) / 1e9 for x in xs], mode="lines",
                    name=f"roof ({level} bandwidth / issue peak)", line_color="#555")
    fig.add_scatter(x=[intensity], y=[achieved / 1e9], mode="markers+text", name=f"kernel {k['id']}",
                    text=[f"{100 * achieved / min(peak, intensity * roof):.0f} % of roof"],
                    textposition="top center", marker={"size": 12, "color": "#c62828"})
    fig.update_layout(title="Instruction roofline", showlegend=True, legend={"orientation": "h", "y": -0.3})
    fig.update_xaxes(type="log", title_text=f"warp instructions per {level} byte")
    fig.update_yaxes(type="log", title_text="warp GIPS", range=[math.log10(max(achieved / 1e9, 1e-6)) - 1,
                                                              math.log10(peak / 1e9) + 0.5])
    return plots.html(fig, 320)


def timeseries_records(output) -> list[dict]:
    from warpsim.results import TIMESERIES_COLUMNS, timeseries_rows

    return [dict(zip(TIMESERIES_COLUMNS, r, strict=False)) for r in timeseries_rows(output)]


def render_single(doc: dict, *, gpu=None, timeseries: list[dict] | None = None,
                  ts_interval: int | None = None, title: str | None = None, all_kernels: bool = False,
                  spatial=None, correlation: dict | None = None) -> str:
    """The HTML text of one run's report. `gpu` (a GPUConfig) gives the roofline's ceilings;
    `spatial` (timing.spatial.SpatialSeries) the heatmaps; `correlation` (validate.correlate's
    document for this run) the scatters against hardware."""
    import jinja2

    plots = _Plots()
    recs = {r["kernel_id"]: r for r in kernel_records(doc)}
    ceil = _ceilings(gpu)
    t = doc["total"]
    sampled = ""
    sampling_rows: list[tuple] = []
    if doc.get("method", "full") != "full":
        s = doc.get("sampling") or {}
        n_proj = sum(1 for k in doc["kernels"] if k.get("provenance") != "simulated")
        n = len(doc["kernels"])
        frac = 100 * t.get("simulated_fraction", 1)
        sampled = (f"Sampled with {doc['method']}: {n - n_proj} of {n} kernels simulated to the end, "
                   f"{n_proj} projected; {frac:.1f} % of the warp instructions simulated "
                   f"({t.get('simulated_cycles', 0):,} of {t['cycles']:,} cycles).")
        if t.get("ci95_cycles"):
            lo, hi = t["ci95_cycles"]
            sampling_rows.append(("95 % interval of total cycles", f"{lo:,.0f} - {hi:,.0f}"))
        for key, val in (s.get("pkp") or {}).items():
            sampling_rows.append((f"PKP {key}", val))
        sel = s.get("selection") or {}
        if sel:
            sampling_rows.append(("selection", f"{sel.get('kind')}: {sel.get('groups')} groups, kernels "
                                                f"{', '.join(map(str, sel.get('selected', [])))} simulated"))
        for note in s.get("notes", []):
            sampling_rows.append(("note", note))
    cards = [("total cycles", f"{t['cycles']:,}"), ("time at core clock", f"{t.get('time_us', 0):,.2f} µs"),
             ("warp instructions", f"{t['warp_instructions']:,}"), ("IPC (warp)", f"{t['ipc']:.3f}"),
             ("kernels", f"{len(doc['kernels']):,}"), ("simulation wall time", f"{t['wall_seconds']:.2f} s")]
    settings = [("GPU", f"{doc['gpu']} ({doc.get('gpu_clock_mhz', 0):g} MHz core clock)"),
                ("workload", doc["workload"]), ("method", doc.get("method", "full")),
                ("memory model", doc["memory_model"]),
                ("overrides", " ".join(doc.get("overrides") or []) or "none (description as shipped)"),
                ("warpsim", doc.get("warpsim_version", "?"))]
    header = ["id", "name", "CTAs", "cycles", "µs", "warp insts", "IPC", "occupancy", "top stall",
              "provenance"]
    rows = []
    for k in doc["kernels"]:
        r = recs[k["id"]]
        stalls = {s: r.get(f"stall_{s}") or 0 for s in STALLS if s not in ("issued", "no_instruction")}
        top = max(stalls, key=stalls.get) if any(stalls.values()) else "-"
        rows.append([k["id"], k["name"], k["ctas"], k["cycles"], round(r["time_us"], 3),
                     k["warp_instructions"], round(k["ipc"], 3), (f"{100 * r['occupancy_achieved']:.1f} %"
                                          if r["occupancy_achieved"] is not None else None), top,
                     k.get("provenance", "simulated")])
    shown = doc["kernels"] if all_kernels else doc["kernels"][:MAX_KERNEL_PAGES]
    figures = {"cycles": _cycles_figure(doc, plots)}
    if timeseries:
        figures["timeseries"] = _timeseries_figure(timeseries, doc, plots)
        if ts_interval is None:
            ts_interval = t.get("timeseries_interval") or None
        if ts_interval is None and len(timeseries) > 1:
            # (a document without it) rows are not evenly spaced: an idle stretch is one row and the
            # last row closes a partial interval, so the period is the smallest gap before the last row
            cyc = [int(r["cycle"]) for r in timeseries]
            gaps = [cyc[0]] + [b - a for a, b in zip(cyc[:-2], cyc[1:-1], strict=True)]
            ts_interval = min((g for g in gaps if g > 0), default=None)
    if spatial is not None:
        from warpsim.report.spatial import spatial_figures

        figures["spatial"] = spatial_figures(spatial, doc, plots)
    corr = None
    if correlation is not None:
        from warpsim.validate.pages import correlation_figures, correlation_heads, correlation_tables

        corr = {"heads": correlation_heads(correlation), "figures": correlation_figures(correlation),
                "tables": correlation_tables(correlation), "hardware_file": correlation["hardware_file"]}
    pages = [_kernel_page(k, recs[k["id"]], doc, ceil, plots) for k in shown]
    env = jinja2.Environment(autoescape=True)
    return env.from_string(TEMPLATE.read_text(encoding="utf-8")).render(
        title=title or f"{doc['workload']} on {doc['gpu']}",
        meta=f"{doc.get('method', 'full')} simulation, {doc['memory_model']} memory, warpsim "
             f"{doc.get('warpsim_version', '?')}",
        cards=cards, settings=settings, sampled=sampled, sampling_rows=sampling_rows,
        timeseries=bool(timeseries), ts_interval=ts_interval or "?", figures=figures,
        kernel_header=header, kernel_rows=rows, pages=pages, fmt=_fmt, spatial=spatial is not None,
        correlation=corr,
        hidden=len(doc["kernels"]) - len(shown))


def write_single(path: str | Path, doc: dict, **kw) -> None:
    Path(path).write_text(render_single(doc, **kw), encoding="utf-8")


def read_timeseries_csv(path: str | Path) -> list[dict]:
    import csv

    with open(path, newline="") as fh:
        return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def _number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return v
