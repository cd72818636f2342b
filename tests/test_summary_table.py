"""The CLI's summary table fits an 80-column terminal: every row on one line, nothing cut."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

import gengap
from gengap._summary_table import summary_table
from gengap.tasks.scan import interpret, scan_dataset


def _misses_jump(batch):
    """Right on every SCAN command without 'jump', wrong on the rest: a large gap on one split, none on another."""
    return ["I_WALK" if "jump" in x.split() else interpret(x) for x in batch]


@pytest.fixture(scope="module")
def demo_sized(tmp_path_factory):
    """The demo's splits of all 20,910 SCAN commands, scored for real through evaluate and its store."""
    splits = [gengap.RandomSplit(test_fraction=0.2, seed=0), gengap.LengthSplit(by="target", test_fraction=0.2),
              gengap.HeldOutPrimitive(primitive="jump")]
    evaluation = gengap.evaluate(_misses_jump, scan_dataset(), splits, out=tmp_path_factory.mktemp("run"), progress=False)
    return evaluation.summary()


def _render(summary, width: int = 80) -> list[str]:
    console = Console(file=io.StringIO(), width=width, markup=False, highlight=False)
    console.print(summary_table(summary, title="SCAN demo: seq2seq-gru trained on each split's train part"))
    return console.file.getvalue().splitlines()


def test_the_demo_table_fits_80_columns_without_folding_a_row(demo_sized):
    assert set(demo_sized["split"]) == {"random", "length", "primitive:jump"}
    assert demo_sized["n"].min() > 1000 and demo_sized["gap_p_adjusted"].notna().any()  # the demo's widest columns
    lines = _render(demo_sized)
    assert max(map(len, lines)) <= 80
    top = next(i for i, line in enumerate(lines) if line.startswith("┡"))
    bottom = next(i for i, line in enumerate(lines) if line.startswith("└"))
    body = lines[top + 1:bottom]
    assert len(body) == len(demo_sized), "a row folded onto a second line"
    for line, row in zip(body, demo_sized.itertuples()):  # every figure of the row is on its one line, in full
        cells = [c.strip() for c in line.strip("│").split("│")]
        assert cells[0] == row.split and cells[1] == f"{row.n:,}"
        assert cells[2].startswith(f"{100 * row.score:.1f} [") and cells[2].endswith("]")
        if row.split == row.reference:
            assert cells[3] == "reference" and cells[4] == ""
        else:
            assert cells[3].startswith(f"{100 * row.gap:.1f} [") and cells[3].endswith("]")
            assert cells[4] == ("<0.001" if row.gap_p_adjusted < 0.001 else f"{row.gap_p_adjusted:.3f}")
    text = "\n".join(lines)
    for method in ("clopper-pearson", "newcombe", "fisher-exact", "holm"):  # the methods moved to the caption
        assert method in text
    assert "gap to random, pts" in text and "[95% CI]" in text


def test_the_table_needs_no_squeezing_at_80_columns(demo_sized):
    """Given all the room it wants, the table is still at most 80 wide: rich never narrows a column to fit."""
    wide, narrow = _render(demo_sized, width=200), _render(demo_sized, width=80)
    assert max(map(len, wide)) <= 80
    assert [line.rstrip() for line in wide if "│" in line] == [line.rstrip() for line in narrow if "│" in line]
