"""Parsing and checking typed quiz answers: numbers with arithmetic, and tensor shapes."""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Mapping

_MAX_ANSWER_CHARS = 200
_BINOPS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


class AnswerError(ValueError):
    """The answer cannot be read; the message tells the student how to write it."""


class ExpectedError(Exception):
    """The question's own answer cannot be computed: the author's mistake, not the student's,
    so it must never reach the student as theirs (nor tell them the expected text)."""


def _normalise_expression(text: str) -> str:
    text = text.strip()
    if len(text) > _MAX_ANSWER_CHARS:
        raise AnswerError("that answer is too long; type a number such as 393216 or 512*768")
    text = text.replace("×", "*").replace("·", "*").replace("−", "-").replace("^", "**")
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)  # thousands separators: 393,216
    text = re.sub(r"(?<=\d)_(?=\d)", "", text)
    text = re.sub(r"(?<=[\d)\s])[xX](?=[\s\d(])", "*", text)  # 512 x 768
    return text


def evaluate(text: str, names: Mapping[str, float] | None = None) -> float:
    """Evaluate arithmetic over numbers and the given names, without eval()."""
    names = names or {}
    expression = _normalise_expression(text)
    if not expression:
        raise AnswerError("the answer is empty; type a number")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise AnswerError(f"'{text.strip()}' is not a number or a product like 512*768") from exc

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return float(node.value)  # type: ignore[arg-type]
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise AnswerError(f"'{node.id}' is not a number here; type the value itself")
            return float(names[node.id])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            value = walk(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 1e6):
                raise AnswerError("that power is too large to check")
            try:
                return _BINOPS[type(node.op)](left, right)
            except ZeroDivisionError as exc:
                raise AnswerError("the answer divides by zero") from exc
        raise AnswerError(f"'{text.strip()}' is not a number or a product like 512*768")

    value = walk(tree)
    if not math.isfinite(value):
        raise AnswerError("the answer is not a finite number")
    return value


def numeric_correct(
    answer: str, *, expected: str, tolerance: float, params: Mapping[str, int]
) -> bool:
    """Whether a typed number equals the expected expression, within the tolerance."""
    try:
        target = evaluate(expected, params)
    except AnswerError as exc:
        raise ExpectedError(f"its answer '{expected}' cannot be computed: {exc}") from exc
    given = evaluate(answer)
    if tolerance == 0:
        return given == target
    return abs(given - target) <= tolerance


_SHAPE_SPLIT = re.compile(r"\s*(?:,|\s[xX×]\s|(?<=\d)[xX×](?=\d)|\s+)\s*")


def parse_shape(text: str) -> list[str]:
    """Split '(512, 768)', '[max_len, d_model]' or '512x768' into axis tokens."""
    text = text.strip()
    if len(text) > _MAX_ANSWER_CHARS:
        raise AnswerError("that shape is too long; write it like (512, 768)")
    if text[:1] in "([" and text[-1:] in ")]":
        text = text[1:-1]
    text = text.strip().rstrip(",")
    if not text:
        raise AnswerError("the shape is empty; write it like (512, 768) or [max_len, d_model]")
    parts = [p for p in _SHAPE_SPLIT.split(text) if p]
    for part in parts:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|\d+", part):
            raise AnswerError(
                f"'{part}' is not an axis size; write a shape like (512, 768) or [max_len, d_model]"
            )
    return parts


def shape_correct(
    answer: str,
    *,
    expected: list[str],
    aliases: Mapping[str, list[str]],
    params: Mapping[str, int],
) -> bool:
    """Whether a typed shape matches axis by axis (order matters, aliases allowed)."""
    given = parse_shape(answer)
    if len(given) != len(expected):
        return False
    for token, axis in zip(given, expected, strict=True):
        accepted = {axis.lower(), *(a.lower() for a in aliases.get(axis, []))}
        if axis in params:
            accepted.add(str(params[axis]))
        if axis.isdigit():
            accepted.add(str(int(axis)))
        if token.lower() not in accepted and not (token.isdigit() and token in accepted):
            return False
    return True
