"""The shipped JSON Schema is the one the models generate, and real documents satisfy it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from warpsim.api import simulate
from warpsim.schema import SCHEMA_PATH, json_schema, validate

VECADD = Path(__file__).resolve().parents[2] / "examples" / "vecadd"


def test_shipped_schema_is_current():
    assert json.loads(SCHEMA_PATH.read_text()) == json_schema()


def test_full_and_sampled_documents_validate():
    full = simulate(VECADD, "QV100").document
    validate(json.loads(json.dumps(full)))
    sampled = simulate(VECADD, "QV100", sample="pkp").document
    model = validate(json.loads(json.dumps(sampled)))
    assert model.method == "pkp"
    broken = json.loads(json.dumps(full))
    broken["kernels"][0]["provenance"] = "guessed"
    del broken["total"]["cycles"]
    with pytest.raises(ValidationError) as info:
        validate(broken)
    text = str(info.value)
    assert "kernels.0.provenance" in text and "total.cycles" in text
