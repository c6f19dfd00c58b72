"""`warpsim.api.model` and `warpsim model`: documents, errors, speed."""

import json
import time

import pytest
from typer.testing import CliRunner

from warpsim.api import model
from warpsim.cli import app
from warpsim.errors import InputError


def test_documents_follow_the_result_contract():
    model("rodinia/hotspot", "QV100")         # a fresh installation compiles the functional engine once
    t0 = time.perf_counter()
    docs = model("rodinia/hotspot", "QV100")
    assert time.perf_counter() - t0 < 5       # about a second; generous for a loaded machine
    assert set(docs) == {"roofline", "cpi", "mwp_cwp", "interval"}
    for name, doc in docs.items():
        assert doc["method"] == f"analytic:{name}" and doc["gpu"] == "QV100"
        assert doc["total"]["cycles"] == sum(k["cycles"] for k in doc["kernels"])
        for k in doc["kernels"]:
            assert k["provenance"] == "estimated" and k["cycles"] > 0 and k["limiter"]
            assert k["warp_instructions"] > 0


@pytest.mark.parametrize("kw, needle", [({"models": ("roofline", "nope")}, "nope"),
                                        ({"gpu": "NOSUCHGPU"}, "NOSUCHGPU"),
                                        ({"memory_model": "magic"}, "magic"),
                                        ({"max_ctas": 0}, "max_ctas")])
def test_bad_input_is_an_input_error_naming_it(kw, needle):
    with pytest.raises(InputError, match=needle):
        model("rodinia/hotspot", **kw)


def test_cli_table_and_json(tmp_path):
    out = tmp_path / "r.json"
    res = CliRunner().invoke(app, ["model", "examples/vecadd/kernelslist.g", "--models", "roofline",
                                   "--memory-model", "hierarchy", "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "roofline" in res.output and "total" in res.output
    doc = json.loads(out.read_text())
    assert doc["method"] == "analytic:roofline" and doc["memory_model"] == "hierarchy"
    assert [k["name"] for k in doc["kernels"]] == ["vector_add", "gather"]
