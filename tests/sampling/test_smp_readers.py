"""Readers on small hand-written files of each format, well-formed and malformed."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from warpsim.errors import InputError
from warpsim.sampling.readers import detect_format, read_profile
from warpsim.sampling.table import PKA_TABLE2_METRICS

KINETO_DOC = {
    "deviceProperties": [{"name": "Test GPU", "numSms": 80}],
    "traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 1, "dur": 50},
        {"ph": "X", "cat": "kernel", "name": "kB", "ts": 120, "dur": 7,
         "args": {"correlation": 11, "stream": 7, "grid": [4, 2, 1], "block": [64, 1, 1],
                  "registers per thread": 40, "shared memory": 1024}},
        {"ph": "X", "cat": "kernel", "name": "kA", "ts": 100, "dur": 5,
         "args": {"correlation": 10, "stream": 7, "grid": [8, 1, 1], "block": [128, 1, 1],
                  "registers per thread": 32, "shared memory": 0}},
        {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "ts": 90, "dur": 3},
    ],
}


def test_kineto_json_and_gz(tmp_path):
    p = tmp_path / "t.json"
    p.write_text(json.dumps(KINETO_DOC))
    g = tmp_path / "t.json.gz"
    g.write_bytes(gzip.compress(json.dumps(KINETO_DOC).encode()))
    for path in (p, g):
        assert detect_format(path) == "kineto"
        t = read_profile(path)
        assert list(t.name) == ["kA", "kB"]            # launch order = correlation id
        assert t.launch.tolist() == [0, 1]
        assert t.duration.tolist() == [5.0, 7.0]
        assert t.grid.tolist() == [[8, 1, 1], [4, 2, 1]]
        assert t.registers.tolist() == [32, 40] and t.shared_mem.tolist() == [0, 1024]
        assert t.time_kind == "duration" and t.meta["gpu"] == "Test GPU"


@pytest.mark.parametrize("mutate, where", [
    (lambda d: d.pop("traceEvents"), "traceEvents"),
    (lambda d: d["traceEvents"][1].update(dur=-3), "traceEvents[1].dur"),
    (lambda d: d["traceEvents"][2]["args"].update(grid=[8, "x"]), "traceEvents[2].args.grid"),
    (lambda d: [e.update(cat="cpu_op") for e in d["traceEvents"]], "traceEvents"),
])
def test_kineto_malformed(tmp_path, mutate, where):
    doc = json.loads(json.dumps(KINETO_DOC))
    mutate(doc)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(InputError) as e:
        read_profile(p, "kineto")
    assert where in str(e.value) and str(p) in str(e.value)


def test_kineto_invalid_json_names_line(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"traceEvents": [\n {"cat": "kernel",,}\n]}')
    with pytest.raises(InputError, match=r"bad.json:2"):
        read_profile(p, "kineto")


def test_real_alexnet_trace(alexnet_path):
    t = read_profile(alexnet_path)
    assert len(t) == 79
    assert t.duration.sum() == 10692.0      # sum of the 79 kernel 'dur' fields
    assert t.meta["num_sms"] == 108


NCU_RAW = """==PROF== Connected to process 1234 (/app)
some app output, with a comma
"ID","Process ID","Kernel Name","Stream","Block Size","Grid Size","launch__registers_per_thread",\
"gpc__cycles_elapsed.avg","gpu__time_duration.sum","smsp__inst_executed.sum","launch__grid_size"
"","","","","","","register/thread","cycle","usecond","inst",""
"0","1234","vecadd","7","(256, 1, 1)","(40, 1, 1)","16","1,234.5","2.5","10,000","40"
"1","1234","saxpy","7","(128, 1, 1)","(80, 2, 1)","24","2,000","3","n/a","160"
"""


def test_ncu_raw_page(tmp_path):
    p = tmp_path / "out.csv"
    p.write_text(NCU_RAW)
    assert detect_format(p) == "ncu"
    t = read_profile(p)
    assert list(t.name) == ["vecadd", "saxpy"]
    assert t.cycles.tolist() == [1234.5, 2000.0]           # thousands separator removed
    assert t.duration.tolist() == [2.5, 3.0]               # usecond from the units row
    assert t.block.tolist() == [[256, 1, 1], [128, 1, 1]] and t.grid.tolist()[1] == [80, 2, 1]
    assert t.registers.tolist() == [16, 24]
    ins = t.metrics["smsp__inst_executed.sum"]
    assert ins[0] == 10000 and np.isnan(ins[1])
    assert t.time_kind == "cycles"


def test_ncu_long_format(tmp_path):
    p = tmp_path / "long.csv"
    p.write_text('"ID","Kernel Name","Block Size","Grid Size","Metric Name","Metric Unit","Metric Value"\n'
                 '"0","k0","(32, 1, 1)","(2, 1, 1)","gpc__cycles_elapsed.avg","cycle","100"\n'
                 '"0","k0","(32, 1, 1)","(2, 1, 1)","smsp__inst_executed.sum","inst","7"\n'
                 '"1","k1","(32, 1, 1)","(4, 1, 1)","gpc__cycles_elapsed.avg","cycle","300"\n'
                 '"1","k1","(32, 1, 1)","(4, 1, 1)","smsp__inst_executed.sum","inst","9"\n')
    t = read_profile(p, "ncu")
    assert t.cycles.tolist() == [100, 300] and t.metrics["smsp__inst_executed.sum"].tolist() == [7, 9]


@pytest.mark.parametrize("text, match", [
    ("no header here\n1,2,3\n", "no header row"),
    ('"ID","Kernel Name","gpc__cycles_elapsed.avg"\n"0","k","12"\n"1","k"\n', r"out.csv:3.*2 fields"),
    ('"ID","Kernel Name","gpc__cycles_elapsed.avg"\n"0","k","twelve"\n',
     r"out.csv:2 \[gpc__cycles_elapsed.avg\]"),
    ('"ID","Kernel Name","Grid Size"\n"0","k","(1, 2)"\n', "dimension triple"),
])
def test_ncu_malformed(tmp_path, text, match):
    p = tmp_path / "out.csv"
    p.write_text(text)
    with pytest.raises(InputError, match=match):
        read_profile(p, "ncu")


NSYS = """Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),\
DymSMem (MB),Strm,Name
2000,1500,5,10,1,1,256,1,1,32,0.000,0.001,7,k_second
500,100,3,,,,,,,,,,7,[CUDA memcpy HtoD]
1000,2500,4,20,1,1,128,1,1,16,0.000,0.000,7,k_first
"""


def test_nsys_gpu_trace(tmp_path):
    p = tmp_path / "trace.csv"
    p.write_text(NSYS)
    assert detect_format(p) == "nsys"
    t = read_profile(p)
    assert list(t.name) == ["k_first", "k_second"]          # by start time, memcpy skipped
    assert t.duration.tolist() == [2.5, 1.5]                # ns -> µs
    assert t.grid.tolist() == [[20, 1, 1], [10, 1, 1]]
    assert t.shared_mem.tolist() == [0, round(0.001 * 1024 * 1024)]


def test_nsys_summary_refused_and_bad_duration(tmp_path):
    p = tmp_path / "sum.csv"
    p.write_text("Time (%),Total Time (ns),Instances,Avg (ns),Name\n50.0,1000,4,250,k\n")
    with pytest.raises(InputError, match="per-name kernel summary"):
        read_profile(p, "nsys")
    p.write_text("Start (ns),Duration (ns),Name\n1,abc,k\n")
    with pytest.raises(InputError, match=r"sum.csv:2 \[Duration \(ns\)\]"):
        read_profile(p, "nsys")


def test_functional_csv_and_json(tmp_path):
    short = list(PKA_TABLE2_METRICS)
    header = ("launch,name,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers,shared_mem,cycles,"
              + ",".join(short))
    vals = ",".join(str(i + 1) for i in range(12))
    p = tmp_path / "prof.csv"
    p.write_text(f"{header}\n1,kb,2,1,1,64,1,1,20,0,500,{vals}\n0,ka,1,1,1,32,1,1,16,0,300,{vals}\n")
    assert detect_format(p) == "functional"
    t = read_profile(p)
    assert list(t.name) == ["ka", "kb"] and t.cycles.tolist() == [300, 500]
    assert t.metrics["smsp__inst_executed.sum"].tolist() == [10, 10]   # 'instructions' is column 10
    doc = {"format": "warpsim-functional-profile", "version": 1, "kernels": [
        {"launch": 0, "name": "k", "grid": [2, 1, 1], "block": [64], "cycles": 10,
         "metrics": {"instructions": 5, "launch__grid_size": 2}, "bbv": [1, 2, 3]}]}
    j = tmp_path / "prof.json"
    j.write_text(json.dumps(doc))
    tj = read_profile(j)
    assert tj.block.tolist() == [[64, 1, 1]] and tj.bbv.tolist() == [[1, 2, 3]]
    doc["kernels"][0]["metrics"] = {"not_a_metric": 1}
    j.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"kernels\[0\].metrics"):
        read_profile(j)
    p.write_text("name,bogus\nk,1\n")
    with pytest.raises(InputError, match="unknown column"):
        read_profile(p, "functional")


def test_unrecognised_and_missing(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("hello world\n")
    with pytest.raises(InputError, match="unrecognised profile format"):
        read_profile(p)
    with pytest.raises(InputError, match="cannot read profile"):
        read_profile(tmp_path / "missing.json")
