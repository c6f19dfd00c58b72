"""`warpsim correlate`: hardware CSV readers (Accel-Sim schema, Nsight raw and long), kernel
matching, per-counter statistics, the CLI end to end on small files."""

import json

import pytest
from typer.testing import CliRunner

from warpsim.cli import app
from warpsim.errors import InputError
from warpsim.validate.correlate import base_name, correlate
from warpsim.validate.hwcounters import read_hw_counters


def _cache(rh, rtot, wh, wtot):
    return {"breakdown": {"GLOBAL_ACC_R": {"HIT": rh, "TOTAL_ACCESS": rtot},
                          "GLOBAL_ACC_W": {"HIT": wh, "TOTAL_ACCESS": wtot}}}


def _kernel(name, cycles, winst, l1, l2, dr, dw):
    return {"name": name, "cycles": cycles, "warp_instructions": winst, "provenance": "simulated",
            "l1d": _cache(*l1), "l2": _cache(*l2), "dram": {"reads": dr, "writes": dw}}


def _sim_doc(tmp_path, kernels, model="hierarchy"):
    p = tmp_path / "sim.json"
    p.write_text(json.dumps({"workload": "rodinia/backprop", "memory_model": model, "kernels": kernels}))
    return p


ACCELSIM_HEADER = ("Benchmark,Kernel,L1_RH,L1_RM,L1_WH,L1_WM,CC_ACC,SHRD_ACC,DRAM_Rd,DRAM_Wr,L2_RH,L2_RM,"
                   "L2_WH,L2_WM,NOC,Pipeline_Duty,Num_Idle_SMs,Elapsed_Cycles,Chip Voltage\n")


def test_base_names():
    assert base_name("_Z22bpnn_layerforward_CUDAPfS_S_S_ii") == "bpnn_layerforward_CUDA"
    assert base_name("_ZN7cutlass4gemm16gemm_kernel_nolbINS0_E") == "gemm_kernel_nolb"
    assert base_name("_Z21mergeSortSharedKernelILj1EEvPjS0_") == "mergeSortSharedKernel"
    assert base_name("void transpose<16>(float*, int)") == "transpose"
    assert base_name("findK") == "findK"


def test_accelsim_schema_end_to_end(tmp_path):
    hw = tmp_path / "hw.csv"
    hw.write_text(ACCELSIM_HEADER
                  + "bp-rodinia,_Z22bpnn_layerforward_CUDAPfS_S_S_ii,"
                    "100,300,50,10,0,0,400,60,200,100,40,0,0,0,0,1000,1\n"
                  + "bp-rodinia,_Z24bpnn_adjust_weights_cudaPfiS_iS_S_,"
                    "80,120,30,20,0,0,200,90,100,100,50,0,0,0,0,2000,1\n"
                  + "other,unrelatedKernel,1,1,1,1,0,0,1,1,1,1,1,1,0,0,0,5,1\n")
    # two launches of the first kernel: mean per launch is cycles 1100, L1 read hits 110
    sim = _sim_doc(tmp_path, [
        _kernel("bp_layerforward", 1000, 500, (100, 400, 50, 60), (200, 300, 40, 40), 380, 60),
        _kernel("bp_layerforward", 1200, 500, (120, 420, 50, 60), (220, 300, 40, 40), 420, 60),
        _kernel("bp_adjust_weights", 1800, 900, (80, 200, 30, 50), (100, 200, 50, 50), 200, 100),
        _kernel("no_such_kernel_anywhere", 10, 1, (0, 0, 0, 0), (0, 0, 0, 0), 0, 0),
    ])
    doc = correlate([sim], hw)
    assert doc["hardware_format"] == "accelsim"
    pts = {p["sim_kernel"]: p for p in doc["points"]}
    assert set(pts) == {"bp_layerforward", "bp_adjust_weights"}
    lf = pts["bp_layerforward"]
    assert lf["matched_by"] == "token" and lf["sim_launches"] == 2
    assert lf["sim"]["cycles"] == 1100 and lf["hw"]["cycles"] == 1000
    assert lf["sim"]["l1_read_hits"] == 110 and lf["sim"]["l1_read_misses"] == 300   # (300 + 300) / 2
    assert lf["hw"]["l2_write_misses"] == 0 and lf["sim"]["dram_reads"] == 400
    s = doc["statistics"]["cycles"]
    assert s["n"] == 2 and s["mae_pct"] == pytest.approx((10 + 10) / 2) and s["pearson"] == pytest.approx(1.0)
    assert doc["statistics"]["ipc"]["status"].startswith("not in the hardware file")
    assert len(doc["unmatched_sim_kernels"]) == 1 and "no_such_kernel" in doc["unmatched_sim_kernels"][0]
    # the CLI: table, JSON and HTML
    out, html = tmp_path / "c.json", tmp_path / "c.html"
    res = CliRunner().invoke(app, ["correlate", str(sim), str(hw), "--json", str(out), "--html", str(html),
                                   "--counters", "cycles,dram_reads"])
    assert res.exit_code == 0, res.output
    assert "hierarchy memory model" in res.output
    assert json.loads(out.read_text())["counters"] == ["cycles", "dram_reads"]
    assert html.read_text().count("<img") == 2


