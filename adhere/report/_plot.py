"""Small dependency-free SVG plots: lines, labelled points and grouped bars of shares.

Each takes optional 95% intervals and draws them as error bars (``errors``): a rate
is never shown without its uncertainty when one is known. A bar of 0% is drawn as a
mark on the axis labelled "0%", and a bar with no value as "n/a", so neither looks
like the other. Labels are laid out by :mod:`adhere.report._plot_text`: cut past 28
characters (the full name is the tooltip), x labels turned −45° when they would
touch, and each plot sized to hold its legend and labels. Hand-written rather than a
plotting library's; docs/reports.md says why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from adhere.report._plot_text import HEIGHT, fit, place_labels, text, text_width, x_labels

_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
_DASHES = ("", "6,3", "2,3", "8,3,2,3")
_LEFT, _TOP = 72, 36
"""Room for the y axis (its label and "100%") and for the title."""

Span = tuple[float, float]
"""A 95% interval of a share: (low, high) in [0, 1]."""


def _whisker(x: float, y_low: float, y_high: float, color: str, cap: float = 4.0) -> str:
    """A vertical error bar with caps (pixel coordinates)."""
    return (
        f'<path class="ci" d="M{x - cap:.1f},{y_low:.1f}H{x + cap:.1f}M{x:.1f},{y_low:.1f}'
        f'V{y_high:.1f}M{x - cap:.1f},{y_high:.1f}H{x + cap:.1f}" stroke="{color}" fill="none"/>'
    )


def _legend_width(labels: Sequence[str], key: float = 26) -> float:
    """Room for a legend right of the plot: a gap, the key, the longest (cut) label."""
    return 12 + key + max((text_width(fit(label), 12) for label in labels), default=0) + 10


def _title_width(title: str) -> float:
    return _LEFT + text_width(title, 14) * 1.1 + 10  # bold


def line_plot_svg(
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int = 640,
    height: int = 380,
    errors: Mapping[str, Mapping[float, Span]] | None = None,
    x_ticks: Mapping[float, str] | None = None,
) -> str:
    """Render ``{label: [(x, y), …]}`` as an SVG document; y is a share in [0, 1].

    ``errors``: per label and x, the interval of y (drawn as an error bar).
    ``x_ticks``: the label of each x (default: the number itself). ``width`` and
    ``height`` are the least size: the plot grows to hold its legend and labels.
    """
    right = _legend_width(list(series))
    plot_w, plot_h = max(width - _LEFT - 180, 200), height - _TOP - 48
    xs = sorted({x for points in series.values() for x, _ in points}) or [0.0, 1.0]
    x_min, x_max = xs[0], xs[-1]
    span = (x_max - x_min) or 1.0
    inset = 12.0  # the first and last x keep their labels off the axes' corners

    def px(x: float) -> float:
        return _LEFT + inset + (x - x_min) / span * (plot_w - 2 * inset)

    def py(y: float) -> float:
        return _TOP + (1.0 - y) * plot_h

    ticks, below, reach = x_labels(
        [px(x) for x in xs],
        [(x_ticks or {}).get(x, f"{x:g}") for x in xs],
        baseline=_TOP + plot_h,
    )
    left = _LEFT + max(0.0, reach - (px(xs[0]) - 8))
    shift = left - _LEFT
    bottom = below + (28 if x_label else 8)
    full_w = math.ceil(max(left + plot_w + right, _title_width(title) + shift))
    full_h = math.ceil(max(height, _TOP + plot_h + bottom))
    parts = _frame(full_w, full_h, title, plot_w, plot_h, x_label, y_label, shift)
    parts.extend(ticks)
    for n, (label, points) in enumerate(sorted(series.items())):
        color = _COLORS[n % len(_COLORS)]
        dash = _DASHES[(n // len(_COLORS)) % len(_DASHES)]
        pts = sorted(points)
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"{dash_attr}/>'
        )
        for x, y in pts:
            parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{color}"/>')
            point_span = (errors or {}).get(label, {}).get(x)
            if point_span is not None:
                parts.append(_whisker(px(x), py(point_span[0]), py(point_span[1]), color))
        ly = _TOP + 14 + n * 18
        lx = _LEFT + plot_w + 12
        parts.append(
            f'<line x1="{lx}" y1="{ly - 4}" x2="{lx + 20}" y2="{ly - 4}" stroke="{color}" '
            f'stroke-width="2"{dash_attr}/>'
        )
        parts.append(text(lx + 26, ly, label))
    parts.append("</g></svg>")
    return "\n".join(parts)


def scatter_svg(
    points: Mapping[str, tuple[float, float]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int = 640,
    height: int = 420,
    errors: Mapping[str, tuple[Span | None, Span | None]] | None = None,
) -> str:
    """Labelled points ``{label: (x, y)}`` with both axes shares in [0, 1].

    ``errors``: per label, the 95% intervals of x and of y (error bars across and up).
    Each label goes beside its point where it covers no other label and no point.
    """
    right = 30
    plot_w, plot_h = width - _LEFT - right, height - _TOP - 48
    full_w = math.ceil(max(width, _title_width(title)))

    def px(x: float) -> float:
        return _LEFT + x * plot_w

    def py(y: float) -> float:
        return _TOP + (1.0 - y) * plot_h

    parts = _frame(full_w, height, title, plot_w, plot_h, x_label, y_label)
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        anchor = "start" if tick == 0 else "end" if tick == 1 else "middle"
        parts.append(text(px(tick), _TOP + plot_h + 18, f"{tick:.0%}", anchor=anchor))
    ordered = sorted(points.items())
    for n, (label, (x, y)) in enumerate(ordered):
        color = _COLORS[n % len(_COLORS)]
        x_span, y_span = (errors or {}).get(label, (None, None))
        if y_span is not None:
            parts.append(_whisker(px(x), py(y_span[0]), py(y_span[1]), color))
        if x_span is not None:
            parts.append(
                f'<path class="ci" d="M{px(x_span[0]):.1f},{py(y):.1f}H{px(x_span[1]):.1f}" '
                f'stroke="{color}" fill="none"/>'
            )
        parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="5" fill="{color}"/>')
    spots = place_labels(
        [(px(x), py(y), label) for label, (x, y) in ordered],
        bounds=(_LEFT + 2, _TOP, full_w - 2.0, _TOP + plot_h - 2),
        avoid=[(px(x) - 6, py(y) - 6, px(x) + 6, py(y) + 6) for _, (x, y) in ordered],
    )
    for n, (lx, ly, label) in enumerate(spots):
        color = _COLORS[n % len(_COLORS)]
        parts.append(text(lx, ly, label, attrs=f' fill="{color}"'))
    parts.append("</g></svg>")
    return "\n".join(parts)


def bar_svg(
    groups: Mapping[str, Mapping[str, float | None]],
    *,
    title: str,
    y_label: str,
    width: int = 720,
    height: int = 420,
    errors: Mapping[str, Mapping[str, Span]] | None = None,
) -> str:
    """Grouped bars ``{group: {series: share}}`` (shares in [0, 1]), legend on the right.

    ``errors``: per group and series, the 95% interval of the share (an error bar).
    A share of 0 is a mark on the axis labelled "0%"; a series with no share in a
    group (absent or ``None``) is labelled "n/a" there. The plot widens so that each
    bar holds its label and the group labels do not touch.
    """
    names = sorted(groups)
    series = sorted({s for values in groups.values() for s in values})
    right = _legend_width(series, key=20)
    bar = max(16.0, (width - _LEFT - 180) * 0.8 / max(1, len(names) * len(series)))
    slot = bar * max(1, len(series)) / 0.8
    plot_w, plot_h = slot * max(1, len(names)), height - _TOP - 70
    centres = [_LEFT + (g + 0.5) * slot for g in range(len(names))]
    labels, below, reach = x_labels(centres, names, baseline=_TOP + plot_h)
    shift = max(0.0, reach - (centres[0] - 8)) if centres else 0.0
    full_w = math.ceil(max(_LEFT + shift + plot_w + right, _title_width(title) + shift))
    full_h = math.ceil(_TOP + plot_h + below + 8)
    parts = _frame(full_w, full_h, title, plot_w, plot_h, "", y_label, shift)
    base = _TOP + plot_h
    marks: list[str] = []  # 0% and n/a labels, drawn over the error bars
    for g, name in enumerate(names):
        x0 = _LEFT + g * slot + slot * 0.1
        for s, label in enumerate(series):
            value = groups[name].get(label)
            color = _COLORS[s % len(_COLORS)]
            centre = x0 + s * bar + bar * 0.45
            if value is None or value <= 0:
                marks.append(_empty_bar(centre, base, bar * 0.9, color, value))
            else:
                h = value * plot_h
                parts.append(
                    f'<rect x="{x0 + s * bar:.1f}" y="{base - h:.1f}" width="{bar * 0.9:.1f}" '
                    f'height="{h:.1f}" fill="{color}"><title>{escape(name)} · {escape(label)}: '
                    f"{value:.1%}</title></rect>"
                )
            span = (errors or {}).get(name, {}).get(label)
            if span is not None:
                low, high = (_TOP + (1.0 - v) * plot_h for v in span)
                parts.append(_whisker(centre, low, high, "#333"))
    parts.extend(marks)
    parts.extend(labels)
    for s, label in enumerate(series):
        ly = _TOP + 14 + s * 18
        lx = _LEFT + plot_w + 12
        color = _COLORS[s % len(_COLORS)]
        parts.append(f'<rect x="{lx:.1f}" y="{ly - 10}" width="14" height="10" fill="{color}"/>')
        parts.append(text(lx + 20, ly, label))
    parts.append("</g></svg>")
    return "\n".join(parts)


def _empty_bar(centre: float, base: float, width: float, color: str, value: float | None) -> str:
    """A 0% bar (a mark on the axis, "0%") or a missing one ("n/a"), written upwards.

    The label has a white halo, so an error bar through it does not hide it.
    """
    size = 10
    mark = (
        f'<rect class="zero" x="{centre - width / 2:.1f}" y="{base - 3:.1f}" width="{width:.1f}" '
        f'height="3" fill="{color}"/>'
        if value is not None
        else ""
    )
    label = "n/a" if value is None else "0%"
    x, y = centre + (HEIGHT * size) / 2 - 3, base - 6
    return mark + text(
        x,
        y,
        label,
        size=size,
        attrs=f' class="{"missing" if value is None else "zero"}" fill="#333" stroke="white" '
        f'stroke-width="3" paint-order="stroke" transform="rotate(-90 {x:.1f} {y:.1f})"',
    )


def _frame(
    width: int,
    height: int,
    title: str,
    plot_w: float,
    plot_h: float,
    x_label: str,
    y_label: str,
    shift: float = 0.0,
) -> list[str]:
    """The SVG header, title, horizontal grid with percentage ticks, axes and labels.

    Opens a group moved right by ``shift`` (room for labels left of the first x); the
    plot functions close it.
    """
    left, top = _LEFT, _TOP
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<g transform="translate({shift:.1f},0)">',
        text(left, 22, title, size=14, limit=200, attrs=' font-weight="bold"'),
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = top + (1.0 - tick) * plot_h
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
        )
        parts.append(text(left - 8, y + 4, f"{tick:.0%}", anchor="end"))
    parts.append(
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w:.1f}" y2="{top + plot_h}" '
        'stroke="#333"/>'
    )
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#333"/>')
    if x_label:
        parts.append(text(left + plot_w / 2, height - 10, x_label, anchor="middle", limit=80))
    limit = max(8, int(plot_h / (0.8 * 12)))
    parts.append(
        text(
            0,
            0,
            y_label,
            anchor="middle",
            limit=limit,
            attrs=f' transform="translate(18,{top + plot_h / 2:.1f}) rotate(-90)"',
        )
    )
    return parts
