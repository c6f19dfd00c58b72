"""Census of real CUDA code: which modules warpsim can load, link and decode.

    PYTHONPATH=src python benchmarks/census/census.py DIR [DIR ...] -I DIR/Common --out census.json

Every .cu file under the given directories is compiled to PTX with nvcc (one -I for the file's own
directory plus the given -I directories; retried with -rdc=true when nvcc asks for relocatable code).
Files nvcc cannot compile (missing third-party headers, host-only APIs) are counted but left out of
the ratio. For each compiled module: parse it, then link and decode every kernel. A module passes
when it parses and all its kernels link and decode; the reasons for the others are tallied by
instruction or construct. Nothing from the sources is copied: only counts and reasons are written.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import warnings
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from warpsim.errors import InputError
from warpsim.frontend.cuda import compile_cu


def reason_of(msg: str) -> str:
    """A short category for an error message (the instruction or construct that failed)."""
    m = re.search(r"unsupported instruction '([^']+)'", msg)
    if m:
        parts = m.group(1).split(".")
        keep = 2 if parts[0] in ("cp", "mbarrier", "red", "atom") else 1
        return "unsupported " + ".".join(parts[:keep])
    m = re.search(r"unsupported instruction form \(([\w.:]+)", msg)
    if m:
        return "operand form " + m.group(1).split(".")[0]
    m = re.search(r"call to (\S+), which has no body", msg)
    if m:
        return f"external call {m.group(1).rstrip(',')}"
    for key, label in (("recursive call", "recursion"), ("indirect", "indirect call/branch"),
                       ("texref", "texture references"), ("cvta.param", "cvta.param"),
                       ("special register", "special register"), ("vector register", "vector registers"),
                       ("more than 32767 registers", "too many registers"), ("is not supported", None)):
        if key in msg:
            if label is None:
                frag = msg.split("): ", 1)[-1].split("\n")[0]
                return frag[:70]
            return label
    return msg.split("\n")[0].split(": ", 2)[-1][:70]


def compile_one(cu: Path, cache: Path, arch: str, includes: list[str], defines: list[str] = (),
                cached_only: bool = False) -> tuple[Path | None, str]:
    key = hashlib.sha1(f"{cu.resolve()}|{arch}|{includes}{'|' + str(defines) if defines else ''}".encode()
                       ).hexdigest()[:16]
    out = cache / f"{cu.stem}-{key}.ptx"
    err = cache / f"{cu.stem}-{key}.err"
    if out.exists():
        return out, ""
    if err.exists():
        return None, err.read_text()
    if cached_only:
        return None, "not compiled (cached-only run)"
    inc = (str(cu.parent), *includes)
    for rdc in (False, True):
        try:
            compile_cu(cu, out, arch=arch, include_dirs=inc, defines=tuple(defines), rdc=rdc, extra=("-w",))
            return out, ""
        except InputError as e:
            msg = str(e)
            if rdc or "rdc" not in msg and "relocatable" not in msg:
                err.write_text(msg)
                return None, msg
    return None, "unreachable"


def analyse(ptx: Path) -> dict:
    """Parse a module, then link and decode every kernel; returns status and per-kernel reasons."""
    from warpsim.host import Device, load_ptx
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            mod = load_ptx(ptx, device=Device(capacity=1 << 16))
        except InputError as e:
            return {"status": "parse error", "reasons": [reason_of(str(e))], "kernels": 0}
        except Exception as e:        # a crash is a bug in warpsim: report it as such
            return {"status": "crash", "reasons": [f"crash in parse: {type(e).__name__}: {e}"], "kernels": 0}
        bad = []
        for k in mod.kernels:
            try:
                mod.kernel(k)
            except InputError as e:
                bad.append(reason_of(str(e)))
            except Exception as e:
                bad.append(f"crash: {type(e).__name__}: {str(e)[:60]}")
    if not mod.kernels:
        return {"status": "no kernels", "reasons": [], "kernels": 0}
    return {"status": "ok" if not bad else "kernel errors", "reasons": sorted(set(bad)),
            "kernels": len(mod.kernels), "bad_kernels": len(bad)}


def _job(args) -> dict:
    cu, cache, arch, includes, defines, root, cached_only = args
    ptx, err = compile_one(Path(cu), Path(cache), arch, includes, defines, cached_only)
    rec = {"file": str(Path(cu).relative_to(root))}
    if ptx is None and err.startswith("not compiled"):
        rec.update(status="skipped", reasons=[])
        return rec
    if ptx is None:
        rec.update(status="compile failed", reasons=[err.split("\n")[1][:100] if "\n" in err else err[:100]])
        return rec
    rec.update(analyse(ptx))
    return rec


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("-I", dest="includes", action="append", default=[])
    ap.add_argument("-D", dest="defines", action="append", default=[],
                    help="macro for nvcc, e.g. cudaThreadSynchronize=cudaDeviceSynchronize for old code")
    ap.add_argument("--arch", default="sm_80")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/warpsim-census"))
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--cached-only", action="store_true",
                    help="analyse only files already compiled into --cache (re-run analysis after changes)")
    args = ap.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    jobs = []
    for d in args.dirs:
        for cu in sorted(d.rglob("*.cu")):
            jobs.append((str(cu), str(args.cache), args.arch, args.includes, args.defines, str(d.parent),
                         args.cached_only))
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as ex:
            recs = list(ex.map(_job, jobs))
    else:
        recs = [_job(j) for j in jobs]
    status = Counter(r["status"] for r in recs)
    compiled = [r for r in recs if r["status"] not in ("compile failed", "no kernels", "skipped")]
    ok = sum(r["status"] == "ok" for r in compiled)
    reasons = Counter(x for r in compiled if r["status"] != "ok" for x in r["reasons"])
    summary = {"files": len(recs), "status": dict(status), "compiled_with_kernels": len(compiled),
               "all_kernels_ok": ok, "ratio": round(ok / len(compiled), 4) if compiled else None,
               "reasons": dict(reasons.most_common())}
    print(json.dumps(summary, indent=1))
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "modules": recs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
