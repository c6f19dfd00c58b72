"""Run the calibration set against QV100 silicon and write validate.json / validate.html.

A benchmark, not a CI test: the reproduced programs run at Accel-Sim's arguments and take minutes
to hours. Usage: python benchmarks/validation/calibration.py [OUT_DIR] [PROGRAM ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from warpsim.results import write_json
from warpsim.validate.calibration import validate
from warpsim.validate.pages import validation_html


def main(argv: list[str]) -> None:
    out = Path(argv[0]) if argv else Path("validation-results")
    out.mkdir(parents=True, exist_ok=True)
    doc = validate("QV100", None, argv[1:],
                   progress=lambda r: print(f"{r.suite} / {r.label}: {r.status} {r.error_pct}", flush=True))
    write_json(doc, out / "validate.json")
    (out / "validate.html").write_text(validation_html(doc))
    s = doc["suites"]["all"]
    print(f"MAE {s['mae_pct']:.1f} %, Pearson {s['pearson']}, {s['n']} programs")


if __name__ == "__main__":
    main(sys.argv[1:])
