"""The checkpoint file: a zip holding `manifest.json` and one `.npy` per array (no pickle anywhere).

Reading checks, in order: the file is a readable zip whose entries pass their CRC-32; the manifest
is JSON with `format` = "warpsim-checkpoint" and a `format_version` this warpsim reads; every array
the manifest lists is present and loads with `allow_pickle=False`. Anything else is an InputError
naming the file and what is wrong.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from pathlib import Path

import numpy as np

from warpsim.errors import InputError

FORMAT = "warpsim-checkpoint"
# 2: thread-block table with affine address rows (timing/arena.py); 3: a seventh stall reason ("wait");
# 4: the work distributor's next dispatch time in the globals (sm.cta_dispatch_cycles); 5: L2 near
# copies are lines of their own (LF_NEAR marks a copy, where it was a bitmask on the home line);
# 6: the SMs' instruction caches (schedulers' itag/iready/iuse/iseen/istat, warps' W_ILINE/W_IREADY);
# 7: their sets and L2-presence slots are spread by kernel (icache._spread), so version-6 entries sit
# in other sets
FORMAT_VERSION = 7
MANIFEST = "manifest.json"


def write_checkpoint(path: str | Path, manifest: dict, arrays: dict[str, np.ndarray]) -> Path:
    """Write atomically (a temporary file renamed into place): a half-written checkpoint never
    replaces a good one."""
    path = Path(path)
    doc = dict(manifest, format=FORMAT, format_version=FORMAT_VERSION, arrays=sorted(arrays))
    tmp = path.with_name(path.name + ".part")
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
            zf.writestr(MANIFEST, json.dumps(doc, indent=1, sort_keys=True))
            for name, arr in arrays.items():
                buf = io.BytesIO()
                np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
                zf.writestr(f"{name}.npy", buf.getvalue())
        tmp.replace(path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write checkpoint: {e.strerror or e}", path=str(path)) from None
    return path


def read_checkpoint(path: str | Path) -> tuple[dict, dict[str, np.ndarray]]:
    """The manifest and the arrays of a checkpoint file, validated as the module docstring says."""
    path = Path(path)
    where = str(path)
    if not path.is_file():
        raise InputError("checkpoint file not found", path=where)
    try:
        with zipfile.ZipFile(path) as zf:
            bad = zf.testzip()
            if bad is not None:
                raise InputError(f"corrupt checkpoint: entry {bad} fails its CRC check", path=where)
            try:
                manifest = json.loads(zf.read(MANIFEST))
            except KeyError:
                raise InputError(f"not a warpsim checkpoint: no {MANIFEST}", path=where) from None
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                raise InputError(f"corrupt checkpoint: {MANIFEST} is not JSON ({e})", path=where) from None
            check_header(manifest, where)
            arrays: dict[str, np.ndarray] = {}
            for name in manifest["arrays"]:
                try:
                    with zf.open(f"{name}.npy") as f:
                        arrays[name] = np.lib.format.read_array(io.BytesIO(f.read()), allow_pickle=False)
                except KeyError:
                    raise InputError(f"corrupt checkpoint: array {name!r} is missing", path=where) from None
                except ValueError as e:
                    raise InputError(f"corrupt checkpoint: array {name!r} does not load ({e})",
                                     path=where) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as e:
        raise InputError(f"corrupt checkpoint (not a readable zip file: {e})", path=where) from None
    return manifest, arrays


def check_header(manifest, where: str) -> None:
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InputError(f"not a warpsim checkpoint (format is not {FORMAT!r})", path=where)
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise InputError(f"checkpoint format version {version!r}; this warpsim reads version "
                         f"{FORMAT_VERSION} only (write the checkpoint again with this warpsim)", path=where)
    if not isinstance(manifest.get("arrays"), list):
        raise InputError("corrupt checkpoint: the manifest lists no arrays", path=where)
