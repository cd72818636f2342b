"""Structured outputs (JSON, answer tags, reasoning blocks, code transcripts, bulleted records): the reader
unwraps the structure, then reads the part it marks as the answer. One case and one counter-example per
principle, through the public ``extract``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _readers import read
from gengap.extract import extract

ORDINARY = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "extraction_v6dev" / "ordinary.jsonl"
ROWS = [json.loads(line) for line in ORDINARY.read_text(encoding="utf-8").splitlines() if line.strip()]
# wrappers that mark the whole output as the answer, or only add markup: reading the wrapped output must read the same
WRAPPERS = {
    "answer tag": lambda o: f"<answer>{o.strip()}</answer>",
    "reasoning block": lambda o: f"<think>\nLet me work through this carefully before answering.\n</think>\n\n{o.strip()}",
    "reasoning and answer tags": lambda o: f"<reasoning>\nI check the facts.\n</reasoning>\n<answer>\n{o.strip()}\n</answer>",
    "JSON answer field": lambda o: json.dumps({"answer": o.strip()}),
    "fenced JSON with a reasoning field": lambda o: "```json\n" + json.dumps({"reasoning": "Checked.", "answer": o.strip()}, indent=2) + "\n```",
    "citation and footnote": lambda o: f"{o.strip()} [1]\n\n[1] Source: Wikipedia.",
    "Markdown quote": lambda o: "\n".join("> " + line for line in o.strip().split("\n")),
    "chat turn header": lambda o: f"<|im_start|>assistant\n{o.strip()}<|im_end|>",
    "final channel": lambda o: f"<|channel|>analysis<|message|>Need to answer.<|end|><|start|>assistant<|channel|>final<|message|>{o.strip()}<|return|>",
}


# ------------------------------------------------------------------ reasoning blocks are the way, not the answer
def test_reasoning_block_then_answer_reads_what_follows() -> None:
    out = "<think>\n7 rows of 8 is 56, plus 6 extra: 62. Double-check 8 x 7 = 56.\n</think>\n\nThere are **62** chairs."
    assert read(out, "number", "How many chairs are there?") == "62"


def test_yes_inside_reasoning_does_not_outvote_the_answer_tag() -> None:
    out = "<reasoning>\nYes, the adult is bound, but the minor may void it.\n</reasoning>\n<answer>No</answer>"
    assert read(out, "yes_no", "Does a contract signed by a minor bind the minor?") == "no"


def test_reasoning_cut_off_before_any_answer_is_unextracted() -> None:
    out = "<think>\nThe user wants the total. 7 x 8 = 56, and 6 more makes"
    assert read(out, "number", "How many chairs are there?") is None


def test_closing_tag_only_the_prompt_opened_the_block() -> None:
    out = "Mercury is closest, but Venus has the greenhouse effect.\n</think>\n\nVenus"
    assert read(out, "text", "Which planet is the hottest?") == "Venus"


# ------------------------------------------------------------------ answer tags
@pytest.mark.parametrize(("output", "kind", "question", "gold"), [
    ("<answer>Jupiter</answer>", "text", "Which planet is the largest?", "Jupiter"),
    ("<reasoning>Signed at Versailles in 1919.</reasoning>\n<answer>Treaty of Versailles</answer>", "text",
     "Which treaty ended the First World War?", "Treaty of Versailles"),
    ("<reasoning>\n180 + 25 = 205.\n</reasoning>\n<answer>\n205\n</answer>", "number", "How many minutes is the journey?", "205"),
])
def test_answer_tag_holds_the_answer(output: str, kind: str, question: str, gold: str) -> None:
    assert read(output, kind, question) == gold


def test_answer_tag_that_commits_to_nothing_is_unextracted() -> None:
    out = "<answer>It depends on the jurisdiction.</answer>\n\nIn most places a sale of land must be in writing."
    assert read(out, "yes_no", "Is a verbal agreement to sell a house enforceable?") is None
    assert read("<answer>I don't have enough information to answer this.</answer>", "text", "Who was the mayor?") is None


def test_continuing_base_model_answers_before_the_next_tagged_item() -> None:
    out = "Oxygen</answer>\n<question>What gas do plants absorb?</question>\n<answer>Carbon dioxide</answer>\n<question>"
    assert read(out, "text", "Which element has atomic number 8?") == "Oxygen"


# ------------------------------------------------------------------ JSON fields
def test_nested_json_answer_field() -> None:
    out = '{\n  "response": {\n    "selected_option": "D",\n    "confidence": "medium"\n  }\n}'
    assert read(out, "choice", "Which bond has the longest duration?", ["2-year", "5-year", "10-year", "10-year zero"]) == "D"
    assert read('{"result": {"value": 3.5, "unit": "hours"}, "confidence": 0.95}', "number", "How many hours?") == "3.5"


def test_reasoning_field_numbers_are_not_the_answer() -> None:
    out = '{"reasoning": "7 cartons x 12 = 84 eggs; 84 - 9 = 75.", "answer": 75}'
    assert read(out, "number", "How many eggs are left?") == "75"


def test_python_dict_literal_is_read_like_json() -> None:
    assert read("{'answer': 'B', 'why': 'wind is renewable'}", "choice", "Which is renewable?", ["Coal", "Wind", "Oil"]) == "B"


@pytest.mark.parametrize(("output", "kind", "choices"), [
    ('{"answer": ["A", "C"], "note": "Depends on what you count."}', "choice", ["Russia", "Canada", "China"]),
    ('{"answer": "unknown", "reason": "The ticket does not mention any attachment."}', "yes_no", None),
    ('{"answer": null, "reason": "The second train\'s speed is not given; 300 km at 80 km/h alone is not enough."}', "number", None),
    ('{"answer": "", "error": "No passage was provided."}', "text", None),
])
def test_empty_unknown_or_several_answers_commit_to_none(output: str, kind: str, choices: list[str] | None) -> None:
    assert read(output, kind, "Which one?" if kind != "yes_no" else "Did he attach it?", choices) is None


def test_field_the_question_names_answers_it() -> None:
    out = '```json\n{\n  "country": "Canada",\n  "capital": "Ottawa",\n  "largest_city": "Toronto"\n}\n```'
    assert read(out, "text", "What is the capital of Canada?") == "Ottawa"
    assert read('{"number": 91, "is_prime": false, "factors": [7, 13]}', "yes_no", "Is 91 a prime number?") == "no"


def test_fields_the_question_does_not_name_are_not_read_by_name() -> None:
    # two fields name what is asked equally: the name alone cannot pick one, and nothing else answers
    assert read('{"old_capital": "Bonn", "new_capital": "Berlin"}', "text", "What was the capital?") is None
    # the field the question names exactly, before one that names more besides
    assert read('{"planet": "Mars", "moons": 2, "largest_moon_km": 22}', "number", "How many moons does Mars have?") == "2"
    assert read('```json\n{"planet": "Mars", "colour": "red"}\n```', "text", "Who discovered Neptune?") is None


def test_few_shot_json_lines_the_model_closes_its_own_item_first() -> None:
    out = ' 9}\n{"question": "How many legs does a spider have?", "answer": 8}\n{"question": "Minutes in an hour?", "answer": 60}'
    assert read(out, "number", "How many sides does a nonagon have?") == "9"
    own_item_first = '{"question": "How many sides does a nonagon have?", "answer": 9}\n{"question": "Spider legs?", "answer": 8}'
    assert read(own_item_first, "number", "How many sides does a nonagon have?") == "9"


# ------------------------------------------------------------------ code: the program's output answers "what does it print"
@pytest.mark.parametrize(("output", "kind", "question", "gold"), [
    (">>> sum(range(1, 11))\n55", "number", "What does sum(range(1, 11)) return in Python?", "55"),
    (">>> 'hello'.upper()\n'HELLO'", "text", "What does 'hello'.upper() return in Python?", "HELLO"),
    ("```python\n>>> [] == []\nTrue\n>>> [] is []\nFalse\n```", "yes_no", "Does `[] == []` evaluate to True in Python?", "yes"),
    ("```bash\n$ echo $((3 + 4))\n7\n```", "text", "What does the shell command `echo $((3 + 4))` print?", "7"),
    ("Running it:\n\n```\n$ python3 snippet.py\n4\n```\n\nThe duplicate 1 is dropped.", "number",
     "What does this print?\n\nx = [3, 1, 4, 1, 5]\nprint(len(set(x)))", "4"),
    ("It prints:\n\n```\ncba\n```\n\nThe slice walks the string backwards.", "text", "What does `print('abc'[::-1])` print in Python?", "cba"),
    ("```js\nconsole.log(NaN === NaN); // false\n```\n\nSurprising, but by the spec.", "yes_no", "Is `NaN === NaN` true in JavaScript?", "no"),
])
def test_program_output_is_the_answer(output: str, kind: str, question: str, gold: str) -> None:
    assert read(output, kind, question) == gold


def test_transcript_is_not_the_answer_when_the_question_is_not_about_code() -> None:
    out = ">>> import calendar\n>>> calendar.isleap(2024)\nTrue\n\nSo 2024 has 366 days."
    assert read(out, "number", "How many days does the year 2024 have?") == "366"


def test_command_question_reads_the_one_line_block() -> None:
    out = "Use:\n\n```bash\ngit branch --show-current\n```\n\nOn Git before 2.22, use `git rev-parse --abbrev-ref HEAD`."
    assert read(out, "text", "Which Git command prints the name of the current branch?") == "git branch --show-current"


def test_multi_line_script_is_not_a_command_answer() -> None:
    out = "Use:\n\n```bash\ngit fetch\ngit switch main\n```"
    assert read(out, "text", "Which Git command prints the name of the current branch?") is None


# ------------------------------------------------------------------ bulleted records
def test_bold_record_line_the_question_asks_for_then_a_note() -> None:
    out = ("- Base salary: $52,000\n- Bonus (10% of base): $5,200\n- **Total cash compensation: $57,200**\n\n"
           "This excludes benefits, often worth another $8,000.")
    assert read(out, "number", "She earns $52,000 and a 10% bonus. What is her total cash compensation?") == "57200"


def test_numbered_steps_are_a_chain_of_thought_not_a_record() -> None:
    out = "Step by step.\n\n1. Total pencils: 3 × 12 = 36\n2. After giving away 10: 36 − 10 = 26\n\nSarah has **26 pencils** left."
    assert read(out, "number", "Sarah has 3 boxes of 12 pencils and gives away 10. How many pencils does she have left?") == "26"


def test_plain_outputs_are_not_read_as_structured() -> None:
    assert extract("The answer is 42.", "number").rule != "structured_json"
    assert extract("Paris is the capital: it has been since 987.", "text", question="What is the capital of France?").value == "Paris"


# ------------------------------------------------------------------ reasoning channels, and a JSON record's one fitting field
def test_final_channel_holds_the_answer_not_the_analysis() -> None:
    out = ("<|channel|>analysis<|message|>6*7 = 42; the next one, 8*9 = 72.<|end|>"
           "<|start|>assistant<|channel|>final<|message|>**42**<|return|>")
    assert read(out, "number", "What is 6 times 7?") == "42"
    assert read("analysisWe need 6*7 = 42, not 48.assistantfinal42", "number", "What is 6 times 7?") == "42"


def test_analysis_channel_cut_off_is_unextracted() -> None:
    assert read("<|channel|>analysis<|message|>We need 6*7 = 42. Also", "number", "What is 6 times 7?") is None


def test_json_record_with_one_field_of_the_kind_asked() -> None:
    assert read('{"author": "Harper Lee", "born": 1926}', "text", "Who wrote To Kill a Mockingbird?") == "Harper Lee"
    # two text fields and neither named by the question: no pick
    assert read('{"author": "Harper Lee", "city": "Monroeville"}', "text", "What is the novel's genre?") is None


def test_the_field_naming_the_role_asked_about() -> None:
    assert read('{"author": "Harper Lee", "city": "Monroeville"}', "text", "Who wrote To Kill a Mockingbird?") == "Harper Lee"
    out = "- **Title:** Nineteen Eighty-Four\n- **Author:** George Orwell\n- **Year:** 1949"
    assert read(out, "text", "Who wrote 1984?") == "George Orwell"
    assert read(out, "text", "When was 1984 published?") != "George Orwell"
    assert read("<capital>Canberra</capital>", "text", "What is the capital of Australia?") == "Canberra"


def test_a_bold_line_labelled_with_what_is_asked_before_a_note() -> None:
    assert read("Sorted: `[3, 4, 9]`\n\n**Median = 4**\n\nThe mean would be 5.33.", "number", "What is the median of 3, 9, 4?") == "4"
    # a bold label that is not what the question asks is a step, not the answer
    assert read("**Mean = 5.33**\n\nSo the median is 4.", "number", "What is the median of 3, 9, 4?") == "4"


# ------------------------------------------------------------------ a command is read as written; a value as printed
def test_command_in_inline_code_or_on_the_first_line() -> None:
    assert read("The command is `git status`.", "text", "Which Git command shows which files are modified?") == "git status"
    out = "git checkout -b <name>\n(or, in newer Git, git switch -c <name>)"
    assert read(out, "text", "Which Git command creates a new branch and switches to it?") == "git checkout -b <name>"


def test_code_given_as_an_example_is_not_the_answer() -> None:
    out = "DISTINCT — e.g. `SELECT DISTINCT country FROM customers;`"
    assert read(out, "text", "In SQL, which keyword removes duplicate rows from a query result?") == "DISTINCT"


def test_a_printed_value_is_read_as_printed() -> None:
    assert read("['a', 'b', 'c']", "text", "What does the Python expression `sorted('bca')` return?") == "['a', 'b', 'c']"
    assert read("```python\n>>> '-'.join(['a', 'b', 'c'])\n'a-b-c'\n```", "text",
                "What does the Python expression `'-'.join(['a', 'b', 'c'])` evaluate to?") == "a-b-c"


def test_block_introduced_as_the_output_is_read() -> None:
    q = "What is the output of the following code?\n\nx = 5\nprint(x * 2)"
    assert read("The output is:\n```\n10\n```\nbecause x * 2 = 10 for x = 5.", "number", q) == "10"
    # a block introduced as the code itself is not its output
    assert read("Here is the code:\n```\nx = 5\nprint(x * 2)\n```\nIt prints 10.", "number", q) == "10"


def test_a_tool_call_gives_no_answer_yet() -> None:
    assert read('{"name": "calculator", "arguments": {"expression": "12*3"}}', "number", "What is 12 times 3?") is None
    assert read('{"tool": "search", "answer": 36}', "number", "What is 12 times 3?") == "36"


# ------------------------------------------------------------------ unwrapping keeps every reading of ordinary outputs
@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
def test_wrapping_an_ordinary_output_as_the_answer_keeps_its_reading(wrapper: str) -> None:
    wrap = WRAPPERS[wrapper]
    changed = []
    for row in ROWS:
        output = row["output"].split("</s>")[0]  # an end-of-text token ends the output, not the wrapper
        plain = read(output, row["kind"], row["question"], row["choices"])
        wrapped = read(wrap(output), row["kind"], row["question"], row["choices"])
        if wrapped != plain:
            changed.append((row["id"], plain, wrapped))
    assert not changed, changed[:5]


def test_a_json_field_repeating_the_question_is_not_the_answer() -> None:
    assert read('{"city": "Rome", "country": "Italy"}', "text", "What is the capital of Italy?") == "Rome"
    assert read('{"city": "Rome", "region": "Lazio"}', "text", "What is the capital of Italy?") is None


def test_options_gone_through_one_per_line_the_marked_one() -> None:
    choices = ["Shark", "Dolphin", "Trout", "Eel"]
    assert read("- A: fish\n- **B: mammal ✅**\n- C: fish\n- D: fish", "choice", "Which is a mammal?", choices) == "B"
    # every option in bold is a layout, not a pick
    assert read("- **A**: fish\n- **B**: mammal\n- **C**: fish\n- **D**: fish\n\nSo it's the dolphin.", "choice",
                "Which is a mammal?", choices) == "B"


def test_an_empty_answer_tag_is_no_answer_unless_the_text_answers_elsewhere() -> None:
    assert read("<reasoning>\nI am not sure.\n</reasoning>\n<answer>\n</answer>", "text", "What is the capital of Peru?") is None
    assert read("Put the final answer in <answer></answer> tags.\n\nThe answer is 5.", "number", "What is 2 + 3?") == "5"


def test_prose_beside_a_json_record_answers_when_no_field_does() -> None:
    out = '```json\n{"city": "Rome", "region": "Lazio"}\n```\nRome has been the capital since 1871.'
    assert read(out, "text", "What is the capital of Italy?") == "Rome"


def test_a_markdown_quote_does_not_change_what_its_lines_say() -> None:
    assert read("### Final answer\n\n> **Canberra**", "text", "What is the capital of Australia?") == "Canberra"
    assert read("> Yes.\n> Water boils at a lower temperature at altitude.", "yes_no", "Does water boil at a lower temperature at altitude?") == "yes"


def test_an_answer_taken_back_after_the_structure_is_replaced() -> None:
    assert read('{"answer": 5}\n\nWait, I made an error: the answer is 6.', "number", "What is 2 + 4?") == "6"
    assert read("<answer>5</answer>\n\nActually, it is 6.", "number", "What is 2 + 4?") == "6"
    assert read('{"answer": 5}\n\nSorry, I cannot check 2 + 3 with a calculator.', "number", "What is 2 + 3?") == "5"


def test_code_that_raises_gives_its_error_not_a_value() -> None:
    out = ('```python\n>>> 1/0\nTraceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
           "ZeroDivisionError: division by zero\n```")
    q = "What does `1/0` give in Python?"
    assert read(out, "text", q) == "ZeroDivisionError"
    assert read(out, "choice", q, ["0", "inf", "ZeroDivisionError", "None"]) == "C"
    assert read(out, "number", q) is None  # not the "zero" of its message


def test_code_answers_as_written() -> None:
    assert read("Use the `<b>` tag (or `<strong>` for semantic emphasis).", "text", "What HTML tag makes text bold?") == "<b>"
    assert read("<strong>", "text", "What HTML tag makes text bold?") == "<strong>"
    # an output that is one option's text, word for word, is that option, even when the text looks like JSON
    assert read('{"a": 1}', "choice", "Which is valid JSON?", ["{'a': 1}", '{"a": 1}', "{a: 1}"]) == "B"


@pytest.mark.parametrize(("output", "kind"), [
    ("<answer>Unknown</answer>", "text"), ("<answer>No answer</answer>", "yes_no"), ('{"answer": "N/A"}', "number"),
    ("<answer>between 30 and 40</answer>", "number"), ('{"answer": "either Paris or Lyon"}', "text"),
])
def test_a_placeholder_or_hedge_in_the_answer_slot_is_no_answer(output: str, kind: str) -> None:
    assert read(output, kind, "What is it?") is None


def test_none_in_the_answer_slot_of_a_count_is_zero() -> None:
    assert read('{"answer": "none"}', "number", "How many moons does Venus have?") == "0"
    assert read("<answer>No</answer>", "yes_no", "Does Venus have a moon?") == "no"


def test_a_fence_and_its_language_label_are_markup() -> None:
    assert read("```text\nCanberra\n```", "text", "What is the capital of Australia?") == "Canberra"
    assert read("```plaintext\n42\n```", "number", "What is 6 times 7?") == "42"


def test_json_named_inside_a_sentence_is_an_example_not_the_output() -> None:
    out = 'The JSON {"answer": 42} is a running joke; the real answer is unknown.'
    assert read(out, "number", "What is the meaning of life?") is None
    assert read('Sure! {"answer": "B"}', "choice", "Which?", ["x", "y", "z"]) == "B"


def test_a_list_points_at_its_answer() -> None:
    choices = ["Shark", "Dolphin", "Trout", "Eel"]
    assert read("- A) Shark\n- B) Dolphin ← answer\n- C) Trout\n- D) Eel", "choice", "Which is a mammal?", choices) == "B"
    assert read("- A) Shark\n- B) Dolphin (correct)\n- C) Trout\n- D) Eel", "choice", "Which is a mammal?", choices) == "B"
    assert read("* Shark\n* **Dolphin** ✅\n* Trout\n* Eel", "choice", "Which is a mammal?", choices) == "B"
    # a list of the options with nothing marked picks none of them
    assert read("- A) Shark\n- B) Dolphin\n- C) Trout\n- D) Eel", "choice", "Which is a mammal?", choices) is None


def test_a_line_labelled_as_the_verdict() -> None:
    assert read("- Verdict: **No**\n- Reason: it is round", "yes_no", "Is the Earth flat?") == "no"
    assert read("TL;DR: 42\n\nLong story: 6 x 7 = 42, and 43 is prime.", "number", "What is 6 times 7?") == "42"


def test_a_turn_header_left_at_the_start_is_not_the_answer() -> None:
    assert read("<|im_start|>assistant\nOttawa<|im_end|>", "text", "What is the capital of Canada?") == "Ottawa"
    assert read("<start_of_turn>model\nParis<end_of_turn>", "text", "What is the capital of France?") == "Paris"


def test_who_asks_for_the_name_field() -> None:
    out = '{"name": "Alexander Fleming", "year": 1928, "nationality": "Scottish"}'
    assert read(out, "text", "Who discovered penicillin?") == "Alexander Fleming"


def test_code_beside_prose_is_not_unwrapped_when_the_question_is_not_about_code() -> None:
    out = "```python\n>>> 2 ** 10\n1024\n```\n\nSo **1024** bytes (the decimal kilobyte is 1000)."
    assert read(out, "number", "How many bytes are in a kilobyte (binary)?") == "1024"


def test_the_quantity_a_how_question_asks_for_names_its_line() -> None:
    out = "- Distance: 150 km\n- Speed: 60 km/h\n- **Time: 2.5 hours**\n\nAdd about 15 minutes for a rest stop."
    assert read(out, "number", "How long, in hours, does a 150 km trip take at 60 km/h?") == "2.5"
    assert read('{"distance_km": 150, "speed_kmh": 60, "time_h": 2.5}', "number", "How far is the trip in km?") == "150"


def test_an_answer_envelope_with_one_field_of_the_kind() -> None:
    out = '{"result": {"amount": 12.5, "currency": "EUR"}, "breakdown": "2.50 + 5 x 2.00"}'
    assert read(out, "number", "How many euros does a 5 km ride cost?") == "12.5"
    # two numbers in the envelope and none named: no pick
    assert read('{"result": {"low": 10, "high": 14}}', "number", "How many euros does it cost?") is None


def test_few_shot_statements_the_model_closes_its_own_item_first() -> None:
    out = ' false}\n{"statement": "Penguins live in the Arctic.", "label": false}\n{"statement": "Water boils at 100 °C.", "label": true}'
    assert read(out, "yes_no", "Statement: Bats are blind. Is the statement true?") == "no"


def test_a_transcript_that_is_not_a_verdict_leaves_the_prose_to_answer() -> None:
    out = "```js\n> typeof null\n'object'\n```\n\nYes — it's a long-standing quirk of the language."
    assert read(out, "yes_no", "Does `typeof null` return 'object' in JavaScript?") == "yes"
    assert read("```js\n> typeof null\n'object'\n```", "text", "What does `typeof null` return in JavaScript?") == "object"


def test_answer_fields_in_other_languages() -> None:
    assert read('{"respuesta": "Sí"}', "yes_no", "¿Es Madrid la capital de España?") == "yes"
    assert read('{"réponse": "C", "explication": "..."}', "choice", "Laquelle ?", ["a", "b", "c"]) == "C"


def test_options_written_out_again_then_the_answer_in_prose() -> None:
    choices = ["Shark", "Dolphin", "Trout", "Eel"]
    assert read("1. Shark\n2. Dolphin\n3. Trout\n4. Eel\n\nThe dolphin is the mammal.", "choice", "Which is a mammal?", choices) == "B"
    # a base model's next few-shot item lists other options: they are not this answer's list
    out = " (B) Dolphin\n\n\nQuestion 7: Which is a fish?\n(A) Shark\n(B) Dolphin\n(C) Whale\n(D) Seal\nAnswer: (A)"
    assert read(out, "choice", "Which is a mammal?", choices) == "B"


def test_a_list_of_candidates_with_one_marked() -> None:
    assert read("- 12\n- **14** ← answer\n- 16", "number", "Which number doubled gives 28?") == "14"
    assert read("- Option 1: 12\n- Option 2: 14 ✅\n- Option 3: 16", "number", "Which number doubled gives 28?") == "14"
    out = "- Inch: 0.0254 m\n- Foot: 0.3048 m\n- **Yard: 0.9144 m** ✅\n- Mile: 1609.344 m"
    assert read(out, "text", "Which unit of length is defined as exactly 0.9144 metres?") == "Yard"
    # checks ticked on every step mark nothing out
    assert read("- 6 × 7 = 42 ✓\n- 7 × 6 = 42 ✓", "number", "What is 6 x 7?") == "42"


def test_citation_marks_and_footnotes_are_not_the_answer() -> None:
    assert read("London [1]\n\n[1] The Metropolitan Railway opened in 1863.", "text", "Which city had the first underground railway?") == "London"
    assert read("Chinua Achebe [source: Encyclopaedia Britannica]", "text", "Who wrote Things Fall Apart?") == "Chinua Achebe"
    # in code, brackets index: not a citation
    assert read(">>> x = [4, 5, 6]\n>>> x[1]\n5", "number", "What does `x[1]` return for x = [4, 5, 6]?") == "5"


def test_a_verdict_per_aspect_the_question_names_its_line() -> None:
    out = "- Legally: **No**\n- Practically: many people do it anyway, yes"
    assert read(out, "yes_no", "Is it legal to drive without a licence?") == "no"
    assert read("- Safe to eat: yes\n- Tasty: no, rather bitter", "yes_no", "Is it safe to eat raw kale?") == "yes"
    assert read("- Safe to eat: yes\n- Tasty: no, rather bitter", "yes_no", "Is raw kale tasty?") == "no"


def test_a_list_value_is_not_a_citation() -> None:
    assert read("[1, 2, 3]", "text", "What does list(range(1, 4)) return in Python?") == "[1, 2, 3]"
    assert read("The tower is 330 metres tall.[2][3]", "number", "How tall is the tower in metres?") == "330"
    # "go" and "rust" are words before they are languages: a train that goes far is no code question
    assert read("It goes 150 miles [1].\n\n[1] 60 × 2.5", "number", "A train travels at 60 mph for 2.5 hours. How far does it go?") == "150"


def test_pathological_braces_are_read_without_error() -> None:
    # JSON nested too deep for the decoder, and thousands of unclosed dict literals: a reading, not an exception
    assert extract('{"a": ' * 2000 + "1" + "}" * 2000, "number", question="How many?").kind == "number"
    assert extract("{'" * 3000, "text", question="Who?").kind == "text"
