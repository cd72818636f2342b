"""The PyTorch module adapter: encode/decode and generate forms, devices, eval mode, fingerprints."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import gengap  # noqa: E402
from gengap._errors import ConfigError, ModelError  # noqa: E402
from gengap.models.torch_module import TorchModel  # noqa: E402
from gengap.tasks import generate  # noqa: E402


class ParityNet(torch.nn.Module):
    """Exact parity of a bit vector: the sum mod 2, written as a network with a dropout that eval() turns off."""

    def __init__(self):
        super().__init__()
        self.drop = torch.nn.Dropout(0.9)
        self.scale = torch.nn.Parameter(torch.ones(1))

    def forward(self, bits, mask):
        return torch.remainder((self.drop(bits * self.scale) * mask).sum(dim=1), 2)


def encode(batch):
    rows = [[int(b) for b in x.split()] for x in batch]
    width = max(len(r) for r in rows)
    bits = torch.tensor([r + [0] * (width - len(r)) for r in rows], dtype=torch.float32)
    mask = torch.tensor([[1.0] * len(r) + [0.0] * (width - len(r)) for r in rows])
    return bits, mask


def decode(out):
    return [str(int(round(v))) for v in out.tolist()]


def test_encode_decode_exact_on_parity_through_evaluate(tmp_path):
    net = ParityNet().train()
    model = TorchModel(net, encode=encode, decode=decode, name="parity-net")
    ds = generate("parity", seed=0, n=400, max_length=16)
    assert model.predict(ds.inputs) == ds.targets
    assert net.training  # the adapter restores the module's mode
    ev = gengap.evaluate(model, ds, ["random", "length:by=length,max_train_length=8"], out=tmp_path, progress=False)
    assert ev.summary()["score"].tolist() == [1.0, 1.0]


def test_dict_inputs_and_generate_form():
    net = ParityNet()
    model = TorchModel(net, encode=lambda b: dict(zip(("bits", "mask"), encode(b))), decode=decode)
    assert model.predict(["1 1 1", "1 0"]) == ["1", "1"]

    def greedy(module, batch):
        return ["odd" if v == "1" else "even" for v in decode(module(*encode(batch)))]

    assert TorchModel(net, generate=greedy).predict(["1 1", "0 1 0"]) == ["even", "odd"]


def test_fingerprint_follows_weights():
    net = ParityNet()
    a = TorchModel(net, encode=encode, decode=decode)
    before = a.fingerprint()
    assert before == TorchModel(net, encode=encode, decode=decode).fingerprint()
    with torch.no_grad():
        net.scale.add_(1.0)
    after = TorchModel(net, encode=encode, decode=decode).fingerprint()
    assert after != before
    assert a.fingerprint() == after  # the same adapter follows the weights trained further: no stale cache


def test_errors_name_the_fix():
    net = ParityNet()
    with pytest.raises(ConfigError, match="either generate"):
        TorchModel(net, encode=encode)
    with pytest.raises(ConfigError, match="not both"):
        TorchModel(net, encode=encode, decode=decode, generate=lambda m, b: b)
    with pytest.raises(ConfigError, match="torch.nn.Module"):
        TorchModel(lambda x: x, generate=lambda m, b: b)
    with pytest.raises(ModelError, match="3 inputs gave 1 outputs"):
        TorchModel(net, generate=lambda m, b: ["x"]).predict(["1", "0", "1"])
