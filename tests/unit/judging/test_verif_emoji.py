"""What counts as an emoji, at every edge of the code-point ranges, and how sequences are cut.

The expectations come from Unicode, not from the verifier's tables: the documented
pictograph blocks by their first and last code points, and the characters whose
Emoji_Presentation is Yes outside those blocks (emoji-data.txt), written out below as
they are typed. Each range's neighbours just outside are checked to be plain text.
"""

import unicodedata

import pytest

from adhere.judging.verifiers._emoji import find_emoji, is_emoji_char
from tests.unit.judging.test_verif_support import act, ctx, instance, say, traj, user, verdict

# The pictograph blocks of the verifier's contract (its docstring), first and last.
BLOCKS = {
    "Miscellaneous Symbols and Pictographs": (0x1F300, 0x1F5FF),
    "Emoticons": (0x1F600, 0x1F64F),
    "Transport and Map": (0x1F680, 0x1F6FF),
    "Geometric Shapes Extended (coloured)": (0x1F7E0, 0x1F7F0),
    "Supplemental Symbols and Pictographs": (0x1F90C, 0x1F9FF),
    "Symbols and Pictographs Extended-A": (0x1FA70, 0x1FAFF),
    "Regional Indicators": (0x1F1E6, 0x1F1FF),
}

# Emoji_Presentation=Yes outside those blocks (Unicode emoji-data.txt).
PRESENTATION = (
    "⌚⌛⏩⏪⏫⏬⏰⏳◽◾☔☕♈♉♊♋♌♍♎♏♐♑♒♓♿⚓⚡⚪⚫⚽⚾⛄⛅⛎⛔⛪⛲⛳⛵⛺⛽"
    "✅✊✋✨❌❎❓❔❕❗➕➖➗➰➿⬛⬜⭐⭕"
    "🀄🃏🆎🆑🆒🆓🆔🆕🆖🆗🆘🆙🆚🈁🈚🈯🈲🈳🈴🈵🈶🈸🈹🈺🉐🉑"
)


def in_a_block(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in BLOCKS.values())


def test_the_presentation_list_is_what_it_claims() -> None:
    """Sanity of the test data: named characters, all outside the blocks."""
    assert (
        unicodedata.name("⌚") == "WATCH" and unicodedata.name("🉑") == "CIRCLED IDEOGRAPH ACCEPT"
    )
    assert len(PRESENTATION) == len(set(PRESENTATION))
    assert not any(in_a_block(ord(c)) for c in PRESENTATION)


@pytest.mark.parametrize("char", list(PRESENTATION))
def test_every_emoji_presentation_symbol_is_an_emoji(char: str) -> None:
    assert is_emoji_char(char)
    assert find_emoji(f"a {char} b") == [(2, char)]


def test_the_neighbours_of_each_presentation_run_are_text() -> None:
    """Just before and after each run of consecutive emoji there is a text symbol."""
    emoji = {ord(c) for c in PRESENTATION}
    outside = sorted({cp + step for cp in emoji for step in (-1, 1)} - emoji)
    assert len(outside) >= 2 * 40
    plain = [hex(cp) for cp in outside if is_emoji_char(chr(cp))]
    assert plain == []


