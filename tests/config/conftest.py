"""Helpers: write a mutated copy of a bundled GPU description and expect a precise error."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from warpsim.config import load_gpu, to_toml
from warpsim.config.loader import resolve
from warpsim.errors import InputError


def raw_of(name: str) -> dict:
    return tomllib.loads(resolve(name).read_text())


@pytest.fixture
def variant(tmp_path: Path) -> Callable[..., Path]:
    """variant(mutate, base="QV100", filename="bad.toml") -> path of the mutated description."""

    def make(mutate: Callable[[dict], None], base: str = "QV100", filename: str = "bad.toml") -> Path:
        raw = raw_of(base)
        mutate(raw)
        path = tmp_path / filename
        path.write_text(to_toml(raw))
        return path

    return make


@pytest.fixture
def expect_error(variant: Callable[..., Path]) -> Callable[..., InputError]:
    """expect_error(mutate, key, *fragments): load must fail naming 'bad.toml [key]'."""

    def check(mutate: Callable[[dict], None], key: str, *fragments: str, base: str = "QV100") -> InputError:
        path = variant(mutate, base=base)
        with pytest.raises(InputError) as info:
            load_gpu(str(path))
        msg = str(info.value)
        assert f"bad.toml [{key}]" in msg, msg
        assert info.value.key == key
        for frag in fragments:
            assert frag in msg, msg
        return info.value

    return check
