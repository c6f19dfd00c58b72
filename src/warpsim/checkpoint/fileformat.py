"""The checkpoint file: a zip holding `manifest.json` and one `.npy` per array (no pickle anywhere).

Reading checks, in order: the file is a readable zip; the manifest is JSON with `format` =
"warpsim-checkpoint" and a `format_version` this warpsim reads; the SHA-256 in the zip comment matches
every byte before the end record (CRC-32 per entry misses damage to headers and directory, e.g. a flipped
byte in a local header's flags or sizes); the entries pass their CRC-32; every array the manifest lists
is present and loads with `allow_pickle=False`. Anything else is an InputError naming the file and
what is wrong.
"""

from __future__ import annotations

import hashlib
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
# in other sets; 8: a SHA-256 of the file before its end record, in the zip comment, and the L1's
# write-allocation state (written-line flags and byte masks, a per-SM count of written lines) and the
# L2's fetch granularity (a parameter, a counter)
FORMAT_VERSION = 8
MANIFEST = "manifest.json"
_DIGEST_TAG = b"warpsim-sha256:"
_END_RECORD = 22  # bytes of the zip end-of-central-directory record; its last two, the comment's length
_CHUNK = 1 << 22


def _sha256_of_prefix(f, length: int) -> str:
    f.seek(0)
    h = hashlib.sha256()
    left = length
    while left > 0:
        block = f.read(min(_CHUNK, left))
        if not block:
            break
        h.update(block)
        left -= len(block)
    return h.hexdigest()


def _seal(path: Path) -> None:
    """Put the SHA-256 of every byte before the comment's length into the zip comment (written last)."""
    with open(path, "r+b") as f:
        size = f.seek(0, 2)
        f.seek(size - _END_RECORD)
        end = f.read(_END_RECORD)
        assert end[:4] == b"PK\x05\x06" and end[-2:] == b"\0\0", "zip written with a comment"
        comment = _DIGEST_TAG + _sha256_of_prefix(f, size - 2).encode()
        f.seek(size - 2)
        f.write(len(comment).to_bytes(2, "little") + comment)


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
        _seal(tmp)
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
        with open(path, "rb") as raw, zipfile.ZipFile(raw) as zf:
            sealed = zf.comment.startswith(_DIGEST_TAG)
            if sealed:  # first, so that damage anywhere reads as damage, not as some field's oddity
                _check_digest(raw, zf.comment, where)
            try:
                manifest = json.loads(zf.read(MANIFEST))
            except KeyError:
                raise InputError(f"not a warpsim checkpoint: no {MANIFEST}", path=where) from None
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                raise InputError(f"corrupt checkpoint: {MANIFEST} is not JSON ({e})", path=where) from None
            check_header(manifest, where)  # an unsealed file of an older version says so here
            if not sealed:
                raise InputError("corrupt checkpoint: its checksum (the zip comment) is missing", path=where)
            bad = zf.testzip()
            if bad is not None:
                raise InputError(f"corrupt checkpoint: entry {bad} fails its CRC check", path=where)
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
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as e:
        raise InputError(f"corrupt checkpoint (not a readable zip file: {e})", path=where) from None
    return manifest, arrays


def _check_digest(raw, comment: bytes, where: str) -> None:
    size = raw.seek(0, 2)
    raw.seek(size - 2 - len(comment))
    if raw.read() != len(comment).to_bytes(2, "little") + comment:  # zipfile forgives a wrong length
        raise InputError("corrupt checkpoint: its end record's comment length is wrong", path=where)
    expected = comment[len(_DIGEST_TAG):].decode("ascii", "replace")
    if _sha256_of_prefix(raw, size - 2 - len(comment)) != expected:
        raise InputError("corrupt checkpoint: its bytes do not match its SHA-256 (damaged or edited "
                         "after writing)", path=where)


def check_header(manifest, where: str) -> None:
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InputError(f"not a warpsim checkpoint (format is not {FORMAT!r})", path=where)
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise InputError(f"checkpoint format version {version!r}; this warpsim reads version "
                         f"{FORMAT_VERSION} only (write the checkpoint again with this warpsim)", path=where)
    if not isinstance(manifest.get("arrays"), list):
        raise InputError("corrupt checkpoint: the manifest lists no arrays", path=where)
