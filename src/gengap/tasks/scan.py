"""SCAN: navigation commands and their action sequences (Lake & Baroni 2018), generated exactly.

The phrase-structure grammar of the paper generates every command; an interpreter maps each
command to its action sequence. :func:`scan_dataset` returns all 20,910 of them with metadata
columns splitters use; :func:`read_scan_file` and :func:`official_split` read the official
release (``IN: ... OUT: ...`` lines) so results on gengap's own splits can be set beside the
official ones.

Grammar (``x`` is a primitive, ``d`` a direction)::

    C -> S and S | S after S | S
    S -> V twice | V thrice | V
    V -> x | x d | turn d | x opposite d | turn opposite d | x around d | turn around d
    x -> walk | look | run | jump          d -> left | right

Meaning: ``x`` is ``I_X``; ``x d`` turns first (``I_TURN_LEFT I_WALK``); ``opposite`` turns
twice, then acts; ``around`` turns-and-acts four times; ``twice``/``thrice`` repeat; ``a and b``
is a then b; ``a after b`` is b then a.

>>> interpret("jump around left twice after walk")
'I_WALK I_TURN_LEFT I_JUMP I_TURN_LEFT I_JUMP I_TURN_LEFT I_JUMP I_TURN_LEFT I_JUMP I_TURN_LEFT I_JUMP I_TURN_LEFT I_JUMP I_TURN_LEFT I_JUMP I_TURN_LEFT I_JUMP'
>>> ds = scan_dataset()
>>> len(ds), ds.ids[0], ds.inputs[0], ds.targets[0]
(20910, 'scan-00000', 'walk', 'I_WALK')
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError, did_you_mean
from gengap.dataset import Dataset
from gengap.splits._base import Split, SplitDetails, Splitter, TaxonomyCard

__all__ = [
    "PRIMITIVES",
    "DIRECTIONS",
    "OFFICIAL_SPLITS",
    "PUBLISHED",
    "interpret",
    "scan_commands",
    "scan_dataset",
    "read_scan_file",
    "official_split",
]

#: Exact-match accuracy Lake & Baroni (2018) report for their best models on the random, length and
#: add-jump splits, under the names of gengap's splits (the demo's printout and the report compare with them).
PUBLISHED = {"random": 0.998, "length": 0.138, "primitive:jump": 0.012}
#: The four action primitives of SCAN (``turn`` is not a primitive on its own).
PRIMITIVES = ("walk", "look", "run", "jump")
#: The two directions.
DIRECTIONS = ("left", "right")
#: The splits of the official release this module knows a taxonomy card for.
OFFICIAL_SPLITS = ("simple", "length", "addprim_jump", "addprim_turn_left", "template_around_right")

_ACTION = {x: f"I_{x.upper()}" for x in PRIMITIVES}
_TURN = {d: f"I_TURN_{d.upper()}" for d in DIRECTIONS}
_REPEAT = {"twice": 2, "thrice": 3}
_LINE = re.compile(r"^IN:\s*(?P<input>.*?)\s+OUT:\s*(?P<target>.*?)\s*$")


# ---------------------------------------------------------------------------- the grammar
def _verb_phrases() -> list[str]:
    """Every V of the grammar (34), in a fixed order."""
    out = list(PRIMITIVES)
    for d in DIRECTIONS:
        out += [f"{x} {d}" for x in (*PRIMITIVES, "turn")]
    for mod in ("opposite", "around"):
        for d in DIRECTIONS:
            out += [f"{x} {mod} {d}" for x in (*PRIMITIVES, "turn")]
    return out


def _sentences() -> list[str]:
    """Every S (102): a verb phrase alone, twice or thrice."""
    verbs = _verb_phrases()
    return verbs + [f"{v} {r}" for r in _REPEAT for v in verbs]


def _interpret_verb(tokens: list[str], command: str) -> list[str]:
    def bad(why: str) -> DataError:
        return DataError(f"'{command}' is not a SCAN command: {why}. See the grammar in gengap.tasks.scan.")

    if len(tokens) == 1:
        if tokens[0] not in _ACTION:
            raise bad(f"'{tokens[0]}' is not a primitive (expected one of {list(PRIMITIVES)})")
        return [_ACTION[tokens[0]]]
    head, direction = tokens[0], tokens[-1]
    if head not in _ACTION and head != "turn":
        raise bad(f"'{head}' is not a primitive or 'turn'")
    if direction not in _TURN:
        raise bad(f"'{direction}' is not a direction (left or right)")
    act = [] if head == "turn" else [_ACTION[head]]
    turn = _TURN[direction]
    if len(tokens) == 2:
        return [turn, *act]
    if len(tokens) == 3 and tokens[1] == "opposite":
        return [turn, turn, *act]
    if len(tokens) == 3 and tokens[1] == "around":
        return [turn, *act] * 4
    raise bad(f"cannot read the phrase '{' '.join(tokens)}'")


def _interpret_sentence(tokens: list[str], command: str) -> list[str]:
    if not tokens:
        raise DataError(f"'{command}' is not a SCAN command: a conjunction needs a phrase on both sides.")
    times = _REPEAT.get(tokens[-1], 0)
    if times:
        return _interpret_verb(tokens[:-1], command) * times
    return _interpret_verb(tokens, command)


def interpret(command: str) -> str:
    """The action sequence of a SCAN command, as space-separated actions.

    Raises :class:`~gengap.DataError` naming what is wrong when ``command`` is not in the grammar.

    >>> interpret("turn opposite right thrice and look")
    'I_TURN_RIGHT I_TURN_RIGHT I_TURN_RIGHT I_TURN_RIGHT I_TURN_RIGHT I_TURN_RIGHT I_LOOK'
    """
    tokens = command.split()
    conj = [i for i, t in enumerate(tokens) if t in ("and", "after")]
    if len(conj) > 1:
        raise DataError(f"'{command}' is not a SCAN command: at most one 'and' or 'after' is allowed.")
    if not conj:
        return " ".join(_interpret_sentence(tokens, command))
    i = conj[0]
    first = _interpret_sentence(tokens[:i], command)
    second = _interpret_sentence(tokens[i + 1:], command)
    return " ".join(first + second if tokens[i] == "and" else second + first)


@lru_cache(maxsize=1)
def scan_commands() -> tuple[tuple[str, str], ...]:
    """All 20,910 ``(command, actions)`` pairs in generation order: S, then ``S and S``, then ``S after S``.

    >>> scan_commands()[102]
    ('walk and walk', 'I_WALK I_WALK')
    """
    sentences = _sentences()
    commands = list(sentences)
    for conj in ("and", "after"):
        commands += [f"{a} {conj} {b}" for a in sentences for b in sentences]
    return tuple((c, interpret(c)) for c in commands)


@lru_cache(maxsize=1)
def _scan_ids() -> dict[str, str]:
    return {c: _make_id(i) for i, (c, _) in enumerate(scan_commands())}


def _make_id(i: int) -> str:
    return f"scan-{i:05d}"


# ---------------------------------------------------------------------------- metadata
def _describe(commands: list[str], actions: list[str]) -> dict[str, list[Any]]:
    """Metadata columns from the words of each command (no parsing, so any text works)."""
    cols: dict[str, list[Any]] = {k: [] for k in (
        "n_words", "n_actions", "conjunction", "primitives", "has_jump", "has_turn_left", "has_around_right")}
    for command, acts in zip(commands, actions):
        tokens = command.split()
        cols["n_words"].append(len(tokens))
        cols["n_actions"].append(len(acts.split()))
        cols["conjunction"].append("and" if "and" in tokens else "after" if "after" in tokens else "none")
        cols["primitives"].append(" ".join(sorted({t for t in tokens if t in _ACTION or t == "turn"})))
        cols["has_jump"].append("jump" in tokens)
        padded = f" {command} "
        cols["has_turn_left"].append(" turn left " in padded)
        cols["has_around_right"].append(" around right " in padded)
    return cols


def _frame(ids: list[str], commands: list[str], actions: list[str], extra: dict[str, list[Any]] | None = None) -> pd.DataFrame:
    frame = pd.DataFrame({"id": ids, "input": commands, "target": actions, **_describe(commands, actions)})
    for key, values in (extra or {}).items():
        frame[key] = values
    return frame


def scan_dataset() -> Dataset:
    """All 20,910 SCAN commands as a Dataset, ids ``scan-00000`` ... in generation order.

    Metadata columns:

    ========================  ===========================================================
    ``n_words``               words in the command
    ``n_actions``             actions in the target (what SCAN's length split uses)
    ``conjunction``           ``and``, ``after`` or ``none``
    ``primitives``            the verbs used, sorted and space-separated (``"jump turn"``)
    ``has_jump``              the command contains ``jump`` (add-primitive jump split)
    ``has_turn_left``         it contains ``turn left`` (add-primitive turn-left split)
    ``has_around_right``      it contains ``around right`` (template around-right split)
    ========================  ===========================================================

    >>> ds = scan_dataset()
    >>> int(ds.column("has_jump").sum()), int(ds.column("n_actions").max())
    (7707, 48)
    """
    pairs = scan_commands()
    commands = [c for c, _ in pairs]
    actions = [a for _, a in pairs]
    frame = _frame([_make_id(i) for i in range(len(pairs))], commands, actions)
    return Dataset(frame, name="scan", source="gengap.tasks.scan")


# ---------------------------------------------------------------------------- official files
def _read_lines(path: Path) -> list[tuple[int, str, str]]:
    if not path.is_file():
        raise DataError(f"SCAN file '{path}' does not exist. Point to a file of the official release (IN: ... OUT: ... lines).")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        line = path.read_bytes()[: e.start].count(b"\n") + 1
        raise DataError(f"SCAN file '{path}', line {line}: bytes that are not UTF-8 ({e.reason}). Re-save the file as UTF-8.") from None
    rows = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        m = _LINE.match(line)
        if m is None or not m["input"] or not m["target"]:
            shown = line if len(line) <= 80 else line[:77] + "..."
            raise DataError(
                f"SCAN file '{path}', line {lineno}: expected 'IN: <command> OUT: <actions>', got '{shown}'."
            )
        rows.append((lineno, " ".join(m["input"].split()), " ".join(m["target"].split())))
    if not rows:
        raise DataError(f"SCAN file '{path}' has no examples (no 'IN: ... OUT: ...' lines).")
    return rows


def read_scan_file(path: str | Path, *, duplicates: Literal["merge", "keep"] = "merge", name: str | None = None) -> Dataset:
    """Read a file of the official SCAN release (``IN: <command> OUT: <actions>`` per line).

    A command of the grammar gets the id :func:`scan_dataset` gives it, so rows join with
    gengap's own splits; any other command gets ``<file stem>:<line>``. The official
    add-primitive train files repeat the primitive's line (``jump`` 1,467 times): with
    ``duplicates="merge"`` (default) a repeated command is kept once and the ``n_copies`` column
    says how many lines it had; with ``"keep"`` every line is a row, repeats get ids suffixed
    ``#2``, ``#3``, ... (what a learner trained on the file as released sees).

    The same metadata columns as :func:`scan_dataset`, plus ``n_copies`` and ``line``.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
    >>> _ = p.write_text("IN: jump OUT: I_JUMP\\nIN: jump OUT: I_JUMP\\nIN: walk left OUT: I_TURN_LEFT I_WALK\\n")
    >>> ds = read_scan_file(p)
    >>> ds.ids, ds.column("n_copies").tolist()
    (['scan-00003', 'scan-00004'], [2, 1])
    >>> read_scan_file(p, duplicates="keep").ids
    ['scan-00003', 'scan-00003#2', 'scan-00004']
    """
    if duplicates not in ("merge", "keep"):
        raise ConfigError(f"duplicates={duplicates!r} must be 'merge' (one row per command) or 'keep' (one row per line).")
    path = Path(path)
    rows = _read_lines(path)
    known = _scan_ids()
    first_target: dict[str, tuple[int, str]] = {}
    for lineno, command, actions in rows:
        seen = first_target.setdefault(command, (lineno, actions))
        if seen[1] != actions:
            raise DataError(
                f"SCAN file '{path}': the command '{command}' has different actions on line {seen[0]} and line {lineno}. "
                "Fix the file so each command has one action sequence."
            )
    copies = Counter(command for _, command, _ in rows)
    if duplicates == "merge":
        taken, seen_commands = [], set()
        for row in rows:
            if row[1] not in seen_commands:
                seen_commands.add(row[1])
                taken.append(row)
        rows = taken
    ids, occurrence = [], Counter()
    for lineno, command, _ in rows:
        occurrence[command] += 1
        base = known.get(command, f"{path.stem}:{lineno}")
        ids.append(base if occurrence[command] == 1 else f"{base}#{occurrence[command]}")
    frame = _frame(ids, [r[1] for r in rows], [r[2] for r in rows],
                   {"n_copies": [copies[r[1]] for r in rows], "line": [r[0] for r in rows]})
    return Dataset(frame, name=name or path.stem, source=str(path))


_CARDS = {
    "simple": TaxonomyCard(
        motivation="practical", generalisation_type="none", shift_type="none", shift_source="none",
        description="SCAN's simple split: a random 80/20 split of the commands, the i.i.d. reference."),
    "length": TaxonomyCard(
        motivation="cognitive", generalisation_type="structural", shift_type="full", shift_source="generated_shift",
        description="SCAN's length split: train on action sequences of up to 22 actions, test on 24 to 48."),
    "addprim": TaxonomyCard.compositional(
        "SCAN's add-primitive split: the primitive is seen only alone in training and tested in compositions.",
        shift_source="generated_shift"),
    "template": TaxonomyCard.compositional(
        "SCAN's template split: a whole template of composition is held out of training.", shift_source="generated_shift"),
}


def _card_for(name: str) -> TaxonomyCard:
    for prefix, card in _CARDS.items():
        if name == prefix or name.startswith(prefix + "_"):
            return card
    return TaxonomyCard(motivation="cognitive", generalisation_type="compositional", shift_type="assumed",
                        shift_source="generated_shift", description=f"SCAN's official '{name}' split.")


class _OfficialScan(Splitter):
    """Puts each example of a dataset in train or test by the official files' commands (not registered)."""

    def __init__(self, *, name: str, folder: str) -> None:
        self.name = name
        self.folder = folder
        self.card = _card_for(name)  # type: ignore[misc]

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator):  # type: ignore[no-untyped-def]
        folder = Path(self.folder)
        files = {part: folder / f"tasks_{part}_{self.name}.txt" for part in ("train", "test")}
        lines = {part: _read_lines(path) for part, path in files.items()}
        commands = {part: {c for _, c, _ in rows} for part, rows in lines.items()}
        both = commands["train"] & commands["test"]
        if both:
            raise DataError(f"Official split '{self.name}': {len(both)} command(s) are in both {files['train']} and "
                            f"{files['test']}, e.g. '{sorted(both)[0]}'. A command must be in one part only.")
        inputs = pd.Series(dataset.inputs, dtype=object).map(lambda s: " ".join(str(s).split()))
        in_train = inputs.isin(commands["train"]).to_numpy()
        in_test = inputs.isin(commands["test"]).to_numpy()
        present = set(inputs)
        repeated = {c: n for c, n in Counter(c for _, c, _ in lines["train"]).items() if n > 1}
        yield np.flatnonzero(in_train), np.flatnonzero(in_test), SplitDetails(
            name=f"official:{self.name}",
            held_out=f"the test commands of SCAN's official '{self.name}' split",
            figures={
                "files": {part: str(path) for part, path in files.items()},
                "n_train_lines": len(lines["train"]),
                "n_test_lines": len(lines["test"]),
                "repeated_train_commands": repeated,
                "n_file_commands_not_in_dataset": len((commands["train"] | commands["test"]) - present),
            },
        )