def test_nsight_raw_and_long_exports(tmp_path):
    raw = tmp_path / "raw.csv"
    raw.write_text('==PROF== Connected to process\n'
                   '"ID","Process ID","Process Name","Kernel Name","gpc__cycles_elapsed.max",'
                   '"smsp__inst_executed.sum","dram__sectors_read.sum"\n'
                   '"","","","","cycle","inst","sector"\n'
                   '"0","1","app","vecadd","2,000","1,000","640"\n'
                   '"1","1","app","vecadd","2,200","1,000","660"\n')
    fmt, ks = read_hw_counters(raw)
    assert fmt == "nsight-raw" and len(ks) == 2
    assert ks[0].values["cycles"] == 2000 and ks[0].values["ipc"] == pytest.approx(0.5)
    long = tmp_path / "long.csv"
    long.write_text('"ID","Process Name","Kernel Name","Section Name","Metric Name","Metric Unit",'
                    '"Metric Value"\n'
                    '"0","app","vecadd(float*)","raw","gpc__cycles_elapsed.max","cycle","2000"\n'
                    '"0","app","vecadd(float*)","raw","dram__sectors_read.sum","sector","640"\n')
    fmt, ks = read_hw_counters(long)
    assert fmt == "nsight-long" and ks[0].values == {"cycles": 2000, "dram_reads": 640}
    sim = _sim_doc(tmp_path, [_kernel("vecadd", 2100, 1000, (0, 0, 0, 0), (0, 0, 0, 0), 650, 0)])
    doc = correlate([sim], raw, ["cycles", "ipc"])
    (p,) = doc["points"]
    assert p["hw_rows"] == 2 and p["hw"]["cycles"] == 2100 and p["matched_by"] == "name"
    assert p["sim"]["ipc"] == pytest.approx(1000 / 2100)


def test_fixed_model_counters_are_reported_not_simulated(tmp_path):
    hw = tmp_path / "hw.csv"
    hw.write_text(ACCELSIM_HEADER + "b,k1,1,1,1,1,0,0,1,1,1,1,1,1,0,0,0,100,1\n")
    k = {"name": "k1", "cycles": 90, "warp_instructions": 5, "l1d": {}, "l2": {}, "dram": {}}
    doc = correlate([_sim_doc(tmp_path, [k], model="fixed")], hw, ["cycles", "l2_read_hits"])
    assert doc["memory_model"] == "fixed"
    assert doc["statistics"]["cycles"]["status"] == "ok"
    assert doc["statistics"]["l2_read_hits"]["status"].startswith("not simulated")


@pytest.mark.parametrize("args, needle", [(["--counters", "bogus"], "bogus"), (["--map", "x"], "--map")])
def test_cli_input_errors(tmp_path, args, needle):
    hw = tmp_path / "hw.csv"
    hw.write_text(ACCELSIM_HEADER + "b,k1,1,1,1,1,0,0,1,1,1,1,1,1,0,0,0,100,1\n")
    sim = _sim_doc(tmp_path, [])
    res = CliRunner().invoke(app, ["correlate", str(sim), str(hw), *args])
    assert isinstance(res.exception, InputError) and needle in str(res.exception)