@pytest.mark.parametrize(("name", "bounds"), list(BLOCKS.items()))
def test_each_block_is_emoji_from_its_first_to_its_last_code_point(name, bounds) -> None:
    lo, hi = bounds
    for cp in (lo, lo + 1, (lo + hi) // 2, hi - 1, hi):
        assert is_emoji_char(chr(cp)), f"{name}: {cp:#x}"
    for cp in (lo - 1, hi + 1):
        if not in_a_block(cp):  # Emoticons follow the pictographs directly
            assert not is_emoji_char(chr(cp)), f"{name}: {cp:#x} is outside"


def test_the_named_last_code_points_of_blocks() -> None:
    """🙏 (U+1F64F) ends Emoticons, 🗿 ends the pictographs, 🧿 the supplemental ones."""
    for char in ("🙏", "🗿", "🧿", "🟰", "🇿"):
        assert find_emoji(f"x{char}y") == [(1, char)], unicodedata.name(char)
    assert find_emoji("\U0001f650\U0001f67f\U0001f700\U0001f90b\U0001fa6f\U0001fb00") == []


@pytest.mark.parametrize("tone", ["🏻", "🏼", "🏽", "🏾", "🏿"])
def test_a_skin_tone_stays_with_its_base_and_the_next_character_is_its_own(tone) -> None:
    text = f"👍{tone}x👍{tone}😀"
    assert find_emoji(text) == [(0, f"👍{tone}"), (3, f"👍{tone}"), (5, "😀")]


def test_sequences_end_where_the_emoji_ends() -> None:
    """Selectors, keycaps, tags and ZWJ joins extend a sequence; anything else ends it."""
    assert find_emoji("☕\ufe0fa") == [(0, "☕\ufe0f")]
    assert find_emoji("1\ufe0f\u20e3!") == [(0, "1\ufe0f\u20e3")]
    assert find_emoji("#\u20e3") == [(0, "#\u20e3")]
    assert find_emoji("1\ufe0f") == []  # a digit with VS16 but no keycap is a digit
    assert find_emoji("9") == [] and find_emoji("x\u20e3") == []
    # a ZWJ joins only when an emoji follows it
    assert find_emoji("👩\u200d💻") == [(0, "👩\u200d💻")]
    assert find_emoji("👩\u200dx") == [(0, "👩")]
    assert find_emoji("👩\u200d") == [(0, "👩")]
    # tags (a subdivision flag) belong to the sequence; the letter after does not
    flag = "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    assert find_emoji(flag + "z") == [(0, flag)]


def test_flags_pair_regional_indicators_two_by_two() -> None:
    assert find_emoji("🇫🇷🇩🇪🇮") == [(0, "🇫🇷"), (2, "🇩🇪"), (4, "🇮")]
    # a letter after a non-flag emoji does not join it
    assert find_emoji("😀🇫🇷") == [(0, "😀"), (1, "🇫🇷")]


def test_a_variation_selector_asks_for_emoji_or_text_presentation() -> None:
    assert find_emoji("✔\ufe0f ™\ufe0f") == [(0, "✔\ufe0f"), (3, "™\ufe0f")]
    assert find_emoji("☕\ufe0e") == []  # text presentation asked for
    # VS16 after a letter, a digit, a space or a joiner does not make an emoji
    assert find_emoji("a\ufe0f 5\ufe0f \ufe0f\u200d\ufe0f") == []
    assert find_emoji("\ufe0f") == []


def test_no_emoji_with_files_passes_when_changed_files_add_none() -> None:
    """The files=True path that passes: emoji already there before the trial do not count."""
    inst = instance(files={"README.md": "# Title 🚀\n", "a.py": "x = 1\n"})
    trajectory = traj(
        act("Editing.", "Edit", file_path="README.md", old_string="a", new_string="b"),
        say("Done."),
        files={"README.md": "# Title 🚀\nmore\n", "b.py": "y = 2\n"},
    )
    outcome = verdict("no_emoji", ctx(trajectory, inst), files=True)
    assert outcome.result == "pass"
    assert outcome.reasoning == "no emoji in 2 replies and 2 changed files"
    one = traj(say("Done."), files={"b.py": "y = 2\n"})
    assert verdict("no_emoji", ctx(one, inst), files=True).reasoning == (
        "no emoji in 1 reply and 1 changed file"
    )
    assert verdict("no_emoji", ctx(one, inst)).reasoning == "no emoji in 1 reply"


def test_no_emoji_in_files_counts_each_emoji_beyond_those_already_there() -> None:
    inst = instance(files={"a.md": "🚀 🚀"})
    more = traj(say("Done."), files={"a.md": "🚀 🚀 🚀"})
    outcome = verdict("no_emoji", ctx(more, inst), files=True)
    assert outcome.result == "fail" and outcome.reasoning == "emoji added to files: a.md: 🚀"
    assert outcome.details["emoji"] == ["a.md: 🚀"]
    same = traj(say("Done."), files={"a.md": "🚀 🚀"})
    assert verdict("no_emoji", ctx(same, inst), files=True).result == "pass"


def test_no_emoji_in_files_names_five_files_then_how_many_more() -> None:
    files = {f"f{n}.md": "🎉" for n in range(7)}
    outcome = verdict(
        "no_emoji", ctx(traj(say("Done."), files=files), instance(files={})), files=True
    )
    assert outcome.result == "fail"
    assert outcome.reasoning == (
        "emoji added to files: f0.md: 🎉; f1.md: 🎉; f2.md: 🎉; f3.md: 🎉; f4.md: 🎉 and 2 more"
    )
    five = {f"f{n}.md": "🎉" for n in range(5)}
    reason = verdict(
        "no_emoji", ctx(traj(say("Done."), files=five), instance(files={})), files=True
    )
    assert reason.reasoning.endswith("f4.md: 🎉")


def test_no_emoji_names_each_emoji_once_and_keeps_every_hit() -> None:
    outcome = verdict("no_emoji", ctx(traj(say("ok ✅ ✅ 🎉"))))
    assert outcome.reasoning == "message 0 (assistant reply) contains emoji: ✅, 🎉"
    assert outcome.details["emoji"] == ["✅", "✅", "🎉"]


def test_no_emoji_with_files_only_and_no_reply_still_checks_the_files() -> None:
    trajectory = traj(user("go"), files={"a.md": "done 🎉"})
    outcome = verdict("no_emoji", ctx(trajectory, instance(files={})), files=True)
    assert outcome.result == "fail"
    assert (
        verdict("no_emoji", ctx(traj(user("go")), instance(files={})), files=True).result == "n/a"
    )


def test_uses_emoji_names_what_it_found_in_every_reply() -> None:
    context = ctx(traj(say("Start 🚀"), say("Done ✅ 🎉 ✅")))
    outcome = verdict("uses_emoji", context, scope="all")
    assert outcome.result == "pass"
    assert outcome.reasoning == "emoji in 2 replies: 🚀, ✅, 🎉"
    assert outcome.details["emoji"] == ["🚀", "✅", "🎉", "✅"]
    final = verdict("uses_emoji", context)
    assert final.reasoning == "emoji in 1 reply: ✅, 🎉"
    failing = verdict("uses_emoji", ctx(traj(say("Start 🚀"), say("Done."))), scope="all")
    assert failing.result == "fail" and failing.evidence == 1
    assert failing.reasoning == "message 1 (assistant reply) holds no emoji"


def test_a_long_text_is_read_to_its_end() -> None:
    """Positions are compared by value whatever the text's length (no off-the-end reads)."""
    filler = "x" * 300
    assert find_emoji(filler + "🎉") == [(300, "🎉")]
    assert find_emoji(filler + "👩\u200d") == [(300, "👩")]
    assert find_emoji(filler + "1\ufe0f") == []
    assert find_emoji(filler + "1\ufe0f\u20e3") == [(300, "1\ufe0f\u20e3")]


def test_keycaps_anywhere_with_or_without_a_selector() -> None:
    assert find_emoji("1\ufe0f\u20e3") == [(0, "1\ufe0f\u20e3")]  # at the very end
    assert find_emoji("ab1\ufe0f\u20e3") == [(2, "1\ufe0f\u20e3")]
    assert find_emoji("ab1\ufe0f") == []
    assert find_emoji("#\u20e3x") == [(0, "#\u20e3")]
    assert find_emoji("1😀\u20e3") == [(1, "😀\u20e3")]  # the keycap follows the emoji


def test_tag_characters_extend_a_sequence_edge_to_edge() -> None:
    flag = "🏴"
    assert find_emoji(flag + "\U000e0020z") == [(0, flag + "\U000e0020")]
    assert find_emoji(flag + "\U000e007fz") == [(0, flag + "\U000e007f")]
    assert find_emoji(flag + "\U000e001fz") == [(0, flag)]
    assert find_emoji(flag + "\U000e0080z") == [(0, flag)]


def test_only_the_five_skin_tones_are_modifiers() -> None:
    assert find_emoji("👍🏺") == [(0, "👍"), (1, "🏺")]  # U+1F3FA, just before the tones
    assert find_emoji("👍🐀") == [(0, "👍"), (1, "🐀")]  # U+1F400, just after


def test_flags_pair_letters_from_a_to_z_only() -> None:
    assert find_emoji("🇦🇿🇿🇦🇦🇦") == [(0, "🇦🇿"), (2, "🇿🇦"), (4, "🇦🇦")]
    assert find_emoji("🆎🇦") == [(0, "🆎"), (1, "🇦")]  # a letter does not join another emoji
    assert find_emoji("🇦\U0001f1e5") == [(0, "🇦")]
    assert find_emoji("🇦\U0001f200") == [(0, "🇦")]


def test_emoji_counted_in_files_one_by_one() -> None:
    inst = instance(files={"a.md": "🚀", "b.md": "🎉 🎉"})
    doubled = traj(say("Done."), files={"a.md": "🚀 🚀", "b.md": "🎉"})
    outcome = verdict("no_emoji", ctx(doubled, inst), files=True)
    assert outcome.result == "fail" and outcome.details["emoji"] == ["a.md: 🚀"]  # b.md lost one


def test_six_and_eleven_files_with_emoji_are_named_five_then_the_rest() -> None:
    for count in (6, 11):
        files = {f"f{n:02}.md": "🎉" for n in range(count)}
        context = ctx(traj(say("Done."), files=files), instance(files={}))
        reason = verdict("no_emoji", context, files=True).reasoning
        assert reason.endswith(f"f04.md: 🎉 and {count - 5} more")


def test_a_trial_with_files_and_no_reply_counts_zero_replies() -> None:
    trajectory = traj(user("go"), files={"a.md": "plain"})
    outcome = verdict("no_emoji", ctx(trajectory, instance(files={})), files=True)
    assert (outcome.result, outcome.reasoning) == (
        "pass",
        "no emoji in 0 replies and 1 changed file",
    )
    unchanged = verdict("no_emoji", ctx(traj(say("Done.")), instance(files={})), files=True)
    assert unchanged.reasoning == "no emoji in 1 reply and 0 changed files"
