"""The extraction benchmark's data paths: the fresh set's held-out files found wherever its writers put
them, a new development batch scored into the tuning log, bad files named. Data here is written by
the test itself (never the real held-out part)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import bench_extract

ROWS = [
    {"id": "number-x-001", "kind": "number", "question": "How many legs do 2 cats have?", "choices": None,
     "output": "8 legs: 2 cats x 4.", "gold": "8", "pattern": "answer_first_then_explanation", "difficulty": "hard", "source": "written"},
    {"id": "text-x-002", "kind": "text", "question": "What is the capital of Chile?", "choices": None,
     "output": "The capital of Chile is Santiago.", "gold": "Santiago", "pattern": "answer_inside_sentence", "difficulty": "hard",
     "source": "written"},
    {"id": "yes_no-x-003", "kind": "yes_no", "question": "Is the sea salty?", "choices": None, "output": "I'd rather not say.",
     "gold": None, "pattern": "refusal_or_no_answer", "difficulty": "easy", "source": "written"},
]


def write(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_v3_files_are_found_per_writer(tmp_path):
    write(tmp_path / "w1" / "heldout.jsonl", ROWS[:1])
    write(tmp_path / "w2" / "heldout.jsonl", ROWS[1:])
    write(tmp_path / "w2" / "dev.jsonl", ROWS[:1])
    held = bench_extract.v3_files("heldout", tmp_path)
    assert [p.parent.name for p in held] == ["w1", "w2"]
    rows = bench_extract.read_files(held)
    assert [r["id"] for r in rows] == [r["id"] for r in ROWS]
    got = bench_extract.read_all(rows)
    assert got[:2] == ["8", "Santiago"]
    assert bench_extract.kind_scores(rows, got)["all"] == (sum(
        bench_extract.is_correct(r["kind"], v, r["gold"]) for r, v in zip(rows, got)), 3)
    assert bench_extract.v3_files("heldout", tmp_path / "absent") == []
    write(tmp_path / "heldout" / "w3_b01.jsonl", ROWS[:1])  # another layout: a folder per part
    write(tmp_path / "dev" / "w3_b02.jsonl", ROWS[1:])
    assert [p.relative_to(tmp_path).as_posix() for p in bench_extract.v3_files("heldout", tmp_path)] == [
        "heldout/w3_b01.jsonl", "w1/heldout.jsonl", "w2/heldout.jsonl"]
    assert [p.relative_to(tmp_path).as_posix() for p in bench_extract.v3_files("dev", tmp_path)] == [
        "dev/w3_b02.jsonl", "w2/dev.jsonl"]


def test_the_same_item_twice_is_an_error(tmp_path):
    a = write(tmp_path / "a.jsonl", ROWS)
    with pytest.raises(ValueError, match="number-x-001"):
        bench_extract.read_files([a, tmp_path])


def test_a_record_without_its_gold_names_file_and_line(tmp_path):
    bad = write(tmp_path / "bad.jsonl", [ROWS[0], {"kind": "number", "output": "4"}])
    with pytest.raises(ValueError, match=r"bad\.jsonl, line 2: missing field\(s\) \['gold'\]"):
        bench_extract.read_rows(bad)


def test_a_new_batch_is_scored_into_the_tuning_log(tmp_path, monkeypatch, capsys):
    batch = write(tmp_path / "w9_b01.jsonl", ROWS)
    log = tmp_path / "TUNING_LOG.md"
    monkeypatch.setenv("GENGAP_RULES_AT", "abc1234")
    for _ in range(2):
        monkeypatch.setattr(sys, "argv", ["bench_extract.py", "--batch", str(batch), "--log", str(log)])
        bench_extract.main()
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("| time | batch | n | accuracy") and len(lines) == 4  # the header once, a row per run
    row = [c.strip() for c in lines[2].strip("|").split("|")]
    assert row[1:3] == ["w9_b01.jsonl", "3"] and row[-1] == "abc1234"
    assert row[4:8] == ["1/1 100.0%", "-", "1/1 100.0%", "1/1 100.0%"]  # no choice item in this batch
    assert "w9_b01.jsonl" in capsys.readouterr().out
    pooled = bench_extract.before_tuning_lines(log)
    assert len(pooled) == 1 and "2 batches, 6 outputs" in pooled[0]


def test_intervals_are_clopper_pearson():
    low, high = bench_extract.interval(0, 10)
    assert low == 0.0 and round(high, 4) == 0.3085


def test_the_newest_held_out_set_is_printed_first_and_older_ones_become_tuning_data(tmp_path, monkeypatch, capsys):
    wrong = {**ROWS[0], "id": "number-x-009", "output": "I think 7.", "gold": "8"}  # read as 7: a miss
    v2 = tmp_path / "v2"
    write(v2 / "dev.jsonl", ROWS[:1])
    write(v2 / "heldout.jsonl", ROWS[1:2])
    write(tmp_path / "v4" / "heldout.jsonl", [{**wrong, "id": "number-v4-001"}])
    write(tmp_path / "v5" / "heldout.jsonl", [ROWS[2], {**wrong, "id": "number-v5-001"}])
    write(tmp_path / "v6" / "b1.jsonl", [{**ROWS[1], "id": "text-v6-001"}])
    argv = ["bench_extract.py", "--data", str(v2), "--v3", str(tmp_path / "v3"), "--v4", str(tmp_path / "v4"),
            "--v5", str(tmp_path / "v5"), "--v7", str(tmp_path / "v7"), "--v8", str(tmp_path / "v8"), "--v6-dev", str(tmp_path / "v6"),
            "--skip-lmeval", "--show-errors", "--quick"]
    monkeypatch.setattr(sys, "argv", argv)
    bench_extract.main()  # while tuning: the held-out set is not read, and v4 is tuning data all the same
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("1. v5 held-out set: not read") and "number-v5-001" not in out
    assert "v4, v6 development batches: 2 outputs" in out
    monkeypatch.setattr(sys, "argv", [*argv, "--heldout"])
    bench_extract.main()
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("1. v5 held-out set: 2 outputs")
    assert "v4, v6 development batches: 2 outputs" in out  # v4 and the v6 batch joined the tuning data
    assert "MISS number-v4-001" in out  # misreadings are shown on tuning data ...
    assert "number-v5-001" not in out  # ... never on the fresh held-out set


def test_a_newer_held_out_set_turns_v5_into_tuning_data_and_reads_one_file_per_writer(tmp_path, monkeypatch, capsys):
    wrong = {**ROWS[0], "id": "number-x-009", "output": "I think 7.", "gold": "8"}
    write(tmp_path / "v2" / "dev.jsonl", ROWS[:1])
    write(tmp_path / "v2" / "heldout.jsonl", ROWS[1:2])
    write(tmp_path / "v5" / "heldout.jsonl", [{**wrong, "id": "number-v5-001"}])
    (tmp_path / "v7").mkdir()
    argv = ["bench_extract.py", "--data", str(tmp_path / "v2"), "--v3", str(tmp_path / "v3"), "--v4", str(tmp_path / "v4"),
            "--v5", str(tmp_path / "v5"), "--v7", str(tmp_path / "v7"), "--v8", str(tmp_path / "v8"), "--v6-dev", str(tmp_path / "v6"),
            "--skip-lmeval", "--show-errors", "--quick"]
    monkeypatch.setattr(sys, "argv", argv)
    bench_extract.main()  # the v7 folder exists but its writers have not committed a file yet
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("1. v7 held-out set: not present yet")
    assert ", v5: 1 outputs" in out and "MISS number-v5-001" in out  # v5 is tuning data now
    write(tmp_path / "v7" / "heldout_a.jsonl", [{**ROWS[2], "id": "number-v7a-001"}])
    write(tmp_path / "v7" / "heldout_b.jsonl", [{**wrong, "id": "number-v7b-001"}])
    monkeypatch.setattr(sys, "argv", [*argv, "--heldout"])
    bench_extract.main()
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("1. v7 held-out set: 2 outputs")
    assert any(line.split()[:2] == ["heldout_b.jsonl", "1"] and "0.0%" in line for line in out.splitlines())  # per writer
    assert "number-v7b-001" not in out  # never a misreading of the fresh set


def test_two_rule_versions_compared_on_the_same_outputs_count_fixes_and_breaks():
    from benchmarks.compare_extract_rules import comparison_lines

    rows = ROWS * 10  # 30 outputs: number gold 8, text gold Santiago, yes/no gold null
    now = ["8", "Santiago", None] * 10
    before = ["2", "Santiago", None] * 9 + ["8", "Chile", "no"]  # 9 numbers and the last text and yes/no fixed
    lines = comparison_lines(rows, now, before, "old")
    assert lines[-1].startswith("   paired gain +36.7%") and "11 outputs fixed, 0 broken" in lines[-1]
    assert any(line.split()[:2] == ["all", "30"] and "100.0%" in line for line in lines)
    lines = comparison_lines(rows, before, now, "new")  # the other way round: the same pairs, broken
    assert "0 outputs fixed, 11 broken" in lines[-1] and "McNemar p = 0.0009766" in lines[-1]


def test_the_comparison_prints_the_abstention_rate_and_the_precision_of_the_answers_read():
    from benchmarks.compare_extract_rules import comparison_lines

    # an empty gold, like a null one, means the output commits to nothing: abstaining is right
    rows = [{**ROWS[0], "source": "paraphrase"}, {**ROWS[1], "source": "model"}, {**ROWS[2], "gold": ""}] * 10
    now = ["8", None, None] * 10  # reads the numbers right and abstains on the rest
    before = ["7", "Santiago", "yes"] * 10  # reads everything, a third of it right
    lines = comparison_lines(rows, now, before, "old")
    everything = next(line for line in lines if line.split()[:2] == ["all", "30"])
    assert everything.split()[2:] == ["66.7%", "[47.2%,", "82.7%]", "66.7%", "100.0%", "[69.2%,", "100.0%]", "10",
                                      "33.3%", "[17.3%,", "52.8%]", "0.0%", "33.3%", "[17.3%,", "52.8%]", "30"]
    assert any(line.split()[:3] == ["source", "model", "10"] for line in lines)  # per source when rows name several
    assert "0 with these rules, 20 with old's" in lines[-2]
    assert "20 outputs fixed, 10 broken" in lines[-1]


def test_the_throughput_section_alone_prints_outputs_per_cpu_second(tmp_path, monkeypatch, capsys):
    write(tmp_path / "v2" / "dev.jsonl", ROWS)
    write(tmp_path / "v2" / "heldout.jsonl", [{**r, "id": r["id"] + "-h"} for r in ROWS])
    argv = ["bench_extract.py", "--data", str(tmp_path / "v2"), "--v3", str(tmp_path / "v3"), "--v4", str(tmp_path / "v4"),
            "--v5", str(tmp_path / "v5"), "--v7", str(tmp_path / "v7"), "--v8", str(tmp_path / "v8"),
            "--v6-dev", str(tmp_path / "v6"), "--quick", "--throughput-only"]
    monkeypatch.setattr(sys, "argv", argv)
    bench_extract.main()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("6. Throughput of the rule cascade, 20,000 outputs") and "per CPU s" in lines[1]
    assert lines[-1].split()[:2] == ["all", "15,000"]  # 5,000 a kind, for the three kinds present
    assert "the 5,000 per s target" in lines[-1]
