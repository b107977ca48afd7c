"""The experiment lab's trusted model, task and training loop, so every scheme is trained alike.

Imported by the sandboxed experiment harness (bound read-only beside it, so it imports nothing
from the project) and by the trusted reference runner. Only the position part comes from
outside: an absolute module that adds position vectors to the token embeddings, or a relative
module that turns one layer's queries and keys into attention scores.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import torch
from torch import nn

ABSOLUTE, RELATIVE = "absolute", "relative"
Progress = Callable[[int, int, float], None]  # (step, steps, loss)


@dataclass(frozen=True)
class Config:
    """One experiment's settings; the same values always give the same curves."""

    slot: str = ABSOLUTE  # which part the position module fills: "absolute" or "relative"
    train_length: int = 16
    lengths: tuple[int, ...] = (16, 24, 32, 64)
    offset: int = 3  # the task: at position t, answer the token seen `offset` places before
    vocab: int = 10
    d_model: int = 32
    heads: int = 2
    layers: int = 2
    steps: int = 400
    batch: int = 32
    lr: float = 3e-3
    seed: int = 0
    eval_batch: int = 64  # sequences per length, made by the grader (graders.experiments)
    log_every: int = 10

    @classmethod
    def from_mapping(cls, raw: dict[str, Any]) -> Config:
        """Build from plain values (a job's scalars or exercise.yaml); unknown keys are ignored."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in raw.items() if k in known}
        if "lengths" in values:
            values["lengths"] = tuple(int(n) for n in values["lengths"])
        return cls(**values)


def make_batch(config: Config, length: int, batch: int, generator: torch.Generator) -> Any:
    """Random tokens and their targets; positions before `offset` have no answer (-100)."""
    tokens = torch.randint(0, config.vocab, (batch, length), generator=generator)
    targets = torch.full_like(tokens, -100)
    targets[:, config.offset :] = tokens[:, : length - config.offset]
    return tokens, targets


class Attention(nn.Module):
    """Causal multi-head self-attention whose scores may come from a relative position module."""

    def __init__(self, config: Config, relative: nn.Module | None) -> None:
        super().__init__()
        self.heads, self.head_dim = config.heads, config.d_model // config.heads
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model)
        self.out = nn.Linear(config.d_model, config.d_model)
        self.relative = relative

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (B, T, d) -> (B, T, d)."""
        batch, length, d_model = x.shape
        q, k, v = self.qkv(x).split(d_model, dim=-1)
        q, k, v = (
            t.view(batch, length, self.heads, self.head_dim).transpose(1, 2) for t in (q, k, v)
        )
        if self.relative is not None:
            scores = self.relative(q, k)
            if tuple(scores.shape) != (batch, self.heads, length, length):
                raise ValueError(
                    f"the scores must have shape {(batch, self.heads, length, length)}, "
                    f"got {tuple(scores.shape)}"
                )
        else:
            scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        future = torch.ones(length, length, dtype=torch.bool).triu(1)
        weights = scores.masked_fill(future, float("-inf")).softmax(dim=-1)
        mixed = (weights @ v).transpose(1, 2).reshape(batch, length, d_model)
        return self.out(mixed)  # type: ignore[no-any-return]


class Block(nn.Module):
    """Pre-norm transformer block."""

    def __init__(self, config: Config, relative: nn.Module | None) -> None:
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(config.d_model), nn.LayerNorm(config.d_model)
        self.attn = Attention(config, relative)
        self.mlp = nn.Sequential(
            nn.Linear(config.d_model, 4 * config.d_model),
            nn.GELU(),
            nn.Linear(4 * config.d_model, config.d_model),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Residual attention, then residual MLP."""
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))  # type: ignore[no-any-return]


class TinyTransformer(nn.Module):
    """A small decoder-only transformer; positions enter only through the given module(s)."""

    def __init__(
        self,
        config: Config,
        absolute: nn.Module | None,
        relative: Callable[[], nn.Module] | None,
    ) -> None:
        super().__init__()
        self.embed = nn.Embedding(config.vocab, config.d_model)
        self.absolute = absolute
        self.blocks = nn.ModuleList(
            Block(config, relative() if relative else None) for _ in range(config.layers)
        )
        self.norm = nn.LayerNorm(config.d_model)
        self.head = nn.Linear(config.d_model, config.vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, T) -> logits (B, T, vocab)."""
        x = self.embed(tokens)
        if self.absolute is not None:
            x = self.absolute(x)
            if not isinstance(x, torch.Tensor) or x.shape[:2] != tokens.shape:
                raise ValueError("the position module must return a (B, T, d_model) tensor")
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))  # type: ignore[no-any-return]


