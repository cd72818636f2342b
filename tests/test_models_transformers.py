"""The transformers adapter on tiny randomly initialised models built here (nothing is downloaded)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

import gengap  # noqa: E402
from gengap._errors import ConfigError, ModelError  # noqa: E402
from gengap.models.transformers import TransformersModel  # noqa: E402

WORDS = ["<pad>", "<eos>", "<unk>", *"abcdefgh", "+", "="]
INPUTS = ["a b c", "d", "e f g h a b", "c c", "h g + a ="]


def word_tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers

    raw = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return transformers.PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")


@pytest.fixture(scope="module")
def gpt2():
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=len(WORDS), n_layer=2, n_embd=32, n_head=2, n_positions=64,
                                     bos_token_id=1, eos_token_id=1)
    return transformers.GPT2LMHeadModel(config).eval(), word_tokenizer()


@pytest.fixture(scope="module")
def t5():
    torch.manual_seed(0)
    config = transformers.T5Config(vocab_size=len(WORDS), d_model=32, d_ff=64, d_kv=16, num_layers=2, num_heads=2,
                                   pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    return transformers.T5ForConditionalGeneration(config).eval(), word_tokenizer()


def greedy_causal(model, tok, text, steps):
    """Greedy decoding by hand, one input, no padding: the reference the batched adapter must match."""
    ids = tok(text, return_tensors="pt")["input_ids"]
    out = []
    with torch.no_grad():
        for _ in range(steps):
            nxt = int(model(input_ids=ids).logits[0, -1].argmax())
            if nxt == tok.eos_token_id:
                break
            out.append(nxt)
            ids = torch.cat([ids, torch.tensor([[nxt]])], dim=1)
    return tok.decode(out, skip_special_tokens=True).strip()


def greedy_seq2seq(model, tok, text, steps):
    enc = tok(text, return_tensors="pt")["input_ids"]
    dec = torch.tensor([[model.config.decoder_start_token_id]])
    out = []
    with torch.no_grad():
        for _ in range(steps):
            nxt = int(model(input_ids=enc, decoder_input_ids=dec).logits[0, -1].argmax())
            if nxt == tok.eos_token_id:
                break
            out.append(nxt)
            dec = torch.cat([dec, torch.tensor([[nxt]])], dim=1)
    return tok.decode(out, skip_special_tokens=True).strip()


def test_causal_batched_equals_greedy_by_hand(gpt2):
    model, tok = gpt2
    adapter = TransformersModel(model, tok, max_new_tokens=5, batch_size=3)
    answers = adapter.predict(INPUTS)
    assert answers == [greedy_causal(model, tok, x, 5) for x in INPUTS]
    assert answers == [adapter.predict([x])[0] for x in INPUTS]
    assert any(answers) and not adapter.is_encoder_decoder


def test_seq2seq_batched_equals_greedy_by_hand(t5):
    model, tok = t5
    adapter = TransformersModel(model, tok, max_new_tokens=4, batch_size=2)
    answers = adapter.predict(INPUTS)
    assert adapter.is_encoder_decoder
    assert answers == [greedy_seq2seq(model, tok, x, 4) for x in INPUTS]


def test_prompt_template_is_applied(gpt2):
    model, tok = gpt2
    adapter = TransformersModel(model, tok, max_new_tokens=3, prompt="{input} =")
    assert adapter.predict(["a b"]) == [greedy_causal(model, tok, "a b =", 3)]


def test_from_pretrained_folder_matches_in_memory(gpt2, t5, tmp_path):
    for (model, tok), sub in ((gpt2, "gpt"), (t5, "t5")):
        model.save_pretrained(tmp_path / sub)
        tok.save_pretrained(tmp_path / sub)
        loaded = TransformersModel.from_pretrained(tmp_path / sub, max_new_tokens=4)
        assert loaded.name == sub and loaded.is_encoder_decoder == (sub == "t5")
        assert loaded.predict(INPUTS) == TransformersModel(model, tok, max_new_tokens=4).predict(INPUTS)
        assert loaded.fingerprint() == TransformersModel.from_pretrained(tmp_path / sub, max_new_tokens=4).fingerprint()


def test_fingerprint_follows_weights_and_settings(gpt2):
    model, tok = gpt2
    a = TransformersModel(model, tok, max_new_tokens=4)
    assert a.fingerprint() == TransformersModel(model, tok, max_new_tokens=4).fingerprint()
    assert a.fingerprint() != TransformersModel(model, tok, max_new_tokens=5).fingerprint()
    other = transformers.GPT2LMHeadModel(model.config)
    assert TransformersModel(other, tok, max_new_tokens=4).fingerprint() != a.fingerprint()


def test_runs_through_evaluate(gpt2, tmp_path):
    model, tok = gpt2
    adapter = TransformersModel(model, tok, max_new_tokens=3, name="tiny-gpt2")
    expected = adapter.predict(INPUTS * 4)
    ds = gengap.load([{"input": x, "target": y} for x, y in zip(INPUTS * 4, expected)])
    ev = gengap.evaluate(adapter, ds, ["random"], out=tmp_path, progress=False)
    assert ev.summary()["score"].tolist() == [1.0]


def test_bad_arguments(gpt2, tmp_path):
    model, tok = gpt2
    with pytest.raises(ConfigError, match="must contain '\\{input\\}'"):
        TransformersModel(model, tok, prompt="question:")
    with pytest.raises(ConfigError, match="max_new_tokens=0"):
        TransformersModel(model, tok, max_new_tokens=0)
    with pytest.raises(ConfigError, match="PreTrainedModel"):
        TransformersModel(object(), tok)
    with pytest.raises(ConfigError, match="no config.json"):
        TransformersModel.from_pretrained(tmp_path)
    with pytest.raises(ModelError, match="input 0 is a int"):
        TransformersModel(model, tok).predict([3])
