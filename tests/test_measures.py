"""Each training-time measure against a hand computation, and the rank correlation over runs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

import gengap  # noqa: E402
import gengap.analysis.measures  # noqa: E402
from gengap import ConfigError  # noqa: E402
from gengap.analysis.measures import rank_correlation, runs_table  # noqa: E402
from gengap.monitor import (  # noqa: E402
    ContinualEval,
    Distance,
    GradientCoherence,
    LayerRotation,
    Margin,
    MeasureContext,
    Monitor,
    Norms,
    PathNorm,
    Sharpness,
    SpectralNorms,
    coherence,
    el2n_scores,
    grand_scores,
    margins,
    prune,
    prune_dataset,
    worst_case_accuracy,
)
from gengap.monitor._params import watched_parameters  # noqa: E402
from gengap.monitor._pergrad import per_example_gradients  # noqa: E402

torch.set_num_threads(1)


def context(model, probe=None, step=1, init=None, history=None):
    params = watched_parameters(model, warn=False)
    init = init or {n: p.detach().clone() for n, p in params.items()}
    return MeasureContext(model, step, params, init, probe, torch.nn.functional.cross_entropy, history or {})


def values(records):
    return {(n, s): v for n, s, v in records}


def small_net(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))


def probe(n=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, 4, generator=g), torch.randint(0, 3, (n,), generator=g)


def test_distance_from_init_and_log_fit():
    net = small_net()
    ctx = context(net)
    with torch.no_grad():
        net[0].weight.add_(0.3)
    expected = 0.3 * math.sqrt(net[0].weight.numel())
    assert values(Distance().compute(ctx))[("distance_from_init", "")] == pytest.approx(expected, rel=1e-6)
    # with a history growing like log(step) the fitted slope is found
    hist = {("distance_from_init", ""): [(s, 2.0 * math.log(s)) for s in (1, 10, 100)]}
    ctx = context(net, step=1000, history=hist, init={n: p.detach() - 0 for n, p in net.named_parameters()})
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
    target = 2.0 * math.log(1000)
    scale = target / math.sqrt(sum(float((ctx.init[n] ** 2).sum()) for n in ctx.init))
    ctx.init = {n: -v * scale for n, v in ctx.init.items()}
    got = values(Distance().compute(ctx))
    assert got[("distance_from_init", "")] == pytest.approx(target, rel=1e-6)
    assert got[("distance_log_slope", "")] == pytest.approx(2.0, rel=1e-6)
    assert got[("distance_log_r2", "")] == pytest.approx(1.0, abs=1e-9)


def test_layer_rotation_is_cosine_distance_per_layer():
    net = small_net()
    ctx = context(net)
    with torch.no_grad():
        net[2].weight.mul_(-1.0)   # pointing the opposite way: cosine distance 2
        net[0].weight.mul_(5.0)    # only scaled: no rotation
    got = values(LayerRotation().compute(ctx))
    assert got[("layer_rotation", "0.weight")] == pytest.approx(0.0, abs=1e-9)
    assert got[("layer_rotation", "2.weight")] == pytest.approx(2.0, abs=1e-9)
    assert got[("layer_rotation", "")] == pytest.approx(1.0, abs=1e-9)
    assert ("layer_rotation", "0.bias") not in got


def test_norms_and_spectral_norms_match_numpy():
    net = small_net()
    got = values(Norms().compute(context(net)))
    all_w = np.concatenate([p.detach().numpy().ravel() for p in net.parameters()])
    assert got[("param_norm", "")] == pytest.approx(float(np.linalg.norm(all_w)), rel=1e-5)
    spec = values(SpectralNorms().compute(context(net)))
    for name in ("0.weight", "2.weight"):
        w = dict(net.named_parameters())[name].detach().numpy()
        assert spec[("spectral_norm", name)] == pytest.approx(float(np.linalg.svd(w, compute_uv=False)[0]), rel=1e-4)
    assert spec[("log_spectral_product", "")] == pytest.approx(
        math.log(spec[("spectral_norm", "0.weight")]) + math.log(spec[("spectral_norm", "2.weight")]), rel=1e-6)


def test_path_norm_of_a_two_layer_relu_net_by_hand():
    net = torch.nn.Sequential(torch.nn.Linear(2, 2, bias=False), torch.nn.ReLU(), torch.nn.Linear(2, 1, bias=False))
    with torch.no_grad():
        net[0].weight.copy_(torch.tensor([[1.0, -2.0], [3.0, 0.5]]))
        net[2].weight.copy_(torch.tensor([[2.0, -1.0]]))
    # sum over paths of the product of squared weights: 4*(1+4) + 1*(9+0.25)
    got = values(PathNorm().compute(context(net, probe=(torch.zeros(3, 2), torch.zeros(3, dtype=torch.long)))))
    assert got[("path_norm", "")] == pytest.approx(4 * 5 + 9.25)
    # token-id inputs have no all-ones input: skipped with a warning, not a crash
    with pytest.warns(UserWarning, match="path_norm needs floating-point"):
        assert PathNorm().compute(context(net, probe=(torch.zeros(3, 2, dtype=torch.long), torch.zeros(3)))) == []


def test_margin_is_the_tenth_percentile_of_correct_minus_best_other():
    logits = torch.tensor([[3.0, 1.0, 0.0], [0.0, 2.0, 1.0], [1.0, 1.0, 5.0]])
    assert margins(logits, torch.tensor([0, 0, 2])).tolist() == [2.0, -2.0, 4.0]
    net = small_net()
    x, y = probe(50)
    m = margins(net(x), y).detach()
    got = values(Margin().compute(context(net, probe=(x, y))))
    assert got[("margin", "")] == pytest.approx(float(torch.quantile(m, 0.1)), rel=1e-6)


def test_sharpness_restores_weights_and_grows_with_the_ball():
    net = small_net()
    x, y = probe(64)
    before = [p.detach().clone() for p in net.parameters()]
    small = values(Sharpness(rho=1e-3).compute(context(net, probe=(x, y))))
    large = values(Sharpness(rho=5e-2).compute(context(net, probe=(x, y))))
    for p, b in zip(net.parameters(), before):
        assert torch.equal(p.detach(), b)
    assert 0 <= small[("sharpness", "")] < large[("sharpness", "")]
    # the worst case found by gradient ascent is at least the random-direction average
    assert large[("sharpness", "")] >= large[("flatness_random", "")]


def test_per_example_gradients_match_autograd_and_coherence_bounds():
    net = small_net()
    x, y = probe(6)
    g = per_example_gradients(net, dict(net.named_parameters()), x, y)
    for i in (0, 4):
        net.zero_grad()
        torch.nn.functional.cross_entropy(net(x[i:i + 1]), y[i:i + 1]).backward()
        manual = torch.cat([p.grad.reshape(-1) for p in net.parameters()])
        assert torch.allclose(g[i], manual, atol=1e-6)
    assert coherence(torch.ones(5, 3)) == pytest.approx(1.0)
    assert coherence(torch.eye(4)) == pytest.approx(0.25)
    same = (x[:1].repeat(8, 1), y[:1].repeat(8))
    got = values(GradientCoherence().compute(context(net, probe=same)))
    assert got[("gradient_coherence", "")] == pytest.approx(1.0, abs=1e-5)
    assert got[("gradient_coherence_ratio", "")] == pytest.approx(8.0, abs=1e-4)


def test_el2n_and_grand_scores():
    net = torch.nn.Linear(2, 2)
    with torch.no_grad():
        net.weight.copy_(torch.eye(2) * 50)
        net.bias.zero_()
    x = torch.eye(2)
    assert np.allclose(el2n_scores(net, x, torch.tensor([0, 1])), 0.0, atol=1e-6)     # confident and right
    assert np.allclose(el2n_scores(net, x, torch.tensor([1, 0])), math.sqrt(2), atol=1e-6)  # confident and wrong
    # averaged over several models
    two = el2n_scores([net, net], x, torch.tensor([1, 0]))
    assert np.allclose(two, math.sqrt(2), atol=1e-6)
    small = small_net()
    xs, ys = probe(5)
    got = grand_scores(small, xs, ys)
    small.zero_grad()
    torch.nn.functional.cross_entropy(small(xs[2:3]), ys[2:3]).backward()
    assert got[2] == pytest.approx(float(torch.cat([p.grad.reshape(-1) for p in small.parameters()]).norm()), rel=1e-5)


def test_prune_keeps_the_hardest_examples_of_a_dataset():
    assert prune([0.1, 0.9, 0.5, 0.7], keep=2).tolist() == [1, 3]
    assert prune([0.1, 0.9, 0.5, 0.7], keep=0.5, hardest=False).tolist() == [0, 2]
    ds = gengap.load([{"input": f"x{i}", "target": str(i)} for i in range(6)])
    kept = prune_dataset(ds, [5, 1, 4, 0, 3, 2], keep=0.5)
    assert kept.targets == ["0", "2", "4"]
    with pytest.raises(ConfigError, match="keep="):
        prune([1.0, 2.0], keep=5)
    with pytest.raises(ConfigError, match="finite"):
        prune([1.0, float("nan")], keep=1)
    with pytest.raises(ConfigError, match="3 scores for a dataset of 6"):
        prune_dataset(ds, [1, 2, 3], keep=1)


def test_continual_evaluation_exposes_the_stability_gap():
    g = torch.Generator().manual_seed(0)
    xa = torch.randn(64, 4, generator=g)
    ya = (xa[:, 0] > 0).long()
    xb = torch.randn(64, 4, generator=g)
    yb = (xb[:, 0] <= 0).long()          # task b reverses task a's rule: learning b forgets a
    tasks = {"a": (xa, ya), "b": (xb, yb)}
    torch.manual_seed(0)
    net = torch.nn.Linear(4, 2)
    ce = ContinualEval(tasks, every=1)
    mon = Monitor(net, measures=[ce], every=1000, console=None)
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    for task in ("a", "b"):
        mon.start_task(task)
        x, y = tasks[task]
        for _ in range(30):
            loss = torch.nn.functional.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            mon.step(loss=loss)
    m = mon.measures
    acc_a = m[(m["name"] == "continual_accuracy") & (m["scope"] == "a")]
    assert len(acc_a) == 60                      # evaluated at every iteration
    gap = m[(m["name"] == "stability_gap") & (m["scope"] == "a")]["value"].iloc[-1]
    assert gap > 0.5                             # task a collapsed after the switch
    min_acc = m[m["name"] == "min_acc"]["value"].iloc[-1]
    wc = m[m["name"] == "wc_acc"]["value"].iloc[-1]
    last_b = m[(m["name"] == "continual_accuracy") & (m["scope"] == "b")]["value"].iloc[-1]
    assert wc == pytest.approx(worst_case_accuracy(last_b, min_acc, 2))
    with pytest.raises(ConfigError, match="not one of the tasks"):
        mon.start_task("c")
    with pytest.raises(ConfigError, match="ContinualEval"):
        Monitor(net, console=None).start_task("a")


def test_rank_correlation_plain_and_granulated():
    grid = [(wd, frac) for wd in (0.0, 0.5, 1.0) for frac in (0.3, 0.5)]
    gap = [1 - wd / 2 - frac for wd, frac in grid]
    runs = pd.DataFrame({"wd": [g[0] for g in grid], "frac": [g[1] for g in grid], "gap": gap,
                         "good": [2 * v + 1 for v in gap], "bad": [-v for v in gap],
                         "wd_only": [-g[0] for g in grid]})
    table = gengap.analysis.measures.rank_correlation(runs, hyperparameters=["wd", "frac"]).set_index("measure")
    assert table.loc["good", "kendall_tau"] == pytest.approx(1.0)
    assert table.loc["bad", "kendall_tau"] == pytest.approx(-1.0)
    assert table.loc["good", "granulated_tau"] == pytest.approx(1.0)
    # wd_only follows the gap when wd changes and is constant when frac changes: psi_wd = 1, psi_frac undefined
    assert table.loc["wd_only", "psi_wd"] == pytest.approx(1.0)
    assert np.isnan(table.loc["wd_only", "psi_frac"])
    assert table.loc["wd_only", "granulated_tau"] == pytest.approx(1.0)
    with pytest.raises(ConfigError, match="no column 'gap'"):
        rank_correlation(runs.drop(columns="gap"))
    with pytest.raises(ConfigError, match="at least 3 runs"):
        rank_correlation(runs.head(2))
    with pytest.raises(ConfigError, match=r"\['lr'\]"):
        rank_correlation(runs, hyperparameters=["lr"])


def test_runs_table_reads_monitored_runs_from_the_store(tmp_path):
    path = tmp_path / "g.duckdb"
    for wd in (0.0, 0.1, 1.0):
        net = small_net()
        mon = Monitor(net, store=path, every=1, measures=["norms"], console=None,
                      config={"hyperparameters": {"wd": wd}})
        mon.step(loss=1.0)
        mon.log(gap_accuracy=wd)
        mon.close()
    runs = runs_table(path)
    assert runs["wd"].tolist() == [0.0, 0.1, 1.0] and runs["gap"].tolist() == [0.0, 0.1, 1.0]
    assert "param_norm" in runs.columns
