"""The parser's scanning helpers: comments blanked in place, brackets matched, operands split."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from warpsim.errors import InputError
from warpsim.frontend.ptx.parser import _blank_comments, _Scanner, split_top


def test_comments_become_spaces_and_strings_stay():
    src = 'add.s32 %r1, %r2, 1; // one\n/* two\nlines */ mov.u32 %r3, 0; .file 1 "a//b/*c"\n'
    out = _blank_comments(src)
    assert out == ('add.s32 %r1, %r2, 1;       \n      \n         mov.u32 %r3, 0; .file 1 "a//b/*c"\n')


def test_unterminated_comment_and_string_run_to_the_end():
    assert _blank_comments("a /* b\nc") == "a     \n "
    assert _blank_comments('a "b // c') == 'a "b // c'


@given(st.text(alphabet='ab/*"\n x', max_size=40))
def test_blanking_keeps_length_and_line_breaks(s):
    out = _blank_comments(s)
    assert len(out) == len(s)
    assert [i for i, c in enumerate(out) if c == "\n"] == [i for i, c in enumerate(s) if c == "\n"]
    assert all(o == c or o == " " for o, c in zip(out, s, strict=True))
    if "/" not in s:
        assert out == s


def test_balanced_finds_the_matching_brace():
    sc = _Scanner("{ a { b } { c } } tail", None)
    assert sc.balanced("{", "}") == " a { b } { c } "
    assert sc.t[sc.i:] == " tail"
    sc = _Scanner("(x, (y)) z", None)
    assert sc.balanced("(", ")") == "x, (y)"
    with pytest.raises(InputError, match="unbalanced"):
        _Scanner("{ a { b }", None).balanced("{", "}")


@pytest.mark.parametrize("s,parts", [
    ("", []),
    ("   ", []),
    ("%r1, %r2 ,3", ["%r1", "%r2", "3"]),
    ("a,", ["a", ""]),
    ("{%r1, %r2}, [%rd1+4], %f1", ["{%r1, %r2}", "[%rd1+4]", "%f1"]),
    ("f(a, b), (c, [d, e])", ["f(a, b)", "(c, [d, e])"]),
])
def test_split_top_splits_outside_brackets(s, parts):
    assert split_top(s) == parts
