"""Hypothesis strategies for every input class a user hands warpsim, and the property they share.

The property: feeding an input either works or raises warpsim's own error that says where
(InputError with a file, line or key; or another WarpsimError with a message). Anything else --
a foreign exception, a hang, unbounded memory -- is a bug. `check(target, data)` applies it and
returns "ok" or "error"; it raises AssertionError on a foreign exception. The CI tests run a few
dozen examples per class; benchmarks/fuzz/run_fuzz.py runs thousands under time/memory caps.

Classes: trace (an Accel-Sim kernel trace), ptx (a PTX module, parsed and decoded), gpu (a GPU
description TOML), set (a --set override), profile (Nsight Compute CSV / Kineto JSON), plan (a
campaign plan).
"""

from __future__ import annotations

import json
import math
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path

from hypothesis import strategies as st

from warpsim.errors import InputError, WarpsimError

# ---- shared value strategies ------------------------------------------------------------------
HUGE = [0, -1, 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, 10**30]
weird_int = st.one_of(st.integers(-5, 300), st.sampled_from(HUGE))
weird_float = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1e-320, 1e308, 0.0]))
weird_text = st.one_of(st.text(max_size=12), st.sampled_from(["", " ", "\n", "0x", "+1f", "1_0", "nan",
                                                              "-0", "\x00", "é", "0x" + "f" * 20]))
scalar = st.one_of(weird_int, weird_float, weird_text, st.booleans())


def check(target: Callable[[object], object], data: object) -> str:
    """Run `target(data)`: "ok", or "error" for warpsim's own located error; else AssertionError."""
    try:
        target(data)
    except InputError as exc:
        assert exc.path is not None or exc.key is not None or exc.line is not None, f"no location: {exc}"
        assert "Error(" not in str(exc) and "Traceback" not in str(exc), f"raw repr: {exc}"
        return "error"
    except WarpsimError as exc:
        assert str(exc).strip(), "empty WarpsimError"
        return "error"
    except (MemoryError, RecursionError, TimeoutError):
        raise
    except Exception as exc:              # noqa: BLE001 - the property under test
        raise AssertionError(f"foreign {type(exc).__name__}: {exc}") from exc
    return "ok"


_DIR: list[Path] = []


def _tmp(name: str, text: str | bytes) -> Path:
    """Write an input to a file (one scratch directory per process, files overwritten)."""
    if not _DIR:
        _DIR.append(Path(tempfile.mkdtemp(prefix="warpsim-fuzz-")))
    p = _DIR[0] / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8", errors="surrogatepass")
    return p


# ---- traces -----------------------------------------------------------------------------------
HEADER_KEYS = ["kernel name", "kernel id", "grid dim", "block dim", "shmem", "nregs", "binary version",
               "cuda stream id", "shmem base_addr", "local mem base_addr", "accelsim tracer version",
               "enable lineinfo"]
GOOD_HEADER = {"kernel name": "_Z1kv", "kernel id": "1", "grid dim": "(2,1,1)", "block dim": "(64,1,1)",
               "shmem": "0", "nregs": "16", "binary version": "70", "cuda stream id": "0",
               "shmem base_addr": "0x00007f0675000000", "local mem base_addr": "0x00007f0677000000",
               "accelsim tracer version": "5", "enable lineinfo": "0"}
GOOD_LINES = ["0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0",
              "0010 0000000f 1 R4 LDG.E.64 1 R2 8 2 0x7f0000001000 8 8 -16 0",
              "0020 ffffffff 1 R6 LDS.U 1 R3 4 1 0x100 4 0",
              "0030 ffffffff 0 STG.E 2 R4 R6 4 0 " + " ".join(f"0x{0x2000 + 4 * i:016x}" for i in range(32)),
              "0040 ffffffff 0 BAR.SYNC 0 0 0",
              "0050 ffffffff 0 EXIT 0 0 0"]
token = st.one_of(st.sampled_from(["0", "1", "2", "R1", "R255", "RZ", "0x10", "ffffffff", "EXIT", "LDG.E",
                                   "+1f", "1_0", "-4", "4", "0x" + "f" * 17, "#END_TB", "warp"]), weird_text)


@st.composite
def trace_line(draw) -> str:
    line = draw(st.sampled_from(GOOD_LINES))
    toks = line.split()
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(["replace", "drop", "insert"]))
        k = draw(st.integers(0, len(toks) - 1)) if toks else 0
        if op == "replace" and toks:
            toks[k] = draw(token)
        elif op == "drop" and toks:
            del toks[k]
        else:
            toks.insert(k, draw(token))
    return " ".join(toks)