def test_unknown_csv_layout(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="not a hardware-counter CSV"):
        read_hw_counters(p)


def test_several_nsight_exports_are_told_apart_by_their_program(tmp_path):
    """`warpsim silicon` writes one export per program, all from process python3: given together,
    each kernel's benchmark is its file's program, so --benchmark picks one program's kernels."""
    def export(name, cycles):
        p = tmp_path / f"{name}_standard.counters.ncu.csv"
        p.write_text('"ID","Process Name","Kernel Name","gpc__cycles_elapsed.max"\n'
                     '"","","","cycle"\n'
                     f'"0","python3.12","vecadd","{cycles}"\n')
        return p

    a, b = export("micro_vecadd", 1000), export("sdk_vectoradd", 3000)
    sim = _sim_doc(tmp_path, [_kernel("vecadd", 1100, 10, (0, 0, 0, 0), (0, 0, 0, 0), 0, 0)])
    doc = correlate([sim], [a, b], ["cycles"], benchmark="^micro_vecadd")
    (p,) = doc["points"]
    assert p["benchmark"] == "micro_vecadd_standard" and p["hw"]["cycles"] == 1000
    assert doc["hardware_file"] == f"{a}, {b}"
    doc = correlate([sim], [a, b], ["cycles"])           # the same kernel name in two programs
    assert not doc["points"] and "ambiguous" in doc["unmatched_sim_kernels"][0]
    result = CliRunner().invoke(app, ["correlate", str(sim), str(a), str(b), "--benchmark", "sdk_",
                                      "--counters", "cycles"])
    assert result.exit_code == 0, result.output
    assert "3,000" in result.output or "3000" in result.output


def test_l2_traffic_counters_do_not_depend_on_what_each_side_calls_a_hit(tmp_path):
    """hotspot on an H200 (benchmarks/silicon/h200-2026-11-27): Nsight counts its 43,520 L2 write
    sectors as hits, warpsim's write-validate L2 10,752 hits + 32,768 misses; the traffic agrees."""
    hw = tmp_path / "hotspot.ncu.csv"
    hw.write_text('"ID","Process Name","Kernel Name",'
                  '"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",'
                  '"lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum",'
                  '"lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum",'
                  '"lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum"\n'
                  '"","","","sector","sector","sector","sector"\n'
                  '"0","python3","calculate_temp","105,937","85,234","43,520","0"\n')
    k = _kernel("calculate_temp", 12900, 3027028, (8, 172720, 0, 43520), (49057, 172712, 10752, 43520),
                65536, 0)
    doc = correlate([_sim_doc(tmp_path, [k])], hw, ["l2_reads", "l2_writes", "l2_write_hits"])
    (p,) = doc["points"]
    assert p["hw"]["l2_writes"] == p["sim"]["l2_writes"] == 43520
    assert p["hw"]["l2_reads"] == 105937 + 85234 and p["sim"]["l2_reads"] == 172712
    assert (p["hw"]["l2_write_hits"], p["sim"]["l2_write_hits"]) == (43520, 10752)
    hw2 = tmp_path / "hw.csv"          # Accel-Sim's schema: the sums of its L2 columns
    hw2.write_text(ACCELSIM_HEADER + "b,calculate_temp,1,1,1,1,0,0,1,1,200,100,40,0,0,0,0,1000,1\n")
    (p,) = correlate([_sim_doc(tmp_path, [k])], hw2, ["l2_reads", "l2_writes"])["points"]
    assert (p["hw"]["l2_reads"], p["hw"]["l2_writes"]) == (300, 40)


