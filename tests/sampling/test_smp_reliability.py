"""Profiles with impossible values are InputErrors naming file, row and column (never a negative
projection, a division by zero, an overflow or a RecursionError)."""

from __future__ import annotations

import json

import pytest

from warpsim.errors import InputError
from warpsim.sampling.readers import read_profile

NCU_HEAD = '"ID","Kernel Name","Grid Size","Block Size","gpc__cycles_elapsed.max"\n"","","","","cycle"\n'


def _kineto(tmp_path, events, name="k.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"traceEvents": events}) if not isinstance(events, str) else events)
    return path


def _ev(dur=5.0, **args):
    return {"cat": "kernel", "name": "k", "dur": dur, "ts": 0, "args": {"grid": [2, 1, 1], **args}}


@pytest.mark.parametrize(("body", "line", "fragment"), [
    ('"0","k","(1, 1, 1)","(32, 1, 1)","-250"\n', 3, "must be a finite number"),
    ('"0","k","(1, 1, 1)","(32, 1, 1)","inf"\n', 3, "expected a finite number"),
    ('"0","k","(1, 1, 1)","(32, 1, 1)","1e309"\n', 3, "expected a finite number"),
    ('"0","k","(1, 1, 1)","(32, 1, 1)","1e19"\n', 3, "must be a finite number in 0..1e+18"),
    ('"99999999999999999999","k","(1, 1, 1)","(32, 1, 1)","5"\n', 3, "below 2^62"),
    ('"0","k","(0, 1, 1)","(32, 1, 1)","5"\n', 3, "dimensions must be integers in 1.."),
])
def test_ncu_rows_with_impossible_values(tmp_path, body, line, fragment):
    path = tmp_path / "p.csv"
    path.write_text(NCU_HEAD + body)
    with pytest.raises(InputError) as info:
        read_profile(path)
    assert info.value.line == line and "p.csv:3" in str(info.value)
    assert fragment in str(info.value)


def test_kineto_non_finite_overflowing_and_deep(tmp_path):
    with pytest.raises(InputError, match=r"duration must be a finite number"):
        read_profile(_kineto(tmp_path, '{"traceEvents": [{"cat": "kernel", "name": "k", "dur": 1e309}]}'))
    with pytest.raises(InputError, match="JSON constant Infinity"):
        read_profile(_kineto(tmp_path, '{"traceEvents": [{"cat": "kernel", "name": "k", "dur": Infinity}]}'))
    with pytest.raises(InputError, match="registers must be an integer"):
        read_profile(_kineto(tmp_path, [_ev(**{"registers per thread": 2**70})]))
    with pytest.raises(InputError, match="dimensions must be integers"):
        read_profile(_kineto(tmp_path, [_ev(grid=[2**40, 1, 1])]))
    deep = '{"traceEvents": [' + "[" * 1000 + "]" * 1000 + "]}"
    with pytest.raises(InputError, match="JSON nested 1002 levels deep; at most 64"):
        read_profile(_kineto(tmp_path, deep))


def test_all_zero_durations_cannot_weight_kernels(tmp_path):
    table = read_profile(_kineto(tmp_path, [_ev(0.0), _ev(0.0)]))
    with pytest.raises(InputError, match="every launch has zero duration"):
        table.time()
    assert read_profile(_kineto(tmp_path, [_ev(0.0), _ev(2.0)])).time().tolist() == [0.0, 2.0]


def test_select_cli_reports_instead_of_dividing_by_zero(tmp_path):
    from typer.testing import CliRunner

    from warpsim.cli import app

    path = _kineto(tmp_path, [_ev(0.0), _ev(0.0)])
    res = CliRunner().invoke(app, ["select", str(path), "--method", "all"])
    assert res.exit_code != 0
    assert "every launch has zero duration" in res.output + str(res.exception)