class LossNotFinite(Exception):
    """The training loss became NaN or infinite at `step`."""

    def __init__(self, step: int) -> None:
        super().__init__(f"the loss became NaN or infinite at step {step}")
        self.step = step


@dataclass
class Outcome:
    """What one run produced: the loss every `log_every` steps, predictions or refusal by length.

    Accuracy is not measured here: whoever holds the sequences' answers scores the predictions
    (graders.experiments.score), so code running beside this module cannot report its own.
    """

    losses: list[float]
    predicted: dict[int, Any]
    refused: dict[int, BaseException]
    picture: Any = None  # what the model learned about position (position_picture), or None


def build_model(config: Config, factory: Callable[..., nn.Module]) -> TinyTransformer:
    """The model with the position part from `factory` (called as the exercise's signature says)."""
    head_dim = config.d_model // config.heads
    if config.slot == ABSOLUTE:
        return TinyTransformer(config, factory(config.train_length, config.d_model), None)
    return TinyTransformer(
        config, None, lambda: factory(config.heads, head_dim, config.train_length)
    )


def train(
    config: Config, factory: Callable[..., nn.Module], progress: Progress | None = None
) -> tuple[TinyTransformer, list[float]]:
    """Train with fixed seeds on one thread; raises LossNotFinite if the loss blows up."""
    torch.set_num_threads(1)
    torch.manual_seed(config.seed)
    model = build_model(config, factory)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    generator = torch.Generator().manual_seed(config.seed + 1)
    losses: list[float] = []
    loss_fn = nn.CrossEntropyLoss(ignore_index=-100)
    for step in range(1, config.steps + 1):
        tokens, targets = make_batch(config, config.train_length, config.batch, generator)
        logits = model(tokens)
        loss = loss_fn(logits.reshape(-1, config.vocab), targets.reshape(-1))
        value = float(loss.detach())
        if not math.isfinite(value):
            raise LossNotFinite(step)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % config.log_every == 0 or step == config.steps:
            losses.append(value)
            if progress is not None:
                progress(step, config.steps, value)
    return model, losses


def predict(model: nn.Module, tokens: Any) -> Any:
    """The model's answer at every position of the grader's sequences (an int64 array)."""
    batch = torch.as_tensor(tokens, dtype=torch.long)
    with torch.no_grad():
        return model(batch).argmax(dim=-1).numpy().astype("int64")


def position_picture(config: Config, model: TinyTransformer) -> Any:
    """What the trained position part does, as a float64 array for the report's picture.

    Absolute: cosine similarity between the position vectors it adds at each pair of positions
    (train_length x train_length), the vectors being what it adds to zeros. Relative: for one
    fixed query and key vector, the score the first layer's module gives by offset, per head
    (heads x train_length; offset 0 first), so a rotation or a distance penalty shows as a curve.
    None when the module cannot be probed this way.
    """
    length = config.train_length
    try:
        with torch.no_grad():
            if model.absolute is not None:
                vectors = model.absolute(torch.zeros(1, length, config.d_model))[0]
                unit = vectors / vectors.norm(dim=-1, keepdim=True).clamp_min(1e-8)
                return (unit @ unit.T).double().numpy()
            relative: Any = model.blocks[0].attn.relative  # type: ignore[union-attr]
            head_dim = config.d_model // config.heads
            probe = torch.randn(head_dim, generator=torch.Generator().manual_seed(config.seed + 7))
            q = probe.expand(1, config.heads, length, head_dim).contiguous()
            scores = relative(q, q.clone())
            return scores[0, :, -1, :].flip(-1).double().numpy()
    except Exception:
        return None


def run(
    config: Config,
    factory: Callable[..., nn.Module],
    sequences: dict[int, Any],
    progress: Progress | None = None,
) -> Outcome:
    """Train, then predict each length's sequences; an error past the training length refuses it.

    An error while training or at the training length itself propagates: the code is broken.
    """
    model, losses = train(config, factory, progress)
    model.eval()
    predicted: dict[int, Any] = {}
    refused: dict[int, BaseException] = {}
    for length, tokens in sequences.items():
        if length <= config.train_length:
            predicted[length] = predict(model, tokens)
            continue
        try:
            predicted[length] = predict(model, tokens)
        except Exception as exc:
            refused[length] = exc
    return Outcome(losses, predicted, refused, position_picture(config, model))
