"""Write the two small local tasks' data files (deterministic: run it again, get the same bytes).

gengap_arith: generate_until, "What is a + b?" with the number of digits and the operation as doc fields.
gengap_mc: multiple_choice, which of four numbers is a + b, with a topic field.
"""

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent / "tasks"


def main() -> None:
    rng = random.Random(17)
    arith, mc = [], []
    for i in range(40):
        digits = 1 + i % 3
        a, b = rng.randrange(10 ** (digits - 1), 10**digits), rng.randrange(10 ** (digits - 1), 10**digits)
        op = "+" if i % 2 == 0 else "-"
        value = a + b if op == "+" else a - b
        arith.append({"id": f"arith-{i:02d}", "question": f"What is {a} {op} {b}?", "answer": str(value),
                      "digits": digits, "op": op})
    for i in range(30):
        a, b = rng.randrange(1, 50), rng.randrange(1, 50)
        right = a + b
        options = sorted({right, right + 1, right - 2, right + 10})
        mc.append({"id": f"mc-{i:02d}", "question": f"{a} plus {b} equals", "choices": [str(o) for o in options],
                   "label": options.index(right), "topic": "small" if right < 50 else "large"})
    for name, rows in (("arith.jsonl", arith), ("mc.jsonl", mc)):
        with open(HERE / name, "w", encoding="utf-8", newline="\n") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)


if __name__ == "__main__":
    main()