@st.composite
def trace_text(draw) -> str:
    header = dict(GOOD_HEADER)
    for key in draw(st.lists(st.sampled_from(HEADER_KEYS), max_size=3)):
        header[key] = draw(st.one_of(weird_text, st.sampled_from(["(2147483647,1,1)", "(0,1,1)", "(1,1)",
                                                                   "(3,1,1)", str(2**63), "-1"])))
    out = [f"-{k} = {v}" for k, v in header.items()] + ["", "#traces format = ...", ""]
    valid = draw(st.booleans())          # half the inputs: the whole grid, every warp, few mutations
    ctas = ["0,0,0", "1,0,0"] if valid else draw(st.lists(st.sampled_from(["0,0,0", "1,0,0", "5,0,0",
                                                                             "0,0,0", "x"]), max_size=3))
    for cta in ctas:
        out += ["#BEGIN_TB", f"thread block = {cta}"]
        for w in [0, 1] if valid else draw(st.lists(st.sampled_from([0, 1, 2, 1]), max_size=3)):
            lines = draw(st.lists(st.one_of(st.sampled_from(GOOD_LINES), trace_line()), max_size=4))
            n = draw(st.one_of(st.just(len(lines)), st.sampled_from([0, len(lines) + 1, 2**63, 10**6])))
            out += [f"warp = {w}", f"insts = {n}", *lines]
        out.append("#END_TB")
    return "\n".join(out) + "\n"


def run_trace(text: str) -> None:
    from warpsim.frontend.accelsim import TraceKernel

    kernel = TraceKernel(_tmp("kernel-1.traceg", text))
    for _ in kernel.iter_ctas():
        pass


# ---- PTX --------------------------------------------------------------------------------------
PTX_BODY = ["mov.u32 %r1, %tid.x;", "add.s32 %r2, %r1, 4;", "setp.lt.s32 %p1, %r1, 16;",
            "@%p1 bra $L1;", "mul.lo.s32 %r3, %r2, %r2;", "$L1:", "ld.param.u64 %rd1, [out];",
            "st.global.u32 [%rd1], %r3;", "shfl.sync.bfly.b32 %r4, %r3, 1, 31, -1;", "ret;"]
PTX_NOISE = st.sampled_from(["setp.xx.s32 %p1, %r1, %r2;", "shfl.sync.foo.b32 %r1, %r2, 1, 31, -1;",
                             ".reg .b32 %q<99999999999>;", ".shared .b8 big[99999999999];",
                             "mov.f32 %f1, 0fZZZZZZZZ;", "add.s32 %r1, %r2;", ".align x", "bra $nowhere;",
                             ".local .align 3 .b8 a[4];", "ld.global.u32 %r1, [%rd1+];", "tex.2d.v4.f32",
                             "cvt.rn.f32.s32 %f1, %r1;", "{", "}", "call foo;", "%r1;", ";;"])


@st.composite
def ptx_text(draw) -> str:
    head = [".version 8.5", ".target sm_80", ".address_size 64"]
    for i in draw(st.lists(st.integers(0, 2), max_size=2, unique=True)):
        head[i] = draw(st.sampled_from([".version", ".version x.y", ".target", ".address_size abc",
                                        ".address_size 32", ".version 99.0"]))
    body = list(PTX_BODY)
    for _ in range(draw(st.integers(0, 4))):
        k = draw(st.integers(0, len(body)))
        if draw(st.booleans()) and body:
            del body[min(k, len(body) - 1)]
        else:
            body.insert(k, draw(st.one_of(PTX_NOISE, weird_text)))
    decls = ["  .reg .b32 %r<8>;", "  .reg .b64 %rd<4>;", "  .reg .pred %p<4>;", "  .reg .f32 %f<4>;"]
    text = "\n".join(head) + "\n.visible .entry k(.param .u64 out)\n{\n" + "\n".join(decls) + "\n"
    return text + "\n".join("  " + b for b in body) + "\n}\n"


def run_ptx(text: str) -> None:
    from warpsim.frontend.ptx.memory import Device
    from warpsim.host import load_ptx

    mod = load_ptx(_tmp("k.ptx", text.encode("utf-8", "surrogatepass")), device=Device(capacity=1 << 16))
    for name in mod.kernels:
        mod.kernel(name)


# ---- GPU descriptions and --set -----------------------------------------------------------------
def _qv100() -> dict:
    from warpsim.config.loader import resolve

    return tomllib.loads(resolve("QV100").read_text())


_KEYS: list[tuple[str, str]] = [(s, k) for s, t in _qv100().items() if isinstance(t, dict) for k in t]


@st.composite
def gpu_doc(draw) -> dict:
    raw = _qv100()
    for section, key in draw(st.lists(st.sampled_from(_KEYS), min_size=1, max_size=4)):
        old = raw[section][key]
        if isinstance(old, list):
            new = draw(st.lists(weird_int, min_size=0, max_size=6))
        else:
            new = draw(scalar)
        raw[section][key] = new
    return raw


