"""`warpsim trace-info`: a thin CLI over trace_summary."""

from __future__ import annotations

import json

from accelsim_testutil import LUD_DIR, one_cta, v5_header, write
from typer.testing import CliRunner

from warpsim.cli import app


def test_trace_info_counts(tmp_path):
    body = ("0000 ffffffff 1 R1 IMAD 0 0 0\n0010 0000000f 1 R2 LDG.E 1 R1 4 1 0x100 4 0\n"
            "0020 ffffffff 0 EXIT 0 0 0")
    write(tmp_path, "kernel-3.traceg", v5_header(grid=2) + one_cta(body) + one_cta(body, cta="1,0,0"))
    write(tmp_path, "kernelslist.g", "MemcpyHtoD,0x100,64\nkernel-3.traceg\n")
    result = CliRunner().invoke(app, ["trace-info", str(tmp_path), "--count", "--json"])
    assert result.exit_code == 0, result.output
    memcpy, kernel = (json.loads(line) for line in result.output.splitlines())
    assert memcpy == {"memcpy_htod": {"dst_addr": 0x100, "nbytes": 64}}
    assert (kernel["kernel_id"], kernel["ctas_in_file"], kernel["warp_instructions"]) == (3, 2, 6)
    assert kernel["thread_instructions"] == 2 * (32 + 4 + 32) and kernel["memory_instructions"] == 2


def test_trace_info_table_on_the_real_trace():
    result = CliRunner().invoke(app, ["trace-info", str(LUD_DIR)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "_Z13lud_perimeterPfii" in result.output