def test_a_pending_l1_hit_is_a_miss_to_accelsim_and_a_hit_to_nsight(tmp_path):
    """Nsight's l1tex load lookup hits equal HIT + HIT_RESERVED on the H200 (pathfinder: 90 + 320,314
    = 320,404); Accel-Sim's correlator counts a pending hit as a miss."""
    k = _kernel("dynproc_kernel", 1000, 500, (90, 1000, 0, 10), (0, 0, 0, 0), 0, 0)
    k["l1d"]["breakdown"]["GLOBAL_ACC_R"]["HIT_RESERVED"] = 310
    k["l2"]["breakdown"]["GLOBAL_ACC_R"]["HIT_RESERVED"] = 0
    sim = _sim_doc(tmp_path, [k])
    acc = tmp_path / "acc.csv"
    acc.write_text(ACCELSIM_HEADER
                   + "pf,_Z14dynproc_kerneliPiS_S_iiii,400,600,0,10,0,0,0,0,0,0,0,0,0,0,0,900,1\n")
    ncu = tmp_path / "ncu.csv"
    ld = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_"
    ncu.write_text(f'"ID","Kernel Name","{ld}hit.sum","{ld}miss.sum"\n"","","sector","sector"\n'
                   f'"0","dynproc_kernel","400","600"\n')
    a = correlate([sim], acc, ["l1_read_hits", "l1_read_misses"])["points"][0]["sim"]
    n = correlate([sim], ncu, ["l1_read_hits", "l1_read_misses"])["points"][0]["sim"]
    assert (a["l1_read_hits"], a["l1_read_misses"]) == (90, 910)
    assert (n["l1_read_hits"], n["l1_read_misses"]) == (400, 600)


def _raw_export(tmp_path, cycles):
    p = tmp_path / "ncu.csv"
    p.write_text('"ID","Process Name","Kernel Name","gpc__cycles_elapsed.max"\n"","","","cycle"\n'
                 + "".join(f'"{i}","app","vecadd","{c}"\n' for i, c in enumerate(cycles)))
    return p


def test_launches_cut_by_max_cycles_are_left_out_and_launches_can_be_aligned(tmp_path):
    """A run cut short: two whole launches and a third stopped by --max-cycles, against four launches
    on silicon. The cut one never counts; --align launch compares the first two with the first two."""
    hw = _raw_export(tmp_path, [2000, 2200, 3000, 5000])
    cut = {**_kernel("vecadd", 500, 10, (0, 0, 0, 0), (0, 0, 0, 0), 0, 0), "truncated": True}
    sim = _sim_doc(tmp_path, [_kernel("vecadd", 1900, 10, (0, 0, 0, 0), (0, 0, 0, 0), 0, 0),
                              _kernel("vecadd", 2300, 10, (0, 0, 0, 0), (0, 0, 0, 0), 0, 0), cut])
    every = correlate([sim], hw, ["cycles"])
    (p,) = every["points"]
    assert (p["sim"]["cycles"], p["hw"]["cycles"], p["sim_launches"], p["hw_rows"]) == (2100, 3050, 2, 4)
    assert every["truncated_launches_left_out"] == 1 and every["alignment"] == "all"
    same = correlate([sim], hw, ["cycles"], align="launch")
    (p,) = same["points"]
    assert (p["sim"]["cycles"], p["hw"]["cycles"], p["sim_launches"], p["hw_rows"]) == (2100, 2100, 2, 2)
    assert same["statistics"]["cycles"]["mae_pct"] == 0
    only_cut = _sim_doc(tmp_path, [cut])
    doc = correlate([only_cut], hw, ["cycles"])
    assert not doc["points"] and "cut by --max-cycles" in doc["unmatched_sim_kernels"][0]
    result = CliRunner().invoke(app, ["correlate", str(sim), str(hw), "--counters", "cycles", "--align",
                                      "launch"])
    assert result.exit_code == 0, result.output
    assert "left out: 1 simulated launch" in result.output


def test_launch_alignment_needs_per_launch_rows(tmp_path):
    hw = tmp_path / "hw.csv"
    hw.write_text(ACCELSIM_HEADER + "bp,vecadd,1,1,1,1,0,0,1,1,1,1,1,1,0,0,0,5,1\n")
    sim = _sim_doc(tmp_path, [_kernel("vecadd", 5, 1, (0, 0, 0, 0), (0, 0, 0, 0), 0, 0)])
    with pytest.raises(InputError, match="per-launch hardware rows"):
        correlate([sim], hw, ["cycles"], align="launch")
    with pytest.raises(InputError, match="unknown alignment"):
        correlate([sim], hw, ["cycles"], align="median")
