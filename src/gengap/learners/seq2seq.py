"""A small sequence-to-sequence learner for any text-to-text task, trained on a CPU in minutes.

:class:`Seq2SeqLearner` follows scikit-learn's estimator conventions (``fit(inputs, targets)``,
``predict(inputs)``, ``get_params``/``set_params``, so ``sklearn.base.clone`` works), which makes
it a *learner* for :func:`gengap.evaluate`: the runner trains a fresh copy on each split's train
part. Inputs and targets are whitespace-tokenized; the vocabularies are built in ``fit``.

torch is imported only when a learner is fitted (``pip install torch``).

>>> import gengap
>>> from gengap.learners import Seq2SeqLearner
>>> learner = Seq2SeqLearner(epochs=3, hidden_size=32, progress=False)
>>> gengap.as_model(learner).needs_fit
True
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from gengap._errors import ConfigError, DataError, MissingDependency
from gengap._progress import progress as progress_bar
from gengap._threads import one_torch_thread

__all__ = ["Seq2SeqLearner"]

_SPECIALS = ("<pad>", "<unk>", "<bos>", "<eos>")
_PAD, _UNK, _BOS, _EOS = range(4)


def _import_torch() -> Any:
    try:
        import torch
    except ImportError:
        raise MissingDependency("torch", "torch", "The seq2seq learner") from None
    return torch


class _Params:
    """get_params / set_params / repr from the constructor's signature, as scikit-learn estimators have."""

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values()
                if p.name != "self" and p.kind != p.VAR_KEYWORD]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters and their values."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> _Params:
        """Set constructor parameters by name; returns self."""
        from gengap._specs import set_params

        set_params(self, self._param_names(), params)
        return self

    def __repr__(self) -> str:
        sig = inspect.signature(type(self).__init__)
        shown = [f"{k}={v!r}" for k, v in self.get_params().items() if v != sig.parameters[k].default]
        return f"{type(self).__name__}({', '.join(shown)})"


