"""Small dependency-free SVG plots: lines, labelled points and grouped bars of shares.

Each takes optional 95% intervals and draws them as error bars (``errors``): a rate
is never shown without its uncertainty when one is known. Hand-written rather than a
plotting library's: the reports are static SVG files embedded in Markdown and HTML,
and these three shapes take ~200 lines where a plotting library would add a large
dependency (and fonts, backends) to every install.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
_DASHES = ("", "6,3", "2,3", "8,3,2,3")

Span = tuple[float, float]
"""A 95% interval of a share: (low, high) in [0, 1]."""


def _whisker(x: float, y_low: float, y_high: float, color: str, cap: float = 4.0) -> str:
    """A vertical error bar with caps (pixel coordinates)."""
    return (
        f'<path class="ci" d="M{x - cap:.1f},{y_low:.1f}H{x + cap:.1f}M{x:.1f},{y_low:.1f}'
        f'V{y_high:.1f}M{x - cap:.1f},{y_high:.1f}H{x + cap:.1f}" stroke="{color}" fill="none"/>'
    )


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
    ``x_ticks``: the label of each x (default: the number itself).
    """
    left, right, top, bottom = 60, 180, 36, 48
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = sorted({x for points in series.values() for x, _ in points}) or [0.0, 1.0]
    x_min, x_max = xs[0], xs[-1]
    span = (x_max - x_min) or 1.0

    def px(x: float) -> float:
        return left + (x - x_min) / span * plot_w

    def py(y: float) -> float:
        return top + (1.0 - y) * plot_h

    parts = _frame(width, height, title, left, top, plot_w, plot_h, x_label, y_label)
    for x in xs:
        parts.append(
            f'<text x="{px(x):.1f}" y="{top + plot_h + 18}" text-anchor="middle">'
            f"{escape((x_ticks or {}).get(x, f'{x:g}'))}</text>"
        )
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
        ly = top + 14 + n * 18
        lx = left + plot_w + 12
        parts.append(
            f'<line x1="{lx}" y1="{ly - 4}" x2="{lx + 20}" y2="{ly - 4}" stroke="{color}" '
            f'stroke-width="2"{dash_attr}/>'
        )
        parts.append(f'<text x="{lx + 26}" y="{ly}">{escape(label)}</text>')
    parts.append("</svg>")
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
    """
    left, right, top, bottom = 60, 30, 36, 48
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(x: float) -> float:
        return left + x * plot_w

    def py(y: float) -> float:
        return top + (1.0 - y) * plot_h

    parts = _frame(width, height, title, left, top, plot_w, plot_h, x_label, y_label)
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<text x="{px(tick):.1f}" y="{top + plot_h + 18}" text-anchor="middle">'
            f"{tick:.0%}</text>"
        )
    for n, (label, (x, y)) in enumerate(sorted(points.items())):
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
        parts.append(
            f'<text x="{px(x) + 7:.1f}" y="{py(y) - 6:.1f}" fill="{color}">{escape(label)}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)


def bar_svg(
    groups: Mapping[str, Mapping[str, float]],
    *,
    title: str,
    y_label: str,
    width: int = 720,
    height: int = 420,
    errors: Mapping[str, Mapping[str, Span]] | None = None,
) -> str:
    """Grouped bars ``{group: {series: share}}`` (shares in [0, 1]), legend on the right.

    ``errors``: per group and series, the 95% interval of the share (an error bar).
    """
    left, right, top, bottom = 60, 180, 36, 70
    plot_w, plot_h = width - left - right, height - top - bottom
    names = sorted(groups)
    series = sorted({s for values in groups.values() for s in values})
    parts = _frame(width, height, title, left, top, plot_w, plot_h, "", y_label)
    slot = plot_w / max(1, len(names))
    bar = slot * 0.8 / max(1, len(series))
    for g, name in enumerate(names):
        x0 = left + g * slot + slot * 0.1
        for s, label in enumerate(series):
            value = groups[name].get(label)
            if value is None:
                continue
            h = value * plot_h
            parts.append(
                f'<rect x="{x0 + s * bar:.1f}" y="{top + plot_h - h:.1f}" width="{bar * 0.9:.1f}" '
                f'height="{h:.1f}" fill="{_COLORS[s % len(_COLORS)]}"/>'
            )
            span = (errors or {}).get(name, {}).get(label)
            if span is not None:
                centre = x0 + s * bar + bar * 0.45
                low, high = (top + (1.0 - v) * plot_h for v in span)
                parts.append(_whisker(centre, low, high, "#333"))
        parts.append(
            f'<text x="{left + (g + 0.5) * slot:.1f}" y="{top + plot_h + 16}" '
            f'text-anchor="middle" font-size="11">{escape(name)}</text>'
        )
    for s, label in enumerate(series):
        ly = top + 14 + s * 18
        lx = left + plot_w + 12
        color = _COLORS[s % len(_COLORS)]
        parts.append(f'<rect x="{lx}" y="{ly - 10}" width="14" height="10" fill="{color}"/>')
        parts.append(f'<text x="{lx + 20}" y="{ly}">{escape(label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _frame(
    width: int,
    height: int,
    title: str,
    left: int,
    top: int,
    plot_w: int,
    plot_h: int,
    x_label: str,
    y_label: str,
) -> list[str]:
    """The SVG header, title, horizontal grid with percentage ticks, axes and labels."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="{left}" y="22" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = top + (1.0 - tick) * plot_h
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ddd"/>'
        )
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{tick:.0%}</text>')
    parts.append(
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        'stroke="#333"/>'
    )
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#333"/>')
    if x_label:
        parts.append(
            f'<text x="{left + plot_w / 2:.1f}" y="{height - 10}" text-anchor="middle">'
            f"{escape(x_label)}</text>"
        )
    parts.append(
        f'<text transform="translate(16,{top + plot_h / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle">{escape(y_label)}</text>'
    )
    return parts
