"""PNG plots (matplotlib, Agg): cluster composition (like PKA Fig. 4), projected vs true per
group, and error against reduction per method."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from warpsim.sampling.apply import project  # noqa: E402
from warpsim.sampling.evaluate import table_time_of  # noqa: E402
from warpsim.sampling.selection import Selection  # noqa: E402
from warpsim.sampling.table import ProfileTable  # noqa: E402


def short_name(name: str, width: int = 38) -> str:
    """A readable kernel name: drop 'void', namespaces and template arguments."""
    base = name.split("(")[0] if not name.startswith("void at::native::(") else name
    base = base.replace("void ", "")
    depth, out = 0, []
    for ch in base:
        depth += ch == "<"
        if depth == 0:
            out.append(ch)
        depth -= ch == ">"
    s = "".join(out).split("::")[-1] or base
    return s if len(s) <= width else s[: width - 1] + "…"


def cluster_composition(
    selection: Selection, table: ProfileTable, path: str | Path, top_names: int = 12
) -> None:
    """Per cluster, stacked bars of how many launches of each kernel name it holds."""
    pos = {int(i): r for r, i in enumerate(table.launch)}
    counts_by_name: dict[str, int] = {}
    for nm in table.name:
        counts_by_name[nm] = counts_by_name.get(nm, 0) + 1
    top = sorted(counts_by_name, key=counts_by_name.get, reverse=True)[:top_names]
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(selection.strata) + 2))
    cmap = plt.get_cmap("tab20")
    for y, st in enumerate(selection.strata):
        names = [table.name[pos[int(i)]] for i in st.members]
        left = 0
        for c, nm in enumerate([*top, "other"]):
            cnt = sum(1 for x in names if (x == nm if nm != "other" else x not in top))
            if cnt:
                ax.barh(
                    y, cnt, left=left, color=cmap(c % 20), label=short_name(nm) if y == 0 or True else None
                )
                left += cnt
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles, strict=False))
    ax.legend(uniq.values(), uniq.keys(), fontsize=7, loc="lower right")
    ax.set_yticks(range(len(selection.strata)), [st.group or st.label for st in selection.strata], fontsize=8)
    ax.set_xlabel("kernel launches")
    ax.set_title(f"{selection.method}: cluster composition ({Path(table.source).name})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def projected_vs_true(selection: Selection, table: ProfileTable, path: str | Path, top: int = 20) -> None:
    """Per group (kernel name or cluster), true total time vs the selection's projection."""
    time_of = table_time_of(table)
    proj = project(selection, time_of)
    groups: dict[str, list[float]] = {}
    for st, ps in zip(selection.strata, proj.per_stratum, strict=True):
        g = groups.setdefault(st.group or st.label, [0.0, 0.0])
        g[0] += float(time_of(st.members).sum())
        g[1] += ps["projected"]
    keys = sorted(groups, key=lambda k: groups[k][0], reverse=True)[:top]
    x = np.arange(len(keys))
    fig, ax = plt.subplots(figsize=(11, 5))
    ax.bar(x - 0.2, [groups[k][0] for k in keys], 0.4, label="true")
    ax.bar(x + 0.2, [groups[k][1] for k in keys], 0.4, label="projected")
    ax.set_xticks(x, [short_name(k, 24) for k in keys], rotation=70, ha="right", fontsize=7)
    ax.set_ylabel(f"total {table.time_kind}" + (" (µs)" if table.time_kind == "duration" else ""))
    ax.set_title(f"{selection.method}: projected vs true per group ({Path(table.source).name})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def error_vs_reduction(curves: dict, path: str | Path, title: str) -> None:
    """One line per method (sweeping its knob): STEM (solid black) and random sampling's mean (dashed)
    are the references other methods are read against at equal reduction."""
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for m, pts in curves.items():
        pts = sorted(pts, key=lambda p: p.reduction)
        if m == "random":
            style = dict(ls="--", color="black")
        elif m == "stem":   # the reference the others are read against at equal reduction
            style = dict(marker="s", ms=5, lw=2.5, color="black")
        else:
            style = dict(marker="o", ms=4)
        ax.plot([p.reduction for p in pts], [max(p.error_pct, 1e-3) for p in pts], label=m, **style)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("reduction (total time / time of selected launches)")
    ax.set_ylabel("error of projected total (%)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
