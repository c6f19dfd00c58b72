"""HTML pages of `warpsim validate` and `warpsim correlate`: the scatter figures first, then the
tables behind them (one self-contained file, as the campaign report)."""

from __future__ import annotations

from warpsim.report.html import render
from warpsim.report.tables import TableData
from warpsim.validate.scatter import scatter_figure
from warpsim.validate.stats import Summary, fmt_corr, fmt_pct


def _f(v, fmt: str = "{:,.0f}") -> str:
    return "-" if v is None else fmt.format(v)


def _nrmse(v) -> str:
    return "-" if v is None or v != v else f"{v:.3f}"


def validation_tables(doc: dict) -> list[TableData]:
    progs = TableData(f"Programs ({doc['memory_model']} memory model)",
                      ["suite", "program", "workload", "silicon cycles", "warpsim cycles", "error",
                       "Accel-Sim PTX error", "Accel-Sim SASS error", "status"],
                      note="error = (simulated - silicon) / silicon", numeric={3, 4, 5, 6, 7})
    for p in doc["programs"]:
        progs.rows.append([p["suite"], p["label"], p["workload"] or "-", _f(p["hw_cycles"]),
                           _f(p["sim_cycles"]), fmt_pct(p["error_pct"], True),
                           fmt_pct(p["accelsim_ptx_err_pct"], True),
                           fmt_pct(p["accelsim_sass_err_pct"], True),
                           p["status"] + (f": {p['reason']}" if p["reason"] else "")])
    suites = TableData("Per suite", ["suite", "programs", "MAE", "mean error", "Pearson", "NRMSE",
                                     "Accel-Sim PTX MAE", "Accel-Sim SASS MAE"],
                       numeric={1, 2, 3, 4, 5, 6, 7})
    for name, s in doc["suites"].items():
        suites.rows.append([name, str(s["n"]), fmt_pct(s["mae_pct"]), fmt_pct(s["mean_error_pct"], True),
                            fmt_corr(s["pearson"]), _nrmse(s["nrmse"]),
                            fmt_pct(s["accelsim_ptx_mae_pct"]), fmt_pct(s["accelsim_sass_mae_pct"])])
    return [progs, suites]


def validation_html(doc: dict) -> str:
    ok = [p for p in doc["programs"] if p["status"] == "ok"]
    s = doc["suites"]["all"]
    summary = Summary(s["n"], s["mae_pct"], s["mean_error_pct"], s["aggregate_error_pct"], s["pearson"],
                      s["nrmse"])
    fig = scatter_figure(f"Cycles: warpsim ({doc['memory_model']}) vs silicon, {doc['gpu']}",
                         [p["hw_cycles"] for p in ok], [p["sim_cycles"] for p in ok],
                         [p["label"] for p in ok], summary, xlabel="silicon cycles",
                         ylabel=f"warpsim cycles ({doc['memory_model']} memory)",
                         groups=[p["suite"] for p in ok],
                         caption="Log-log; the dashed line is x = y. MAE = mean |error|, "
                                 "NRMSE = RMSE / mean(silicon), correlation = Pearson.")
    isa = f", {doc['isa'].upper()} instruction stream" if doc.get("isa") else ""
    heads = [f"{doc['gpu']}, {doc['memory_model']} memory model{isa}, {len(ok)} of {len(doc['programs'])} "
             f"programs simulated ({doc['method']})",
             f"MAE {fmt_pct(s['mae_pct'])}, mean error {fmt_pct(s['mean_error_pct'], True)}, "
             f"Pearson {fmt_corr(s['pearson'])}; Accel-Sim on the same programs: PTX MAE "
             f"{fmt_pct(s['accelsim_ptx_mae_pct'])}, SASS MAE {fmt_pct(s['accelsim_sass_mae_pct'])}"]
    return render("warpsim validate", [doc["hardware_file"]], heads, [fig], validation_tables(doc))


def correlation_tables(doc: dict) -> list[TableData]:
    stats = TableData(f"Counters ({doc['memory_model']} memory model)",
                      ["counter", "kernels", "Pearson", "MAE", "mean error", "NRMSE", "status"],
                      note="error = (simulated - hardware) / hardware; one point per kernel "
                           "(mean per launch)",
                      numeric={1, 2, 3, 4, 5})
    for c, s in doc["statistics"].items():
        if s["status"] == "ok":
            stats.rows.append([c, str(s["n"]), fmt_corr(s["pearson"]), fmt_pct(s["mae_pct"]),
                               fmt_pct(s["mean_error_pct"], True), _nrmse(s["nrmse"]), "ok"])
        else:
            stats.rows.append([c, "0", "-", "-", "-", "-", s["status"]])
    shown = [c for c in doc["counters"] if doc["statistics"][c]["status"] == "ok"][:6]
    pts = TableData("Kernels", ["simulated kernel", "hardware kernel", "benchmark", "matched by"]
                    + [f"{c} sim / hw" for c in shown], numeric=set(range(4, 4 + len(shown))))
    for p in doc["points"]:
        pts.rows.append([p["sim_kernel"][:40], p["hw_kernel"][:40], p["benchmark"], p["matched_by"]]
                        + [f"{_f(p['sim'][c], '{:,.4g}')} / {_f(p['hw'][c], '{:,.4g}')}" for c in shown])
    return [stats, pts]


def correlation_figures(doc: dict) -> list:
    """One log-log scatter (report.plots.Figure) per counter with matched values."""
    figs = []
    for c in doc["counters"]:
        s = doc["statistics"][c]
        if s["status"] != "ok":
            continue
        pts = [p for p in doc["points"] if p["sim"][c] is not None and p["hw"][c] is not None]
        summary = Summary(s["n"], s["mae_pct"], s["mean_error_pct"], s["aggregate_error_pct"], s["pearson"],
                          s["nrmse"])
        figs.append(scatter_figure(f"{c}: warpsim ({doc['memory_model']}) vs hardware",
                                   [p["hw"][c] for p in pts], [p["sim"][c] for p in pts],
                                   [p["sim_kernel"][:24] for p in pts], summary,
                                   xlabel=f"hardware {c}", ylabel=f"warpsim {c}",
                                   groups=[p["benchmark"] for p in pts],
                                   caption="Log-log, one point per kernel; the dashed line is x = y."))
    return figs


def correlation_heads(doc: dict) -> list[str]:
    ok = {c: s for c, s in doc["statistics"].items() if s["status"] == "ok"}
    heads = [f"{len(doc['points'])} kernels matched ({doc['memory_model']} memory model; hardware: "
             f"{doc['hardware_format']})",
             "Pearson: " + (", ".join(f"{c} {fmt_corr(s['pearson'])}" for c, s in ok.items()) or "no counter "
                            "with values on both sides")]
    if doc["unmatched_sim_kernels"]:
        heads.append(f"{len(doc['unmatched_sim_kernels'])} simulated kernels unmatched")
    return heads


def correlation_html(doc: dict) -> str:
    return render("warpsim correlate", [doc["hardware_file"], *doc["simulation_files"]],
                  correlation_heads(doc), correlation_figures(doc), correlation_tables(doc))
