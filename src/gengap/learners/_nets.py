"""The networks behind :class:`~gengap.learners.Seq2SeqLearner` (this module imports torch).

Both networks take padded id tensors (0 is padding) and share one interface:
``forward(src, src_len, tgt_in) -> logits`` for teacher-forced training, and
``greedy(src, src_len, max_len, bos, eos) -> ids`` for batched greedy decoding.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

PAD = 0


def _allowed(logits: torch.Tensor, bos: int) -> torch.Tensor:
    """Logits with padding and the start token ruled out: neither is ever a next token."""
    logits = logits.clone()
    logits[..., PAD] = float("-inf")
    logits[..., bos] = float("-inf")
    return logits


class GRUAttention(nn.Module):
    """A bidirectional GRU encoder and a two-level GRU decoder with bilinear (Luong "general") attention.

    The lower decoder GRU reads the previous target token; its state queries the encoder; the upper
    GRU reads that state with the attention context, so its recurrence remembers where it attended
    (what input feeding gives, without a step-by-step loop). The output reads the upper state with a
    second attention. Neither recurrence reads the network's own outputs, so a teacher-forced pass
    is two calls of ``nn.GRU`` over the whole target plus batched attention.
    """

    def __init__(self, n_src: int, n_tgt: int, *, embedding_size: int, hidden_size: int, num_layers: int, dropout: float) -> None:
        super().__init__()
        if hidden_size % 2:
            hidden_size += 1
        self.num_layers = num_layers
        self.src_embed = nn.Embedding(n_src, embedding_size, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(n_tgt, embedding_size, padding_idx=PAD)
        inner = dropout if num_layers > 1 else 0.0
        self.encoder = nn.GRU(embedding_size, hidden_size // 2, num_layers, batch_first=True, bidirectional=True, dropout=inner)
        self.lower = nn.GRU(embedding_size, hidden_size, num_layers, batch_first=True, dropout=inner)
        self.upper = nn.GRU(2 * hidden_size, hidden_size, 1, batch_first=True)
        self.query = nn.Linear(hidden_size, hidden_size, bias=False)
        self.combine = nn.Linear(2 * hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, n_tgt)
        self.drop = nn.Dropout(dropout)

    def encode(self, src: torch.Tensor, src_len: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        packed = pack_padded_sequence(self.drop(self.src_embed(src)), src_len.cpu(), batch_first=True, enforce_sorted=False)
        memory, h = self.encoder(packed)
        memory, _ = pad_packed_sequence(memory, batch_first=True, total_length=src.shape[1])
        # h: (layers * 2, B, H/2) -> (layers, B, H), forward and backward halves side by side
        h = h.view(self.num_layers, 2, h.shape[1], h.shape[2]).transpose(1, 2).reshape(self.num_layers, h.shape[1], -1)
        return memory, h.contiguous()

    def _context(self, state: torch.Tensor, memory: torch.Tensor, src_mask: torch.Tensor) -> torch.Tensor:
        scores = torch.bmm(self.query(state), memory.transpose(1, 2))  # (B, T, S)
        scores = scores.masked_fill(~src_mask.unsqueeze(1), float("-inf"))
        return torch.bmm(torch.softmax(scores, dim=-1), memory)

    def _step(self, emb: torch.Tensor, h: torch.Tensor, h_top: torch.Tensor, memory: torch.Tensor,
              mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        low, h = self.lower(emb, h)
        top, h_top = self.upper(torch.cat([low, self._context(low, memory, mask)], dim=-1), h_top)
        mixed = torch.tanh(self.combine(torch.cat([top, self._context(top, memory, mask)], dim=-1)))
        return self.out(self.drop(mixed)), h, h_top

    def forward(self, src: torch.Tensor, src_len: torch.Tensor, tgt_in: torch.Tensor) -> torch.Tensor:
        memory, h = self.encode(src, src_len)
        logits, _, _ = self._step(self.drop(self.tgt_embed(tgt_in)), h, h[-1:].contiguous(), memory, src != PAD)
        return logits

    @torch.no_grad()
    def greedy(self, src: torch.Tensor, src_len: torch.Tensor, max_len: int, bos: int, eos: int) -> torch.Tensor:
        memory, h = self.encode(src, src_len)
        mask = src != PAD
        h_top = h[-1:].contiguous()
        token = torch.full((src.shape[0], 1), bos, dtype=torch.long)
        done = torch.zeros(src.shape[0], dtype=torch.bool)
        out = []
        for _ in range(max_len):
            logits, h, h_top = self._step(self.tgt_embed(token), h, h_top, memory, mask)
            token = _allowed(logits, bos).argmax(-1).masked_fill(done.unsqueeze(1), PAD)
            out.append(token)
            done |= token.squeeze(1) == eos
            if bool(done.all()):
                break
        return torch.cat(out, dim=1)


def _positions(length: int, size: int) -> torch.Tensor:
    pos = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    freq = torch.exp(torch.arange(0, size, 2, dtype=torch.float32) * (-math.log(10000.0) / size))
    table = torch.zeros(length, size)
    table[:, 0::2] = torch.sin(pos * freq)
    table[:, 1::2] = torch.cos(pos * freq[: size // 2])
    return table


class Transformer(nn.Module):
    """A small encoder-decoder Transformer (pre-norm) with sinusoidal positions."""

    def __init__(self, n_src: int, n_tgt: int, *, d_model: int, num_heads: int, num_layers: int, dropout: float,
                 max_positions: int = 1024) -> None:
        super().__init__()
        self.d_model = d_model
        self.src_embed = nn.Embedding(n_src, d_model, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(n_tgt, d_model, padding_idx=PAD)
        self.register_buffer("pos", _positions(max_positions, d_model), persistent=False)
        layer = dict(d_model=d_model, nhead=num_heads, dim_feedforward=4 * d_model, dropout=dropout,
                     batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(**layer), num_layers,
                                             norm=nn.LayerNorm(d_model), enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(**layer), num_layers, norm=nn.LayerNorm(d_model))
        self.out = nn.Linear(d_model, n_tgt)

    def _embed(self, table: nn.Embedding, ids: torch.Tensor) -> torch.Tensor:
        return table(ids) + self.pos[: ids.shape[1]]

    def encode(self, src: torch.Tensor) -> torch.Tensor:
        return self.encoder(self._embed(self.src_embed, src), src_key_padding_mask=src == PAD)

    def decode(self, memory: torch.Tensor, src: torch.Tensor, tgt_in: torch.Tensor) -> torch.Tensor:
        n = tgt_in.shape[1]
        causal = torch.ones(n, n, dtype=torch.bool).triu(1)
        dec = self.decoder(self._embed(self.tgt_embed, tgt_in), memory, tgt_mask=causal, tgt_is_causal=True,
                               tgt_key_padding_mask=tgt_in == PAD, memory_key_padding_mask=src == PAD)
        return self.out(dec)

    def forward(self, src: torch.Tensor, src_len: torch.Tensor, tgt_in: torch.Tensor) -> torch.Tensor:
        return self.decode(self.encode(src), src, tgt_in)

    @torch.no_grad()
    def greedy(self, src: torch.Tensor, src_len: torch.Tensor, max_len: int, bos: int, eos: int) -> torch.Tensor:
        memory = self.encode(src)
        seq = torch.full((src.shape[0], 1), bos, dtype=torch.long)
        done = torch.zeros(src.shape[0], dtype=torch.bool)
        for _ in range(min(max_len, self.pos.shape[0] - 1)):
            token = _allowed(self.decode(memory, src, seq)[:, -1], bos).argmax(-1)
            token = token.masked_fill(done, PAD)
            seq = torch.cat([seq, token.unsqueeze(1)], dim=1)
            done |= token == eos
            if bool(done.all()):
                break
        return seq[:, 1:]
