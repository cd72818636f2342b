"""The phrase files of the answer reader: every shipped file loads, and a broken one is refused at load with
its file and line named (a pattern that is not a regular expression, an unknown list, a file that is not TOML)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from gengap._errors import ConfigError
from gengap.extract._phrases import FOLDER, LISTS, alternation, load_phrases, opening_lookahead, phrases


def test_every_shipped_language_loads_with_known_lists():
    loaded = load_phrases()
    assert {"en", "es", "fr", "de", "pt", "it"} <= set(loaded)
    assert all(set(lists) <= set(LISTS) for lists in loaded.values())
    assert (FOLDER / "README.md").exists()


def test_a_broken_pattern_names_the_file_and_line(tmp_path: Path):
    shutil.copy(FOLDER / "es.toml", tmp_path / "es.toml")
    bad = tmp_path / "nl.toml"
    bad.write_text('language = "Dutch"\n\nunsure = [\n    \'ik\\s+weet\\s+het\\s+niet\',\n    \'geen\\s+(idee\',\n]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"nl\.toml, line 5: the unsure phrase 'geen\\\\s\+\(idee' is not a regular expression"):
        load_phrases(tmp_path)


def test_an_unknown_list_or_a_file_that_is_not_toml_is_refused(tmp_path: Path):
    (tmp_path / "nl.toml").write_text('language = "Dutch"\nsorry = [\'het\\s+spijt\\s+me\']\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"nl\.toml, line 2: unknown phrase list 'sorry'; known lists: marker, refusal"):
        load_phrases(tmp_path)
    (tmp_path / "nl.toml").write_text("unsure = ['ik weet het niet'\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"nl\.toml: not a TOML phrase file"):
        load_phrases(tmp_path)


def test_an_unknown_language_or_list_is_named():
    with pytest.raises(ConfigError, match="No phrase file for language 'xx'"):
        phrases("unsure", ("xx",))
    with pytest.raises(ConfigError, match="Unknown phrase list 'sorry'"):
        phrases("sorry", ("en",))


def test_the_lookahead_lists_the_opening_characters_or_is_left_out():
    assert opening_lookahead(["quizás?", r"tal\s+vez", r"(?:no|ni)\s+sé"]) == "(?=[nqt])"
    assert opening_lookahead([r"\w+\s+sé"]) == ""  # any word character: no cheap test
    assert opening_lookahead([r"x?y"]) == ""  # may open without its first letter
    pattern = re.compile(opening_lookahead(phrases("unsure", ("de",))) + alternation("unsure", ("de",)), re.IGNORECASE)
    assert pattern.match("Keine Ahnung.") and not pattern.match("Ich glaube ja.")
