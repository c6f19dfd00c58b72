"""Assemble a report from one or more campaign databases."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from warpsim.campaign.store import open_stores
from warpsim.report import data, html, plots, tables
from warpsim.report.tables import TableData


@dataclass
class Report:
    """Everything a report shows, computed once and rendered to any of the outputs."""

    title: str
    sources: list[str]
    rows: list[data.Row]
    comparisons: list[data.SampleCompare]
    methods: list[data.MethodSummary]
    deltas: list[data.VariantDelta]
    variants: list[data.VariantSummary]
    headlines: list[str]

    def tables(self) -> list[TableData]:
        """Summaries first, then per-run detail, then failures."""
        out = [
            tables.method_table(self.methods),
            tables.variant_summary_table(self.variants),
            tables.sampling_table(self.comparisons),
            tables.variant_table(self.deltas),
            tables.runs_table(self.rows),
            tables.failures_table(self.rows),
        ]
        return [t for t in out if t is not None]

    def html(self) -> str:
        figures = plots.all_figures(self.rows, self.comparisons, self.deltas)
        return html.render(self.title, self.sources, self.headlines, figures, self.tables())

    def write_html(self, path: str | Path) -> None:
        Path(path).write_text(self.html(), encoding="utf-8")

    def write_csv(self, path: str | Path) -> None:
        tables.write_csv(self.rows, path)


def build_report(source: str | Path, campaign: str | None = None, title: str | None = None) -> Report:
    """Read a database (or a directory of them) and compute the report's numbers."""
    stores = open_stores(source)
    try:
        rows = data.load_rows(stores, campaign)
        names = list(dict.fromkeys(r.campaign for r in rows)) or [
            c.name for s in stores for c in s.campaigns()
        ]
        sources = [str(s.path) for s in stores]
    finally:
        for s in stores:
            s.close()
    cmps = data.sample_compare(rows)
    deltas = data.variant_deltas(rows)
    return Report(
        title or f"warpsim campaign report: {', '.join(names) or 'no campaigns'}",
        sources,
        rows,
        cmps,
        data.method_summary(cmps),
        deltas,
        data.variant_summary(deltas),
        data.headlines(rows),
    )
