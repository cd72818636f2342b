"""An optional model judge for what the rules cannot read: any OpenAI-compatible endpoint (a local
llama.cpp server, vLLM, Ollama, a hosted API) or any gengap model is shown the question, the options
and the output, and asked which answer the output commits to.

The judge is asked only about outputs the rules leave unextracted or read in two ways (contested);
its reply is read again by the rules, so it cannot invent a form the kind forbids. A
:class:`JudgeReport` says how often it was asked and how often it agreed with the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_INSTRUCTIONS = {
    "number": "Reply with the number only.",
    "choice": "Reply with the letter of the option only.",
    "yes_no": "Reply with yes or no only.",
    "text": "Reply with the short answer only (a word or a name), no sentence.",
}

PROMPT = (
    "You read answers. Below are a question and a reply someone wrote. Which final answer does the reply commit to? "
    "{instruction} If the reply refuses, hedges between answers or gives no answer, reply NONE.\n\n"
    "Question: {question}{options}\n\nReply:\n<<<\n{output}\n>>>\n\nFinal answer:"
)


def judge_prompt(output: str, kind: str, *, question: str | None = None, choices: Sequence[str] | None = None) -> str:
    """The prompt the judge reads for one output.

    >>> print(judge_prompt("It's a carnivore.", "choice", question="Diet of a lion?",
    ...                    choices=["Herbivorous", "Carnivorous"]).splitlines()[2])
    Question: Diet of a lion?
    """
    options = ""
    if choices:
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        options = "\nOptions:\n" + "\n".join(f"{letters[i]}) {c}" for i, c in enumerate(choices))
    return PROMPT.format(instruction=_INSTRUCTIONS.get(kind, "Reply with the answer only."),
                         question=question or "(not given)", options=options, output=str(output).strip())


def declines(reply: Any) -> bool:
    """Whether a judge's reply says the output gives no answer."""
    text = str(reply or "").strip().strip(".*`\"' ").upper()
    return not text or text in {"NONE", "UNREADABLE", "N/A", "NO ANSWER", "UNKNOWN"} or text.startswith("NONE")


def as_judge(judge: Any) -> Any:
    """A gengap Model from a judge: a Model, a batch callable, or the URL of an OpenAI-compatible API.

    >>> as_judge("http://127.0.0.1:8080/v1")
    OpenAIModel(base_url='http://127.0.0.1:8080/v1', model_name=None, api='chat')
    """
    if isinstance(judge, str) and judge.startswith(("http://", "https://")):
        from gengap.models.http import OpenAIModel

        # a local server (llama.cpp) answers one request at a time: few in flight, time to answer
        return OpenAIModel(judge, max_tokens=16, temperature=0.0, name="judge", concurrency=2, timeout=180.0)
    from gengap.models import as_model

    return as_model(judge)


@dataclass(frozen=True)
class JudgeReport:
    """How the judge was used on one batch.

    Attributes
    ----------
    asked : outputs shown to the judge (the rules abstained or were contested).
    abstained, contested : of those, how many the rules left unextracted, and how many they read two ways.
    filled : unextracted outputs the judge read an answer into.
    agreed : contested outputs where the judge read the rules' answer.
    overruled : contested outputs where the judge read the rules' other reading (the judge's is kept).
    declined : outputs where the judge said there is no answer, or read a third answer on a contested
        output (the rules' reading is kept).
    """

    asked: int = 0
    abstained: int = 0
    contested: int = 0
    filled: int = 0
    agreed: int = 0
    overruled: int = 0
    declined: int = 0

    @property
    def agreement(self) -> float | None:
        """Share of the contested outputs where the judge agreed with the rules (None when none was)."""
        decided = self.agreed + self.overruled
        return self.agreed / decided if decided else None
