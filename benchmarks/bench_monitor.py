"""Per-step overhead of gengap's training-time Monitor on a small Transformer training loop.

Prints, side by side: the plain step time; the loop with the Monitor and the cheap measures on
their schedule (overhead in % of a step, target < 5%); and the cost of one call of each expensive
measure (sharpness, gradient coherence, EL2N/GraNd), with its share of a step when run every
``--expensive-every`` steps. Timings on a shared machine are noisy: each configuration is run
``--repeats`` times, interleaved, and the median is kept.

    python benchmarks/bench_monitor.py            # about 2-4 minutes on a laptop CPU
    python benchmarks/bench_monitor.py --quick    # smoke run, ~30 s
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import torch

from gengap.monitor import DataDiet, GradientCoherence, Monitor, Sharpness

CHEAP = ["distance", "rotation", "norms", "spectral", "margin"]


class TinyTransformer(torch.nn.Module):
    """Token embeddings + positional embeddings, a Transformer encoder, mean-pooled to class logits."""

    def __init__(self, vocab: int = 64, d_model: int = 64, n_layers: int = 2, seq_len: int = 16, n_classes: int = 8):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, d_model)
        self.pos = torch.nn.Parameter(torch.zeros(seq_len, d_model))
        layer = torch.nn.TransformerEncoderLayer(d_model, nhead=4, dim_feedforward=4 * d_model, batch_first=True,
                                                 dropout=0.0)
        self.encoder = torch.nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(d_model, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.embed(x) + self.pos).mean(dim=1))


def data(n: int, seq_len: int = 16, vocab: int = 64, n_classes: int = 8, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, vocab, (n, seq_len), generator=g)
    return x, x.sum(dim=1) % n_classes


def run(steps: int, batch: int, monitor_options: dict | None) -> tuple[float, float, Monitor | None]:
    """Seconds per step of the whole loop, and of the ``mon.step`` calls alone."""
    torch.manual_seed(0)
    model = TinyTransformer()
    x, y = data(steps * batch)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    mon = Monitor(model, console=None, **monitor_options) if monitor_options is not None else None
    inside = 0.0
    t0 = time.perf_counter()
    for i in range(steps):
        xb, yb = x[i * batch:(i + 1) * batch], y[i * batch:(i + 1) * batch]
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if mon is not None:
            t1 = time.perf_counter()
            mon.step(loss=loss, batch=(xb, yb))
            inside += time.perf_counter() - t1
    seconds = time.perf_counter() - t0
    if mon is not None:
        mon.close()
    return seconds / steps, inside / steps, mon


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--every", type=int, default=50, help="schedule of evaluations and cheap measures")
    parser.add_argument("--expensive-every", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore", message="There is a performance drop")
    steps = args.steps or (100 if args.quick else 400)
    repeats = args.repeats or (1 if args.quick else 3)
    x_eval, y_eval = data(256, seed=1)

    configs = {
        "plain loop": None,
        "monitor, loss only": {"measures": [], "every": args.every},
        "monitor + cheap measures": {"measures": CHEAP, "every": args.every},
        "monitor + cheap + eval (256 ex.)": {"measures": CHEAP, "every": args.every,
                                             "train_eval": (x_eval, y_eval), "heldout_eval": (x_eval, y_eval)},
    }
    run(20, args.batch, None)  # warm-up: allocator, kernels
    times: dict[str, list[float]] = {k: [] for k in configs}
    inside: dict[str, list[float]] = {k: [] for k in configs}
    monitors: dict[str, Monitor] = {}
    for _ in range(repeats):
        for name, options in configs.items():
            per_step, in_monitor, mon = run(steps, args.batch, options)
            times[name].append(per_step)
            inside[name].append(in_monitor)
            if mon is not None:
                monitors[name] = mon
    base = statistics.median(times["plain loop"])
    print(f"Small Transformer (2 layers, d=64, seq 16, batch {args.batch}), {steps} steps x {repeats} repeats, "
          f"{args.threads} thread(s); measures every {args.every} steps")
    print("'in mon.step' is the time spent inside the monitor (timed around each call) as a share of a plain step;")
    print("'wall overhead' compares whole loops and is only as steady as the machine.")
    print(f"{'configuration':38s} {'ms/step':>9s} {'wall overhead':>14s} {'in mon.step':>12s}")
    for name in configs:
        t = statistics.median(times[name])
        over = "" if name == "plain loop" else f"{100 * (t - base) / base:13.1f}%"
        own = "" if name == "plain loop" else f"{100 * statistics.median(inside[name]) / base:11.2f}%"
        print(f"{name:38s} {1000 * t:9.2f} {over:>14s} {own:>12s}")
    cheap_mon = monitors["monitor + cheap measures"]
    print("\nCost of one call of each cheap measure (ms):",
          ", ".join(f"{k} {1000 * statistics.median(v):.2f}" for k, v in cheap_mon.costs.items()))

    print(f"\nExpensive measures (probe of 64 examples), one call each, and their share of a step at every "
          f"{args.expensive_every} steps:")
    print(f"{'measure':28s} {'ms/call':>9s} {'steps-worth':>12s} {'amortized':>10s}")
    torch.manual_seed(0)
    model = TinyTransformer()
    x, y = data(64, seed=2)
    for measure in (Sharpness(), GradientCoherence(), DataDiet()):
        mon = Monitor(model, measures=[measure], every=1, expensive_every=1, probe=(x, y), console=None)
        calls = 1 if args.quick else 3
        for _ in range(calls):
            mon.step(loss=1.0)
        cost = statistics.median(mon.costs[measure.name])
        mon.close()
        print(f"{measure.name + ' (' + type(measure).__name__ + ')':28s} {1000 * cost:9.1f} {cost / base:12.1f} "
              f"{100 * cost / base / args.expensive_every:9.2f}%")
    print("\nFigures from a shared machine are preliminary; re-run for your hardware.")


if __name__ == "__main__":
    main()
