"""Text in the plots: its size estimated, long labels shortened, labels placed apart.

An SVG file has no layout engine: the plots place every label themselves. Widths
are estimated per character on the generous side of common sans-serif fonts
(DejaVu Sans, the widest usual one), so a label laid out to fit does fit; the
report tests check the result with a browser's own text extents. A label longer
than :data:`MAX_LABEL` characters is cut with "…" and keeps its full text in a
``<title>`` (a tooltip).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

__all__ = ["MAX_LABEL", "Box", "fit", "place_labels", "text", "text_width", "x_labels"]

MAX_LABEL = 28
"""Longest label shown whole; longer ones are cut (the full one is the tooltip)."""
ASCENT, HEIGHT = 0.95, 1.25
"""Above the baseline, and a line's height, in ems (generous for sans-serif fonts)."""

Box = tuple[float, float, float, float]
"""A text's extent: left, top, right, bottom (pixels)."""


def _em(ch: str) -> float:
    if ch in "MWmw@%…—":
        return 1.0
    if ch.isupper() or ch in "#&":
        return 0.8
    if ch in "iIl.,:;'|!j ":
        return 0.36
    return 0.66


def text_width(label: str, size: float) -> float:
    """Estimated width of ``label`` at font size ``size`` (never less than most fonts)."""
    return sum(_em(ch) for ch in label) * size


def fit(label: str, limit: int = MAX_LABEL) -> str:
    """``label``, cut to ``limit`` characters with "…" when longer."""
    return label if len(label) <= limit else label[: limit - 1].rstrip() + "…"


def text(
    x: float,
    y: float,
    label: str,
    *,
    size: float = 12,
    anchor: str = "start",
    limit: int = MAX_LABEL,
    attrs: str = "",
) -> str:
    """A ``<text>`` of ``label`` cut to ``limit``; a cut label keeps its full text as a tooltip."""
    shown = fit(label, limit)
    tip = f"<title>{escape(label)}</title>" if shown != label else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}"{attrs}>'
        f"{tip}{escape(shown)}</text>"
    )


def x_labels(
    centres: Sequence[float], labels: Sequence[str], *, baseline: float, size: float = 11
) -> tuple[list[str], float, float]:
    """Labels under an x axis: level when they fit between neighbours, else at −45°.

    Returns the ``<text>`` elements, how far they reach below ``baseline`` and how far
    left of the first centre (so the caller sizes margins to fit).
    """
    shown = [fit(label) for label in labels]
    widths = [text_width(label, size) for label in shown]
    gaps = [b - a for a, b in zip(centres, centres[1:], strict=False)]
    room = min(gaps) if gaps else math.inf
    y = baseline + 4 + ASCENT * size
    if all(w + 6 <= room for w in widths):
        parts = [
            text(c, y, label, size=size, anchor="middle")
            for c, label in zip(centres, labels, strict=True)
        ]
        left = max(
            [w / 2 - (c - centres[0]) for c, w in zip(centres, widths, strict=True)], default=0.0
        )
        return parts, 4 + HEIGHT * size, left
    diagonal = [(w + HEIGHT * size) * math.sqrt(0.5) for w in widths]
    parts = [
        text(
            c, y, label, size=size, anchor="end", attrs=f' transform="rotate(-45 {c:.1f} {y:.1f})"'
        )
        for c, label in zip(centres, labels, strict=True)
    ]
    left = max((d - (c - centres[0]) for c, d in zip(centres, diagonal, strict=True)), default=0)
    return parts, 4 + ASCENT * size + max(diagonal, default=0), left


def _turned(x: float, y: float, label: str, size: float) -> str:
    """A label ending at (x, y), turned −45° about that point."""
    turn = f' transform="rotate(-45 {x:.1f} {y:.1f})"'
    return text(x, y, label, size=size, anchor="end", attrs=turn)


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_labels(
    points: Sequence[tuple[float, float, str]],
    *,
    bounds: Box,
    size: float = 12,
    avoid: Sequence[Box] = (),
) -> list[tuple[float, float, str]]:
    """Where to write each point's label: beside it, clear of the others, inside ``bounds``.

    ``points``: (x, y, label) in pixels. Tries the four corners around the point, then
    the same a line further up or down at a time; the first free spot wins (when
    none is free, the nearest inside ``bounds``). Returns (x, y, label) of each label's
    baseline start, in the order given (write it with :func:`text`, which cuts it).
    """
    height = HEIGHT * size
    placed: list[Box] = list(avoid)
    out = []
    for x, y, label in points:
        shown = fit(label)
        width = text_width(shown, size)
        tops = [y - 6 - height, y + 6]
        lefts = [x + 8, x - 8 - width]
        candidates = [
            (lx, ty + (-ring if ty < y else ring) * height)
            for ring in range(8)
            for ty in tops
            for lx in lefts
        ]
        inside = [
            (lx, ty)
            for lx, ty in candidates
            if lx >= bounds[0]
            and ty >= bounds[1]
            and lx + width <= bounds[2]
            and ty + height <= bounds[3]
        ]
        free = [
            (lx, ty)
            for lx, ty in inside
            if not any(_overlaps((lx, ty, lx + width, ty + height), p) for p in placed)
        ]
        lx, ty = (free or inside or [_clamp(x + 8, y - 6 - height, width, height, bounds)])[0]
        placed.append((lx, ty, lx + width, ty + height))
        out.append((lx, ty + ASCENT * size, label))
    return out


def _clamp(x: float, y: float, width: float, height: float, bounds: Box) -> tuple[float, float]:
    return (
        min(max(x, bounds[0]), bounds[2] - width),
        min(max(y, bounds[1]), bounds[3] - height),
    )