def official_split(name: str, folder: str | Path, *, dataset: Dataset | None = None,
                   duplicates: Literal["merge", "keep"] = "merge") -> Split:
    """One of SCAN's official splits, from ``tasks_train_<name>.txt`` and ``tasks_test_<name>.txt`` in ``folder``.

    Without ``dataset`` the Split's dataset is the two files read with :func:`read_scan_file`
    (train rows first). With ``dataset`` (e.g. :func:`scan_dataset`), its examples are put in
    train or test by their command, so the official split sits beside gengap's splits of the
    same examples. ``diagnostics.figures["repeated_train_commands"]`` records the commands the train
    file repeats (``{"jump": 1467}`` for ``addprim_jump``).

    Names: ``simple``, ``length``, ``addprim_jump``, ``addprim_turn_left``,
    ``template_around_right``, or any other ``<name>`` whose two files are in ``folder``.

    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "tasks_train_tiny.txt").write_text("IN: jump OUT: I_JUMP\\nIN: walk OUT: I_WALK\\n")
    >>> _ = (d / "tasks_test_tiny.txt").write_text("IN: jump twice OUT: I_JUMP I_JUMP\\n")
    >>> s = official_split("tiny", d)
    >>> s.name, s.diagnostics.n_train, s.diagnostics.n_test
    ('official:tiny', 2, 1)
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(f"SCAN folder '{folder}' does not exist. Pass the folder holding the official tasks_*.txt files.")
    available = sorted(p.name[len("tasks_train_"):-4] for p in folder.glob("tasks_train_*.txt")
                       if (folder / p.name.replace("tasks_train_", "tasks_test_")).is_file())
    if name not in available:
        raise ConfigError(
            f"No official SCAN split '{name}' in '{folder}' (needs tasks_train_{name}.txt and tasks_test_{name}.txt)."
            f"{did_you_mean(name, available)} Splits there: {available}."
        )
    if dataset is None:
        train = read_scan_file(folder / f"tasks_train_{name}.txt", duplicates=duplicates)
        test = read_scan_file(folder / f"tasks_test_{name}.txt", duplicates=duplicates)
        frame = pd.concat([train.frame, test.frame], ignore_index=True)
        dataset = Dataset(frame, name=f"scan-{name}", source=str(folder))
    split = _OfficialScan(name=name, folder=str(folder)).split_dataset(dataset)
    return dataclasses.replace(split, method="scan-official")