def run_gpu(raw: dict) -> None:
    from warpsim.config import load_gpu, to_toml

    try:
        text = to_toml(raw)
    except TypeError:
        return                          # not writable as TOML: nothing a user could hand us
    cfg = load_gpu(str(_tmp("gpu.toml", text)))
    _build_models(cfg)


def _build_models(cfg) -> None:
    """A description that loads must also build both memory models (bounded allocation)."""
    from warpsim.timing.gpu import Simulator

    for model in ("fixed", "hierarchy"):
        Simulator(cfg, memory_model=model)


set_text = st.one_of(
    st.builds(lambda k, v: f"{k[0]}.{k[1]}={v}", st.sampled_from(_KEYS),
              st.one_of(st.sampled_from(["64", "0", "-1", str(2**63), "1e309", "nan", "[1,2]", "[]", "\"x\"",
                                         "true", "64\nl2.assoc=4", "lrr", "[9223372036854775807, 1]",
                                         "1e-320", "{a=1}"]), weird_text)),
    weird_text, st.sampled_from(["=", "a=", "=b", "l2.=4", ".sets=4", "sm..count=3", "memory_model=fast"]))


def run_set(text: str) -> None:
    from warpsim.config import load_gpu

    _build_models(load_gpu("QV100", [text]))


# ---- profiles ---------------------------------------------------------------------------------
cell = st.one_of(st.sampled_from(["5", "0", "-250", "inf", "1e309", "nan", "", "n/a", "1,000", str(2**70),
                                  "(1, 1, 1)", "(0, 1, 1)", "(2147483648, 1, 1)", "x"]), weird_text)


@st.composite
def ncu_csv(draw) -> str:
    rows = ['"ID","Kernel Name","Grid Size","Block Size","gpc__cycles_elapsed.max"', '"","","","","cycle"']
    for i in range(draw(st.integers(0, 4))):
        vals = [str(i), "k", "(1, 1, 1)", "(32, 1, 1)", "100"]
        for _ in range(draw(st.integers(0, 2))):
            vals[draw(st.integers(0, 4))] = draw(cell)
        rows.append(",".join(json.dumps(v) for v in vals))
    return "\n".join(rows) + "\n"


json_value = st.recursive(st.one_of(st.none(), st.booleans(), weird_int, weird_float, weird_text),
                          lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                  st.dictionaries(weird_text, inner, max_size=3)),
                          max_leaves=10)


@st.composite
def kineto_json(draw) -> str:
    events = []
    for _ in range(draw(st.integers(0, 4))):
        ev = {"cat": "kernel", "name": "k", "dur": 5.0, "ts": 0, "args": {"grid": [2, 1, 1]}}
        for _ in range(draw(st.integers(0, 2))):
            key = draw(st.sampled_from(["dur", "name", "args", "cat", "ts"]))
            ev[key] = draw(json_value)
        if draw(st.booleans()):
            ev["args"] = {draw(st.sampled_from(["grid", "block", "registers per thread", "stream"])):
                          draw(json_value)}
        events.append(ev)
    text = json.dumps({"traceEvents": events}, allow_nan=True)
    if draw(st.booleans()):
        depth = draw(st.sampled_from([10, 70, 1000, 5000]))
        text = '{"traceEvents": [' + "[" * depth + "]" * depth + "]}"
    return text


def run_profile(item: tuple[str, str]) -> None:
    from warpsim.sampling.readers import read_profile

    name, text = item
    table = read_profile(_tmp(name, text))
    t = table.time()
    assert all(math.isfinite(v) and v >= 0 for v in t.tolist()), f"bad time column {t}"


profile_input = st.one_of(st.tuples(st.just("p.csv"), ncu_csv()), st.tuples(st.just("p.json"), kineto_json()))


# ---- campaign plans ---------------------------------------------------------------------------
PLAN_VALUES = st.one_of(scalar, st.lists(st.one_of(weird_text, weird_int), max_size=3),
                        st.dictionaries(weird_text, scalar, max_size=2))


@st.composite
def plan_doc(draw) -> dict:
    raw: dict = {"workloads": ["polybench/gesummv"], "gpus": ["QV100"]}
    keys = ["name", "workloads", "gpus", "methods", "sizes", "memory_models", "overrides", "variants",
            "seed", "max_cycles", "timeout_s", "bogus"]
    for key in draw(st.lists(st.sampled_from(keys), max_size=3)):
        raw[key] = draw(PLAN_VALUES)
    return raw


def run_plan(raw: dict) -> None:
    from warpsim.campaign.plan import parse_plan

    parse_plan(raw, "fuzz.toml")


CLASSES: dict[str, tuple[st.SearchStrategy, Callable[[object], object]]] = {
    "trace": (trace_text(), run_trace),
    "ptx": (ptx_text(), run_ptx),
    "gpu": (gpu_doc(), run_gpu),
    "set": (set_text, run_set),
    "profile": (profile_input, run_profile),
    "plan": (plan_doc(), run_plan),
}
