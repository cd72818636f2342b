"""The training-time Monitor: a plain PyTorch loop, the store, events, and bad input."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from gengap import ConfigError  # noqa: E402
from gengap.monitor import GrokkingDetector, Monitor  # noqa: E402
from gengap.monitor.grokking_demo import SETTINGS, train, write_outputs  # noqa: E402
from gengap.store import Store  # noqa: E402

torch.set_num_threads(1)


def random_label_task(n: int = 96, n_classes: int = 8, seed: int = 0):
    """Inputs with random labels: a network can memorize the train part; held-out stays at chance."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(2 * n, 16, generator=g)
    y = torch.randint(0, n_classes, (2 * n,), generator=g)
    return x[:n], y[:n], x[n:], y[n:]


def mlp(n_in: int = 16, n_out: int = 8, seed: int = 0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(n_in, 128), torch.nn.ReLU(), torch.nn.Linear(128, n_out))


def fit(mon, net, x, y, steps, lr=1e-2):
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    for _ in range(steps):
        loss = torch.nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        mon.step(loss=loss, batch=(x, y))


def test_plain_loop_stores_measures_and_flags_memorization(tmp_path):
    x_tr, y_tr, x_te, y_te = random_label_task()
    net = mlp()
    console = io.StringIO()
    mon = Monitor(net, store=tmp_path / "g.duckdb", run_name="memo", train_eval=(x_tr, y_tr),
                  heldout_eval=(x_te, y_te), every=10, console=console)
    fit(mon, net, x_tr, y_tr, 60, lr=3e-2)
    mon.close()
    assert mon.detector.memorized_at is not None and mon.detector.memorized_at <= 60
    assert mon.decision()[0] == "memorized"
    assert "memorized" in console.getvalue()
    with Store(tmp_path / "g.duckdb", read_only=True) as store:
        measures = store.measures(mon.run_id)
        events = store.events(mon.run_id)
        assert store.runs().set_index("run_id").loc[mon.run_id, "status"] == "done"
    names = set(measures["name"])
    assert {"batch_loss", "train_accuracy", "heldout_accuracy", "gap_accuracy", "distance_from_init",
            "layer_rotation", "param_norm", "margin"} <= names
    assert len(measures[measures["name"] == "batch_loss"]) == 60
    train_acc = measures[measures["name"] == "train_accuracy"].sort_values("step")["value"]
    assert train_acc.iloc[-1] == 1.0
    assert "memorized" in events["kind"].tolist()
    # per-layer rotation is stored with the layer's name as scope
    assert {"0.weight", "2.weight"} <= set(measures[measures["name"] == "layer_rotation"]["scope"])
    # distances grow from zero as training moves the weights
    dist = measures[measures["name"] == "distance_from_init"].sort_values("step")["value"].to_numpy()
    assert dist[0] > 0 and dist[-1] > dist[0]


def test_same_seed_same_measures():
    def once():
        x_tr, y_tr, x_te, y_te = random_label_task()
        net = mlp()
        mon = Monitor(net, train_eval=(x_tr, y_tr), heldout_eval=(x_te, y_te), every=10, console=None)
        fit(mon, net, x_tr, y_tr, 30)
        mon.close()
        return mon.measures
    a, b = once(), once()
    assert a.equals(b)


def test_detector_grokking_and_delay_from_logged_figures():
    net = mlp()
    mon = Monitor(net, every=1000, console=None, chance=0.1)
    mon.log(step=100, train_accuracy=0.5, heldout_accuracy=0.1)
    mon.log(step=200, train_accuracy=1.0, heldout_accuracy=0.12)
    events = mon.log(step=2000, train_accuracy=1.0, heldout_accuracy=0.95)
    assert [e.kind for e in mon.events] == ["memorized", "grokked"]
    assert events[0].kind == "grokked" and "1,800 steps" in events[0].message
    assert mon.detector.delay == 1800 and mon.decision()[0] == "grokked"


def test_detector_takes_train_and_heldout_figures_in_separate_calls():
    d = GrokkingDetector(chance=0.1)
    d.update(50, train_accuracy=1.0)
    events = d.update(50, heldout_accuracy=0.1)
    assert [e.kind for e in events] == ["memorized"] and "train accuracy 1.000" in events[0].message


def test_detector_ordinary_generalization_is_not_grokking():
    d = GrokkingDetector(chance=0.1)
    d.update(10, train_accuracy=0.6, heldout_accuracy=0.5)
    d.update(20, train_accuracy=1.0, heldout_accuracy=0.92)
    assert d.decision()[0] == "generalized" and d.grokked_at is None and d.memorized_at is None


