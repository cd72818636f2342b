"""Hugging Face transformers models as gengap models: batched greedy generation, causal or seq2seq.

``TransformersModel(model, tokenizer)`` wraps a model already in memory;
``TransformersModel.from_pretrained(path)`` loads one from a local folder (never from the network).
Encoder-decoder models (T5, BART, ...) answer with their decoder's output; causal LMs (GPT-2,
Llama, ...) continue the prompt, and only the continuation is returned. Prompts are padded on
the left for causal LMs, so every row of a batch continues from its last real token and a batched
answer equals the answer the model gives to that input alone.

>>> import torch, transformers
>>> from transformers import GPT2Config, GPT2LMHeadModel
>>> tok = _letters_tokenizer_for_doctest()
>>> _ = torch.manual_seed(0)
>>> lm = GPT2LMHeadModel(GPT2Config(vocab_size=len(tok), n_layer=1, n_embd=16, n_head=2, n_positions=64))
>>> model = TransformersModel(lm, tok, max_new_tokens=3, name="tiny")
>>> answers = model.predict(["a b", "c"])
>>> len(answers), all(isinstance(a, str) for a in answers)
(2, True)
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gengap._errors import ConfigError, ModelError
from gengap._optional import require
from gengap.models._base import Model

__all__ = ["TransformersModel"]


def _import_transformers() -> Any:
    return require("transformers", extra="hf", purpose="The Hugging Face transformers adapter")


def _letters_tokenizer_for_doctest() -> Any:
    """A tiny word-level tokenizer over a few letters (for the module's example)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {t: i for i, t in enumerate(["<pad>", "<eos>", "<unk>", "a", "b", "c", "d"])}
    raw = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")


class TransformersModel(Model):
    """A transformers model and its tokenizer, answering batches with greedy decoding.

    Parameters
    ----------
    model : a ``PreTrainedModel`` with ``generate`` (causal LM or encoder-decoder).
    tokenizer : its tokenizer. A tokenizer without a pad token uses its end-of-sequence token.
    max_new_tokens : longest answer, in tokens.
    prompt : a template with ``{input}`` that turns an input into the text the model sees.
    batch_size : inputs per ``generate`` call (the runner's batches are cut to this size).
    name : how the model appears in reports (default: the model's name or path).
    generate_kwargs : further options for ``model.generate`` (``num_beams``, ...); sampling is off.
    """

    can_sample = False
    sample_note = "it decodes greedily (sampling is off), so every answer to an input is the same"

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        max_new_tokens: int = 32,
        prompt: str = "{input}",
        batch_size: int = 16,
        name: str | None = None,
        generate_kwargs: dict[str, Any] | None = None,
    ) -> None:
        _import_transformers()
        if not hasattr(model, "generate") or not hasattr(model, "config"):
            raise ConfigError(f"TransformersModel: model must be a transformers PreTrainedModel with generate(), got "
                              f"{type(model).__name__}.")
        if not callable(tokenizer):
            raise ConfigError(f"TransformersModel: tokenizer must be a transformers tokenizer, got {type(tokenizer).__name__}.")
        if not isinstance(max_new_tokens, int) or max_new_tokens < 1:
            raise ConfigError(f"TransformersModel: max_new_tokens={max_new_tokens!r} must be a positive integer.")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"TransformersModel: batch_size={batch_size!r} must be a positive integer.")
        if "{input}" not in prompt:
            raise ConfigError(f"TransformersModel: prompt={prompt!r} must contain '{{input}}' where the input goes.")
        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        self.prompt = prompt
        self.batch_size = batch_size
        self.generate_kwargs = dict(generate_kwargs or {})
        self.is_encoder_decoder = bool(getattr(model.config, "is_encoder_decoder", False))
        self.name = name or getattr(model.config, "name_or_path", "") or type(model).__name__
        self.source: str | None = None
        if tokenizer.pad_token is None:
            if tokenizer.eos_token is None:
                raise ConfigError("TransformersModel: the tokenizer has neither a pad token nor an end-of-sequence token; "
                                  "set tokenizer.pad_token first.")
            tokenizer.pad_token = tokenizer.eos_token
        self._fingerprint: str | None = None

    @classmethod
    def from_pretrained(cls, path: str | os.PathLike[str], **options: Any) -> TransformersModel:
        """Load a model and tokenizer saved with ``save_pretrained`` in a local folder (no download).

        The model class is chosen from the folder's config: a seq2seq LM for encoder-decoder
        configs, else a causal LM. ``options`` go to the constructor.
        """
        transformers = _import_transformers()
        folder = Path(path)
        if not (folder / "config.json").is_file():
            raise ConfigError(f"'{folder}' is not a saved transformers model (no config.json there). Pass the folder "
                              "written by model.save_pretrained(...) and tokenizer.save_pretrained(...).")
        try:
            config = transformers.AutoConfig.from_pretrained(folder, local_files_only=True)
            auto = transformers.AutoModelForSeq2SeqLM if getattr(config, "is_encoder_decoder", False) \
                else transformers.AutoModelForCausalLM
            model = auto.from_pretrained(folder, local_files_only=True)
            tokenizer = transformers.AutoTokenizer.from_pretrained(folder, local_files_only=True)
        except (OSError, ValueError) as e:
            raise ConfigError(f"Could not load the transformers model in '{folder}': {e}") from None
        options.setdefault("name", folder.name)
        out = cls(model, tokenizer, **options)
        out.source = str(folder.resolve())
        return out

    # ------------------------------------------------------------------ prediction
    def _generate(self, texts: list[str]) -> list[str]:
        import torch

        tok = self.tokenizer
        side = tok.padding_side
        tok.padding_side = "right" if self.is_encoder_decoder else "left"
        try:
            enc = tok(texts, return_tensors="pt", padding=True)
        finally:
            tok.padding_side = side
        enc = {k: v.to(self.model.device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}
        kwargs = {"max_new_tokens": self.max_new_tokens, "do_sample": False, "num_beams": 1,
                  "pad_token_id": tok.pad_token_id, **self.generate_kwargs}
        if tok.eos_token_id is not None:
            kwargs.setdefault("eos_token_id", tok.eos_token_id)
        with torch.inference_mode():
            out = self.model.generate(**enc, **kwargs)
        if not self.is_encoder_decoder:
            out = out[:, enc["input_ids"].shape[1]:]
        return [t.strip() for t in tok.batch_decode(out, skip_special_tokens=True)]

    def predict(self, inputs: Sequence[Any]) -> list[str]:
        texts = []
        for i, x in enumerate(inputs):
            if not isinstance(x, str):
                raise ModelError(f"TransformersModel '{self.name}': input {i} is a {type(x).__name__}; it needs text.")
            texts.append(self.prompt.format(input=x))
        was_training = self.model.training
        self.model.eval()
        try:
            answers: list[str] = []
            for start in range(0, len(texts), self.batch_size):
                answers += self._generate(texts[start:start + self.batch_size])
        finally:
            self.model.train(was_training)
        return answers

    def fingerprint(self) -> str:
        """Weights (or the saved files of a loaded folder), tokenizer vocabulary and generation settings."""
        from gengap.models.torch_module import weights_state

        state = weights_state(self.model) if self.source is None else None
        if self._fingerprint is None or state != getattr(self, "_state", None):
            self._state = state
            settings = f"{self.name}:{self.prompt}:{self.max_new_tokens}:{sorted(self.generate_kwargs.items())}"
            h = hashlib.sha256(settings.encode())
            if self.source is not None:
                for f in sorted(Path(self.source).iterdir()):
                    st = f.stat()
                    h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns}".encode())
            else:
                from gengap.models.torch_module import weights_fingerprint

                h.update(weights_fingerprint(self.model).encode())
            h.update(repr(sorted(self.tokenizer.get_vocab().items())).encode())
            self._fingerprint = h.hexdigest()[:16]
        return self._fingerprint

    def __repr__(self) -> str:
        kind = "seq2seq" if self.is_encoder_decoder else "causal"
        return f"TransformersModel(name={self.name!r}, {kind}, max_new_tokens={self.max_new_tokens})"
