"""What a perfect model writes for a coding sample, with chosen items broken on purpose.

The scripted policies' oracle (and its seeded noise) answer ManyIH instances with
:func:`oracle_code`: the reference solution restyled to the winning styles, or, for
a style picked to go wrong, to what a model that misreads the hierarchy would write.
"""

from __future__ import annotations

from adhere.suites._registry import WrongItem
from adhere.suites.manyih._checkers import check_style
from adhere.suites.manyih._instances import TESTS_CHECK, AnswerKey, style_check
from adhere.suites.manyih._restyle import restyle
from adhere.suites.manyih._styles import conflicts

__all__ = ["oracle_code"]


def oracle_code(key: AnswerKey, wrong: WrongItem) -> str:
    """The code a perfect model writes, with the items ``wrong`` picks broken.

    A winning style picked to go wrong is broken the way a model that misreads the
    hierarchy would: by following a losing instruction that conflicts with it (and
    with no winner kept), when the sample has one and following it does break the
    winner; otherwise by writing the style's opposite on purpose.
    """
    broken = [sid for sid in key.winners if wrong(style_check(sid))]
    kept = [sid for sid in key.winners if sid not in broken]
    losers = [sid for sid in key.styles if sid not in key.winners]
    follow: dict[str, str] = {}
    for sid in broken:
        rivals = [
            loser
            for loser in losers
            if conflicts(sid, loser)
            and loser not in follow.values()
            and not any(conflicts(loser, other) for other in [*kept, *follow.values()])
        ]
        if rivals:
            follow[sid] = rivals[0]
    wanted = [*kept, *follow.values()]
    explicit = [sid for sid in broken if sid not in follow]
    tests = wrong(TESTS_CHECK)
    restyled = restyle(key.task, [*wanted, *explicit], violate=explicit, break_tests=tests)
    still = [sid for sid in follow if check_style(restyled.code, sid).passed]
    if still:  # following the loser changed nothing here: break the winner outright
        explicit += still
        restyled = restyle(key.task, [*wanted, *explicit], violate=explicit, break_tests=tests)
    return restyled.code
