"""The README's workload table is what the generator produces from the counts cache."""

from pathlib import Path

from warpsim.workloads.readme_table import BEGIN, END, render

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_table_is_current():
    text = README.read_text()
    block = text[text.index(BEGIN):text.index(END) + len(END)]
    assert block == render()
    assert block.count("\n| `") == 55