def test_no_heldout_figures_cannot_decide_and_says_why(tmp_path):
    x_tr, y_tr, *_ = random_label_task()
    net = mlp()
    console = io.StringIO()
    mon = Monitor(net, store=tmp_path / "g.duckdb", train_eval=(x_tr, y_tr), every=10, console=console)
    fit(mon, net, x_tr, y_tr, 20)
    mon.close()
    verdict, reason = mon.decision()
    assert verdict == "undecided" and "no held-out figures" in reason and "heldout_eval=" in reason
    assert "undecided" in console.getvalue()
    with Store(tmp_path / "g.duckdb", read_only=True) as store:
        assert "undecided" in store.events(mon.run_id)["kind"].tolist()


def test_nan_losses_are_recorded_and_flagged_and_the_run_goes_on(tmp_path):
    x_tr, y_tr, x_te, y_te = random_label_task()
    net = mlp()
    console = io.StringIO()
    mon = Monitor(net, store=tmp_path / "g.duckdb", train_eval=(x_tr, y_tr), heldout_eval=(x_te, y_te),
                  every=5, console=console)
    for i in range(12):
        mon.step(loss=float("nan") if i in (3, 4, 7) else torch.tensor(1.0))
    mon.close()
    losses = mon.measures[mon.measures["name"] == "batch_loss"]["value"]
    assert len(losses) == 12 and int(losses.isna().sum()) == 3
    kinds = [e.kind for e in mon.events]
    assert kinds.count("nan_loss") == 1 and "nan_summary" in kinds
    assert "step 4" in console.getvalue()
    with Store(tmp_path / "g.duckdb", read_only=True) as store:
        assert store.runs().set_index("run_id").loc[mon.run_id, "status"] == "done"
        stored = store.measures(mon.run_id)
        assert int(stored[stored["name"] == "batch_loss"]["value"].isna().sum()) == 3


def test_frozen_and_shared_parameters():
    net = mlp()
    net[0].bias.requires_grad_(False)
    with pytest.warns(UserWarning, match=r"frozen.*0\.bias"):
        mon = Monitor(net, every=1, console=None)
    assert "0.bias" not in mon.params

    tied = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4))
    tied[1].weight = tied[0].weight
    mon = Monitor(tied, every=1, measures=["norms"], console=None)
    assert sorted(mon.params) == ["0.bias", "0.weight", "1.bias"]
    mon.step(loss=1.0)
    norms = mon.measures[mon.measures["name"] == "param_norm"].set_index("scope")["value"]
    expected = math.sqrt(sum(float(p.detach().norm()) ** 2 for p in (tied[0].weight, tied[0].bias, tied[1].bias)))
    assert norms[""] == pytest.approx(expected)

    for p in net.parameters():
        p.requires_grad_(False)
    with pytest.raises(ConfigError, match="no trainable floating-point parameters"), pytest.warns(UserWarning):
        Monitor(net, console=None)


def test_non_float_parameters_are_left_out_with_a_warning():
    class WithCounter(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 2)
            self.counter = torch.nn.Parameter(torch.tensor([1, 2, 3]), requires_grad=False)

        def forward(self, x):
            return self.lin(x)

    with pytest.warns(UserWarning, match="not floating point: counter"):
        mon = Monitor(WithCounter(), every=1, console=None)
    mon.step(loss=0.5, batch=(torch.randn(4, 3), torch.tensor([0, 1, 0, 1])))
    assert "counter" not in set(mon.measures["scope"])


@pytest.mark.parametrize("kwargs, match", [
    ({"every": 0}, "every"),
    ({"measures": ["sharpnes"]}, "Did you mean 'sharpness'"),
    ({"measures": "norms"}, "list of names"),
    ({"store": 3}, "store="),
])
def test_bad_parameters_name_the_parameter(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        Monitor(mlp(), console=None, **kwargs)


def test_not_a_module_is_refused():
    with pytest.raises(ConfigError, match="torch.nn.Module"):
        Monitor(object(), console=None)


def test_import_gengap_does_not_import_torch():
    code = "import sys, gengap, gengap.analysis.measures, gengap.monitor; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_grokking_demo_pipeline_on_a_small_table(tmp_path):
    settings = {**SETTINGS, "p": 13, "train_fraction": 0.5, "embedding_size": 16, "hidden_size": 64,
                "max_steps": 80, "every": 10, "expensive_every": 40, "max_seconds": 60.0}
    result = train(tmp_path, settings=settings, seed=0, console=None)
    result = write_outputs(tmp_path, {"demo": "grokking", **result})
    assert result["memorized_at_step"] is not None and result["final_train_accuracy"] == 1.0
    saved = json.loads((tmp_path / "results.json").read_text())
    for key in ("memorized_at_step", "grokked_at_step", "final_train_accuracy", "final_heldout_accuracy"):
        assert key in saved
    with Store(tmp_path / "gengap.duckdb", read_only=True) as store:
        names = set(store.measures(result["run_id"])["name"])
    assert {"sharpness", "gradient_coherence", "el2n_mean", "spectral_norm"} <= names
    if (tmp_path / "index.html").exists():  # the report package renders the curves
        assert "memorized" in (tmp_path / "index.html").read_text()
