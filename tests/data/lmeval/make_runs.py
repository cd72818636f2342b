"""Run lm-evaluation-harness on the two local tasks and write its logs (results_*.json, samples_*.jsonl).

Usage (from the project root; lm_eval lives in benchmarks/.lmeval-venv, never in gengap's environment):

    python tests/data/lmeval/make_runs.py OUT_FOLDER --seed 1 --seed 2 --seed 3

Each seed is one run of lm_eval's built-in ``dummy`` model (random log-likelihoods, the text "lol" for
generation; lm_eval names it with a random string), written under OUT_FOLDER/<model name>/.
``--base-url`` runs the ``local-completions`` model against an OpenAI-compatible server instead.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TASKS = HERE / "tasks"
VENV_BIN = HERE.parents[2] / "benchmarks" / ".lmeval-venv" / "bin"


def lm_eval_command(out: Path, seed: int, *, tasks: str = "gengap_arith,gengap_mc", model: str = "dummy",
                    model_args: str | None = None) -> list[str]:
    """The lm_eval command line that writes one run's logs under ``out``."""
    cmd = [str(VENV_BIN / "lm_eval"), "--model", model, "--tasks", tasks, "--include_path", str(TASKS),
           "--log_samples", "--output_path", str(out), "--seed", str(seed)]
    if model_args:
        cmd += ["--model_args", model_args]
    return cmd


def run(out: Path, seed: int, **kwargs: str | None) -> None:
    """Run lm_eval once (from the tasks folder, so the YAML files' relative data paths resolve)."""
    proc = subprocess.run(lm_eval_command(out, seed, **kwargs), cwd=TASKS, capture_output=True, text=True, check=False)  # type: ignore[arg-type]
    if proc.returncode != 0:
        raise RuntimeError(f"lm_eval failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    sys.stdout.write(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, action="append", default=None)
    parser.add_argument("--tasks", default="gengap_arith,gengap_mc")
    parser.add_argument("--base-url", default=None, help="an OpenAI-compatible /v1/completions URL (local-completions)")
    parser.add_argument("--model-name", default="gemma")
    args = parser.parse_args()
    for seed in args.seed or [1]:
        if args.base_url:
            run(args.out.resolve(), seed, tasks=args.tasks, model="local-completions",
                model_args=f"model={args.model_name},base_url={args.base_url},tokenizer_backend=None,tokenized_requests=False,num_concurrent=1,max_retries=2")
        else:
            run(args.out.resolve(), seed, tasks=args.tasks)


if __name__ == "__main__":
    main()
