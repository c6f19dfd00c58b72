"""Reports from campaign databases: terminal tables (rich), one self-contained HTML file with
figures, and a CSV with one line per run.

    from warpsim.report import build_report
    report = build_report("results/")          # a .db file or a directory of them
    report.write_html("report.html"); report.write_csv("runs.csv")
"""

from warpsim.report.build import Report, build_report

__all__ = ["Report", "build_report"]
