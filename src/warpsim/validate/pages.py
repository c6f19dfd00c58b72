"""HTML pages of `warpsim validate` and `warpsim correlate`: the scatter figures first, then the
tables behind them (one self-contained file, as the campaign report)."""

from __future__ import annotations

from warpsim.report.html import render
from warpsim.report.tables import TableData
from warpsim.validate.scatter import scatter_figure
from warpsim.validate.stats import Summary, fmt_corr, fmt_pct


def _f(v, fmt: str = "{:,.0f}") -> str:
    return "-" if v is None else fmt.format(v)


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
                            fmt_corr(s["pearson"]), _f(s["nrmse"], "{:.3f}"),
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
    heads = [f"{doc['gpu']}, {doc['memory_model']} memory model, {len(ok)} of {len(doc['programs'])} "
             f"programs simulated ({doc['method']})",
             f"MAE {fmt_pct(s['mae_pct'])}, mean error {fmt_pct(s['mean_error_pct'], True)}, "
             f"Pearson {fmt_corr(s['pearson'])}; Accel-Sim on the same programs: PTX MAE "
             f"{fmt_pct(s['accelsim_ptx_mae_pct'])}, SASS MAE {fmt_pct(s['accelsim_sass_mae_pct'])}"]
    return render("warpsim validate", [doc["hardware_file"]], heads, [fig], validation_tables(doc))