class Seq2SeqLearner(_Params):
    """An encoder-decoder network for text-to-text tasks, scikit-learn style.

    Parameters
    ----------
    arch : ``"gru"``: a bidirectional GRU encoder and a GRU decoder with attention (the kind of
        baseline Lake & Baroni 2018 trained; the decoder has a second GRU that reads the attention
        context); ``"transformer"``: a small pre-norm encoder-decoder Transformer.
    embedding_size : token embedding size (GRU; the Transformer uses ``hidden_size``).
    hidden_size : GRU state size, or the Transformer's model width.
    num_layers : recurrent layers (GRU) or encoder and decoder layers each (Transformer).
    num_heads : attention heads (Transformer).
    dropout : dropout on embeddings and before the output layer.
    epochs : passes over the training data.
    batch_size : examples per gradient step; batches group examples of similar length.
    learning_rate : Adam's peak learning rate; it warms up over the first 3% of the steps and
        decays on a cosine to 5% of the peak at the last planned step.
    max_steps : stop after this many gradient steps (None: ``epochs`` decide).
    max_time : stop training after this many seconds (None: no limit). A time limit makes the
        result depend on the machine's speed, unlike the other settings.
    max_output_length : longest output ``predict`` generates (None: twice the longest training
        target plus 10 tokens).
    seed : seed of initialization, dropout and batch order; the same seed and data give
        the same predictions.
    progress : show a progress bar with the running loss (None: when stderr is a terminal).

    Notes
    -----
    Training uses full teacher forcing, so a whole target sequence is one batched recurrent pass;
    decoding is batched greedy search. Fitted attributes end in ``_``: ``source_vocab_``,
    ``target_vocab_``, ``network_``, ``n_steps_``, ``losses_`` (mean loss per epoch) and
    ``train_seconds_``. Training and prediction run on one torch thread, whatever
    ``torch.set_num_threads`` says: a network this small gains little from more, loses much when the
    machine's cores are busy with other work, and one thread adds its sums in the same order on
    every machine, so the same seed gives the same numbers. :func:`gengap.evaluate` uses more cores
    by training the learners of several splits side by side (``threads``, an execution setting).

    Examples
    --------
    >>> pairs = {"walk twice": "WALK WALK", "jump": "JUMP", "walk": "WALK", "jump twice": "JUMP JUMP"}
    >>> learner = Seq2SeqLearner(hidden_size=16, embedding_size=8, epochs=2, progress=False)
    >>> learner.fit(list(pairs), list(pairs.values())).n_steps_
    2
    >>> len(learner.predict(["jump twice", "run"]))  # unseen words are read as <unk>
    2
    """

    def __init__(
        self,
        arch: Literal["gru", "transformer"] = "gru",
        *,
        embedding_size: int = 64,
        hidden_size: int = 128,
        num_layers: int = 1,
        num_heads: int = 4,
        dropout: float = 0.1,
        epochs: int = 10,
        batch_size: int = 64,
        learning_rate: float = 3e-3,
        max_steps: int | None = None,
        max_time: float | None = None,
        max_output_length: int | None = None,
        seed: int | None = 0,
        progress: bool | None = None,
    ) -> None:
        self.arch = arch
        self.embedding_size = embedding_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.num_heads = num_heads
        self.dropout = dropout
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.max_steps = max_steps
        self.max_time = max_time
        self.max_output_length = max_output_length
        self.seed = seed
        self.progress = progress

    # ------------------------------------------------------------------ validation
    def _check_params(self) -> None:
        if self.arch not in ("gru", "transformer"):
            raise ConfigError(f"Seq2SeqLearner: arch={self.arch!r} must be 'gru' or 'transformer'.")
        for name in ("embedding_size", "hidden_size", "num_layers", "num_heads", "epochs", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"Seq2SeqLearner: {name}={value!r} must be a positive integer.")
        for name in ("max_steps", "max_output_length"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, (int, np.integer)) or value < 1):
                raise ConfigError(f"Seq2SeqLearner: {name}={value!r} must be a positive integer or None.")
        if self.max_time is not None and not (isinstance(self.max_time, (int, float)) and self.max_time > 0):
            raise ConfigError(f"Seq2SeqLearner: max_time={self.max_time!r} must be a positive number of seconds or None.")
        if not (isinstance(self.dropout, (int, float)) and 0 <= self.dropout < 1):
            raise ConfigError(f"Seq2SeqLearner: dropout={self.dropout!r} must be in [0, 1).")
        if not (isinstance(self.learning_rate, (int, float)) and self.learning_rate > 0):
            raise ConfigError(f"Seq2SeqLearner: learning_rate={self.learning_rate!r} must be positive.")
        if self.arch == "transformer" and self.hidden_size % self.num_heads:
            raise ConfigError(
                f"Seq2SeqLearner: hidden_size={self.hidden_size} must be a multiple of num_heads={self.num_heads} "
                "for the Transformer."
            )

    # ------------------------------------------------------------------ text <-> ids
    @staticmethod
    def _tokens(values: Sequence[Any], role: str) -> list[list[str]]:
        out = []
        for i, value in enumerate(values):
            if not isinstance(value, str):
                raise DataError(f"Seq2SeqLearner: {role} {i} is a {type(value).__name__} ({value!r}); it needs text.")
            out.append(value.split())
        return out

    @staticmethod
    def _vocab(sequences: list[list[str]]) -> dict[str, int]:
        vocab = {tok: i for i, tok in enumerate(_SPECIALS)}
        for tok in sorted({t for seq in sequences for t in seq}):
            vocab.setdefault(tok, len(vocab))
        return vocab

    @staticmethod
    def _pad(rows: list[list[int]], torch: Any) -> Any:
        width = max(1, max(len(r) for r in rows))
        out = np.zeros((len(rows), width), dtype=np.int64)
        for i, r in enumerate(rows):
            out[i, : len(r)] = r
        return torch.from_numpy(out)

    def _encode_inputs(self, tokens: list[list[str]]) -> list[list[int]]:
        vocab = self.source_vocab_
        return [[vocab.get(t, _UNK) for t in seq] or [_UNK] for seq in tokens]

    # ------------------------------------------------------------------ training
    def _build(self, torch: Any) -> Any:
        from gengap.learners import _nets

        n_src, n_tgt = len(self.source_vocab_), len(self.target_vocab_)
        if self.arch == "gru":
            return _nets.GRUAttention(n_src, n_tgt, embedding_size=self.embedding_size, hidden_size=self.hidden_size,
                                      num_layers=self.num_layers, dropout=self.dropout)
        longest = max(self.max_input_length_, self._decode_length()) + 2
        return _nets.Transformer(n_src, n_tgt, d_model=self.hidden_size, num_heads=self.num_heads,
                                 num_layers=self.num_layers, dropout=self.dropout, max_positions=max(256, longest))

    def _decode_length(self) -> int:
        return int(self.max_output_length or 2 * self.max_target_length_ + 10)

    def _batches(self, src_lens: np.ndarray, tgt_lens: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
        """One epoch of batches: shuffled, then sorted by length within pools of 50 batches, then shuffled again."""
        order = rng.permutation(len(src_lens))
        pool = self.batch_size * 50
        batches = []
        for start in range(0, len(order), pool):
            chunk = order[start:start + pool]
            chunk = chunk[np.lexsort((src_lens[chunk], tgt_lens[chunk]))]
            batches += [chunk[i:i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
        return [batches[i] for i in rng.permutation(len(batches))]

    def fit(self, inputs: Sequence[Any], targets: Sequence[Any]) -> Seq2SeqLearner:
        """Train on pairs of texts; returns self.

        Parameters
        ----------
        inputs, targets : sequences of strings of the same length (whitespace-tokenized).
        """
        self._check_params()
        torch = _import_torch()
        inputs, targets = list(inputs), list(targets)
        if len(inputs) != len(targets):
            raise DataError(f"Seq2SeqLearner.fit got {len(inputs)} inputs and {len(targets)} targets; they must pair up.")
        if not inputs:
            raise DataError("Seq2SeqLearner.fit got no examples; the train part is empty.")
        src_tokens, tgt_tokens = self._tokens(inputs, "input"), self._tokens(targets, "target")
        self.source_vocab_ = self._vocab(src_tokens)
        self.target_vocab_ = self._vocab(tgt_tokens)
        self.target_words_ = list(self.target_vocab_)
        self.max_input_length_ = max(len(s) for s in src_tokens)
        self.max_target_length_ = max(len(t) for t in tgt_tokens)
        src_ids = self._encode_inputs(src_tokens)
        tgt_ids = [[self.target_vocab_[t] for t in seq] + [_EOS] for seq in tgt_tokens]
        src_lens = np.array([len(s) for s in src_ids])
        tgt_lens = np.array([len(t) for t in tgt_ids])

        seed = self.seed if self.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
        rng = np.random.default_rng(seed)
        steps_per_epoch = math.ceil(len(src_ids) / self.batch_size)
        total = self.epochs * steps_per_epoch if self.max_steps is None else min(self.max_steps, self.epochs * steps_per_epoch)
        warmup = max(1, int(0.03 * total))

        def schedule(step: int) -> float:
            if step < warmup:
                return (step + 1) / warmup
            done = (step - warmup) / max(1, total - warmup)
            return 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(1.0, done)))

        started = time.perf_counter()
        with torch.random.fork_rng(devices=[]), one_torch_thread(torch):
            torch.manual_seed(seed)
            net = self._build(torch)
            optimizer = torch.optim.Adam(net.parameters(), lr=self.learning_rate)
            scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
            loss_fn = torch.nn.CrossEntropyLoss(ignore_index=_PAD)
            net.train()
            step, losses, stopped = 0, [], False
            with progress_bar(f"training {self.arch}", total=total, enabled=self.progress) as bar:
                for _epoch in range(self.epochs):
                    epoch_loss, epoch_batches = 0.0, 0
                    for batch in self._batches(src_lens, tgt_lens, rng):
                        src = self._pad([src_ids[i] for i in batch], torch)
                        tgt = self._pad([tgt_ids[i] for i in batch], torch)
                        tgt_in = torch.cat([torch.full((len(batch), 1), _BOS, dtype=torch.long), tgt[:, :-1]], dim=1)
                        tgt_in = tgt_in.masked_fill(tgt_in == _EOS, _PAD)
                        logits = net(src, torch.from_numpy(src_lens[batch]), tgt_in)
                        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))
                        optimizer.zero_grad(set_to_none=True)
                        loss.backward()
                        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
                        optimizer.step()
                        scheduler.step()
                        step += 1
                        epoch_loss += float(loss.detach())
                        epoch_batches += 1
                        bar.advance(1)
                        if step % 20 == 0:
                            bar.update(info=f"ep {_epoch + 1}/{self.epochs} loss {epoch_loss / epoch_batches:.3f}")
                        if step >= total or (self.max_time is not None and time.perf_counter() - started > self.max_time):
                            stopped = True
                            break
                    losses.append(epoch_loss / max(1, epoch_batches))
                    if stopped:
                        break
        net.eval()
        self.network_ = net
        self.n_steps_ = step
        self.losses_ = losses
        self.train_seconds_ = time.perf_counter() - started
        return self

    # ------------------------------------------------------------------ prediction
    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "network_")

    def predict(self, inputs: Sequence[Any], *, batch_size: int = 256) -> list[str]:
        """Greedy outputs for ``inputs``, one string per input, in order.

        Parameters
        ----------
        inputs : sequence of strings.
        batch_size : inputs decoded together.
        """
        if not hasattr(self, "network_"):
            raise ConfigError("This Seq2SeqLearner is not fitted yet: call fit(inputs, targets) first.")
        torch = _import_torch()
        inputs = list(inputs)
        if not inputs:
            return []
        src_ids = self._encode_inputs(self._tokens(inputs, "input"))
        positions = getattr(self.network_, "pos", None)
        if positions is not None:  # the Transformer knows a fixed number of positions
            src_ids = [ids[: positions.shape[0]] for ids in src_ids]
        order = np.argsort([len(s) for s in src_ids], kind="stable")
        words = self.target_words_
        outputs: list[str] = [""] * len(inputs)
        max_len = self._decode_length()
        with torch.inference_mode(), one_torch_thread(torch):
            for start in range(0, len(order), batch_size):
                batch = order[start:start + batch_size]
                src = self._pad([src_ids[i] for i in batch], torch)
                lens = torch.tensor([len(src_ids[i]) for i in batch])
                ids = self.network_.greedy(src, lens, max_len, _BOS, _EOS).tolist()
                for i, row in zip(batch, ids):
                    toks = []
                    for t in row:
                        if t == _EOS or t == _PAD:
                            break
                        toks.append(words[t])
                    outputs[i] = " ".join(toks)
        return outputs
