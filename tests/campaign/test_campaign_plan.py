"""Plan parsing: products, defaults, stable ids, and an InputError naming file and key for each mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from warpsim.campaign.plan import load_plan
from warpsim.errors import InputError

H = 'workloads = ["atax"]\ngpus = ["QV100"]\n'
VECADD = Path(__file__).resolve().parents[2] / "examples" / "vecadd"


def write(tmp_path: Path, text: str, name: str = "plan.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_product_order_and_defaults(tmp_path):
    p = write(
        tmp_path,
        """
name = "study"
workloads = ["polybench/atax", "gesummv"]
gpus = ["QV100", "a100"]
methods = ["full", "pkp"]
[variants.l2x2]
set = ["l2.sets=64"]
label = "L2 x2"
""",
    )
    plan = load_plan(p)
    assert plan.name == "study"
    assert len(plan.runs) == 2 * 2 * 2 * 2  # workloads x gpus x (baseline + l2x2) x methods
    first = plan.runs[0]
    assert (first.workload, first.gpu, first.variant, first.method) == (
        "polybench/atax",
        "QV100",
        "baseline",
        "full",
    )
    assert plan.runs[1].method == "pkp"
    assert plan.runs[2].variant == "l2x2" and plan.runs[2].overrides == ("l2.sets=64",)
    assert plan.runs[2].variant_label == "L2 x2"
    assert {r.gpu for r in plan.runs} == {"QV100", "A100"}
    assert {r.workload for r in plan.runs} == {"polybench/atax", "polybench/gesummv"}
    assert all(r.size == "tiny" and r.memory_model == "hierarchy" for r in plan.runs)


def test_ids_stable_and_unique(tmp_path):
    text = 'workloads = ["polybench/atax"]\ngpus = ["QV100"]\nsizes = ["tiny", "small"]\nmax_cycles = 1000\n'
    a = load_plan(write(tmp_path, text))
    b = load_plan(write(tmp_path, text, "again.toml"))
    assert [r.id for r in a.runs] == [r.id for r in b.runs]
    assert len({r.id for r in a.runs}) == len(a.runs) == 2
    assert a.name == "plan" and b.name == "again"
    c = load_plan(write(tmp_path, text.replace("1000", "2000"), "other.toml"))
    assert {r.id for r in c.runs}.isdisjoint(r.id for r in a.runs)
    # the timeout does not change a run's result, so not its id either
    d = load_plan(write(tmp_path, text + "timeout_s = 5\n", "t.toml"))
    assert [r.id for r in d.runs] == [r.id for r in a.runs]


def test_glob_trace_common_overrides_and_variant_table(tmp_path):
    (tmp_path / "traces").symlink_to(VECADD)
    p = write(
        tmp_path,
        """
workloads = ["polybench/2*", "traces/kernelslist.g", "traces"]
gpus = ["QV100"]
overrides = ["sm.scheduler=lrr"]
baseline = false
[variants.small_l2]
set = "l2.sets=16"
""",
    )
    plan = load_plan(p)
    names = [r.workload for r in plan.runs]
    assert names[:2] == ["polybench/2dconv", "polybench/2mm"]
    traces = [r for r in plan.runs if r.kind == "trace"]
    assert len(traces) == 1  # the directory and its kernelslist.g are the same run
    assert traces[0].size is None and Path(traces[0].target).is_absolute()
    assert all(r.overrides == ("sm.scheduler=lrr", "l2.sets=16") for r in plan.runs)
    assert all(r.variant == "small_l2" for r in plan.runs)


@pytest.mark.parametrize(
    ("body", "key", "words"),
    [
        ('workloads = ["polybench/atax"]\ngpus = ["QV100"]\nworkload = 1\n', "workload", "unknown key"),
        ('gpus = ["QV100"]\n', "workloads", "missing"),
        ('workloads = []\ngpus = ["QV100"]\n', "workloads", "empty"),
        ('workloads = ["polybench/nope"]\ngpus = ["QV100"]\n', "workloads", "no bundled workload"),
        ('workloads = ["nothing/*"]\ngpus = ["QV100"]\n', "workloads", "matches no"),
        ('workloads = ["missing/kernelslist.g"]\ngpus = ["QV100"]\n', "workloads", "no such trace"),
        ('workloads = ["atax"]\ngpus = ["GTX9999"]\n', "gpus", "unknown GPU"),
        ('workloads = ["atax"]\ngpus = "QV100"\nsizes = ["huge"]\n', "sizes", "unknown size"),
        (H + 'memory_models = ["magic"]\n', "memory_models", "unknown memory"),
        (H + 'methods = ["pk a"]\n', "methods", "unknown method"),
        (H + 'overrides = ["l2.bogus=1"]\n', "overrides", "unknown key"),
        (H + 'overrides = ["nokey"]\n', "overrides", "section.key=value"),
        (H + '[variants.x]\nset = ["zz.a=1"]\n', "variants.x.set", "section"),
        (H + '[variants.x]\nsets = ["l2.sets=1"]\n', "variants.x.sets", "unknown"),
        (H + "variants = 3\n", "variants", "table"),
        (H + "baseline = false\n", "variants", "no variants"),
        (H + "max_cycles = 0\n", "max_cycles", "integer"),
        (H + "max_cycles = 1.5\n", "max_cycles", "integer"),
        (H + 'timeout_s = "1h"\n', "timeout_s", "number"),
        (H + "seed = -1\n", "seed", "integer"),
        (H + 'name = ""\n', "name", "non-empty"),
        ('workloads = [1]\ngpus = ["QV100"]\n', "workloads", "list of non-empty strings"),
    ],
)
def test_errors_name_file_and_key(tmp_path, body, key, words):
    p = write(tmp_path, body)
    with pytest.raises(InputError) as err:
        load_plan(p)
    assert err.value.path == str(p)
    assert err.value.key == key
    assert words in err.value.message
    assert str(p) in str(err.value) and f"[{key}]" in str(err.value)


def test_overrides_as_variant_table(tmp_path):
    p = write(tmp_path, 'workloads = ["atax"]\ngpus = ["QV100"]\n[overrides.l2x2]\nset = ["l2.sets=64"]\n')
    plan = load_plan(p)
    assert [(r.variant, r.overrides) for r in plan.runs] == [("baseline", ()), ("l2x2", ("l2.sets=64",))]
    both = write(
        tmp_path,
        'workloads = ["atax"]\ngpus = ["QV100"]\n[overrides.a]\nset = []\n[variants.b]\nset = []\n',
        "both.toml",
    )
    with pytest.raises(InputError, match="not both") as err:
        load_plan(both)
    assert err.value.key == "overrides"


def test_toml_syntax_error_names_line(tmp_path):
    p = write(tmp_path, 'workloads = ["atax"\ngpus = ["QV100"]\n')
    with pytest.raises(InputError) as err:
        load_plan(p)
    assert err.value.path == str(p) and err.value.line is not None and "invalid TOML" in str(err.value)


def test_missing_plan_file(tmp_path):
    with pytest.raises(InputError, match="cannot read campaign plan"):
        load_plan(tmp_path / "none.toml")


def test_example_plan_parses():
    plan = load_plan(Path(__file__).resolve().parents[2] / "examples" / "campaigns" / "l2_study.toml")
    assert len(plan.runs) >= 4
    assert {r.variant for r in plan.runs} >= {"baseline"} and len({r.variant for r in plan.runs}) >= 2
