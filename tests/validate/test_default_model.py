"""The realistic memory model is the default; overrides it would ignore are refused; the first run
says that it is compiling the core."""

import pytest
from typer.testing import CliRunner

from warpsim.api import model, simulate
from warpsim.campaign import load_plan
from warpsim.cli import app
from warpsim.config import load_gpu
from warpsim.config.models import check_model_overrides
from warpsim.errors import InputError
from warpsim.timing import compile_notice

VECADD = "examples/vecadd/kernelslist.g"


@pytest.mark.parametrize("name", ["QV100", "A100", "H100", "RTX2060", "RTX3070"])
def test_every_bundled_gpu_defaults_to_the_hierarchy(name):
    assert load_gpu(name).memory_model == "hierarchy"


@pytest.mark.parametrize("model_name, key", [("fixed", "l2.sets=4"), ("fixed", "dram.tRCD=20"),
                                             ("fixed", "l1d.latency=30"), ("fixed", "icnt.latency=4"),
                                             ("hierarchy", "fixed_memory.global=50")])
def test_an_override_the_model_ignores_is_an_error(model_name, key):
    with pytest.raises(InputError, match=f"{key.split('=')[0]} has no effect with the {model_name} memory"):
        check_model_overrides(model_name, [key])


def test_a_field_this_description_leaves_unread_is_refused_as_an_override():
    """The share of the L1 kept for written lines means nothing to an L1 that never allocates on writes."""
    with pytest.raises(InputError, match="l1d.write_ratio_pct=50: has no effect: this GPU's L1 does not "
                                         "allocate lines on writes") as e:
        load_gpu("QV100", ["l1d.write_allocate=false", "l1d.write_ratio_pct=50"])
    assert "QV100" in str(e.value)
    cfg = load_gpu("QV100", ["l1d.write_allocate=true", "l1d.write_ratio_pct=50"])
    assert cfg.l1d.write_allocate and cfg.l1d.write_ratio_pct == 50


def test_overrides_the_model_reads_pass():
    check_model_overrides("fixed", ["fixed_memory.global=50", "sm.count=40", "shared.banks=16"])
    check_model_overrides("hierarchy", ["l2.sets=64", "shared.latency=30", "sm.count=40"])


def test_api_and_cli_refuse_before_simulating():
    with pytest.raises(InputError, match="l2.sets has no effect with the fixed memory model"):
        simulate(VECADD, "QV100", memory_model="fixed", overrides=["l2.sets=4"])
    with pytest.raises(InputError, match="l2.sets has no effect with the fixed memory model"):
        simulate(VECADD, "QV100", overrides=["memory_model=fixed", "l2.sets=4"])
    with pytest.raises(InputError, match="fixed_memory.global has no effect with the hierarchy"):
        model(VECADD, "QV100", overrides=["fixed_memory.global=5"])
    res = CliRunner().invoke(app, ["sim", VECADD, "--memory-model", "fixed", "--set", "l2.sets=4", "-q"])
    assert isinstance(res.exception, InputError) and "--memory-model hierarchy" in str(res.exception)


def test_campaign_plan_refuses_a_variant_the_model_ignores(tmp_path):
    p = tmp_path / "plan.toml"
    p.write_text('workloads = ["atax"]\ngpus = ["QV100"]\nmemory_models = ["fixed"]\n'
                 '[variants.l2x2]\nset = ["l2.sets=64"]\n')
    with pytest.raises(InputError, match="l2x2.*l2.sets has no effect with the fixed"):
        load_plan(p)
    p.write_text('workloads = ["atax"]\ngpus = ["QV100"]\n[variants.l2x2]\nset = ["l2.sets=64"]\n')
    assert {r.memory_model for r in load_plan(p).runs} == {"hierarchy"}


def test_compile_message_until_the_core_is_cached(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(compile_notice, "_jit_disabled", lambda: False)
    msg = compile_notice.compile_message("hierarchy", tmp_path)
    assert msg.startswith("compiling the timing core (hierarchy memory model), once per installation, about ")
    assert f"about {compile_notice.COMPILE_SECONDS['hierarchy']} s" in msg
    assert compile_notice.announce("hierarchy", tmp_path) is True
    assert "compiling the timing core" in capsys.readouterr().err
    compile_notice.mark_compiled("hierarchy", tmp_path)
    assert compile_notice.compile_message("hierarchy", tmp_path) is None
    assert compile_notice.compile_message("fixed", tmp_path) is not None      # one marker per model
    monkeypatch.setattr(compile_notice, "_jit_disabled", lambda: True)
    assert compile_notice.compile_message("fixed", tmp_path) is None          # nothing compiles


def test_a_run_marks_its_model_compiled(tmp_path, monkeypatch):
    monkeypatch.setattr(compile_notice, "_cache_dir", lambda: tmp_path)
    monkeypatch.setattr(compile_notice, "_jit_disabled", lambda: False)
    out = simulate(VECADD, "QV100", memory_model="fixed")
    assert out.document["memory_model"] == "fixed"
    assert (tmp_path / "warpsim-core-fixed.compiled").exists()
    assert not (tmp_path / "warpsim-core-hierarchy.compiled").exists()
