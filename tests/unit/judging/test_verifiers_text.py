import pytest

from adhere.errors import SpecError
from adhere.judging.verifiers._emoji import find_emoji
from adhere.judging.verifiers._langdetect import detect_language, prose
from adhere.judging.verifiers._length import count_words
from adhere.judging.verifiers._replies import replies
from tests.unit.judging.test_verif_support import (
    act,
    ctx,
    instance,
    say,
    traj,
    user,
    verdict,
)

# --- emoji -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Done 🎉✅", ["🎉", "✅"]),
        ("coder: 👩\u200d💻!", ["👩\u200d💻"]),  # ZWJ sequence is one emoji
        ("thumbs 👍🏽", ["👍🏽"]),  # skin tone stays with its base
        ("flags 🇫🇷🇩🇪", ["🇫🇷", "🇩🇪"]),
        ("step 1️⃣ then #⃣", ["1️⃣", "#⃣"]),
        ("warning ⚠️ and love ❤️", ["⚠️", "❤️"]),  # text symbols with VS16
        ("©️ 2024", ["©️"]),
        ("coffee ☕ and a star ⭐", ["☕", "⭐"]),  # emoji presentation by default
        ("🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", None),
    ],
)
def test_emoji_are_found_as_whole_sequences(text, found):
    hits = [seq for _, seq in find_emoji(text)]
    assert hits == (found if found is not None else [text])


@pytest.mark.parametrize(
    "text",
    [
        "中文回答，没有表情符号。「引号」【括号】",
        "日本語の文章です。ｶﾀｶﾅ",
        "한국어 문장입니다.",
        "→ ⇒ ← ↔ arrows, ★ ✓ ✗ ✔ marks",
        "┌─┬─┐ │ │ └─┴─┘ box drawing",
        "© 2024 Acme™ ®",
        "math: ∑ ∫ ≤ ≥ ± × ÷ ∞",
        "punctuation — – … « » ‘ ’ “ ”",
        "⚠ warning without selector, ❤ heart",
        "☕\ufe0e with text selector",
        "version 1.2 #3 *bold*",
    ],
)
def test_not_emoji(text):
    assert find_emoji(text) == []


def test_no_emoji_fail_pass_and_na():
    failing = ctx(traj(say("Reading it.", reasoning="🤔"), say("All done ✅")))
    outcome = verdict("no_emoji", failing)
    assert outcome.result == "fail" and outcome.evidence == 1 and "✅" in outcome.reasoning
    assert verdict("no_emoji", ctx(traj(say("中文回答 → 完成。")))).result == "pass"
    assert verdict("no_emoji", ctx(traj(user("hi")))).result == "n/a"


def test_no_emoji_scope_and_reasoning():
    context = ctx(traj(say("Sure 😀"), say("Final answer.", reasoning="thinking 🤔")))
    assert verdict("no_emoji", context, scope="final").result == "pass"
    assert verdict("no_emoji", context, scope="all").result == "fail"
    only_reasoning = ctx(traj(say("Final answer.", reasoning="thinking 🤔")))
    assert verdict("no_emoji", only_reasoning).result == "pass"
    assert verdict("no_emoji", only_reasoning, include_reasoning=True).result == "fail"


def test_no_emoji_ignores_tool_call_arguments_but_can_check_files():
    inst = instance(files={"README.md": "# Title 🚀\n"})
    trajectory = traj(
        act("Writing the notes.", "Write", file_path="NOTES.md", content="Shipped 🎉"),
        act("Editing the readme.", "Edit", file_path="README.md", old_string="a", new_string="b"),
        say("Done."),
        files={"NOTES.md": "Shipped 🎉", "README.md": "# Title 🚀\nmore\n"},
    )
    assert verdict("no_emoji", ctx(trajectory, inst)).result == "pass"
    outcome = verdict("no_emoji", ctx(trajectory, inst), files=True)
    assert outcome.result == "fail"
    assert "NOTES.md: 🎉" in outcome.reasoning and "README" not in outcome.reasoning


# --- language --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("I edited inventory.py and added a line.", "en"),
        ("restock() 函数会把 amount 加到 item.quantity 上并返回该商品。", "zh"),
        ("restock() は item に amount を加算して、その item を返します。", "ja"),
        ("restock 함수는 수량을 더하고 항목을 반환합니다.", "ko"),
        ("Функция restock добавляет единицы товара и возвращает его.", "ru"),
        ("Функція restock додає одиниці товару і повертає його.", "uk"),
        ("J'ai modifié le fichier inventory.py et ajouté une fonction.", "fr"),
        ("Die Funktion `restock` erhöht den Bestand und gibt das Objekt zurück.", "de"),
        ("La función restock añade unidades al artículo y lo devuelve.", "es"),
        ("La funzione restock aggiunge unità all'articolo e lo restituisce.", "it"),
        ("A função restock adiciona unidades ao item e o devolve.", "pt"),
        ("De functie restock voegt eenheden toe aan het artikel en geeft het terug.", "nl"),
        ("Η συνάρτηση restock προσθέτει μονάδες στο αντικείμενο.", "el"),
        ("الدالة restock تضيف وحدات إلى العنصر وتعيده.", "ar"),
    ],
)
def test_detector_places_clear_text(text, language):
    assert detect_language(text).language == language


def test_detector_ignores_code_urls_and_paths():
    chinese = (
        "我修改了 `inventory.py`，新增了 total_value 函数：\n\n"
        "```python\ndef total_value(items):\n"
        "    return sum(i.quantity for i in items)  # the total\n```\n"
        "详情见 https://example.com/docs/inventory 和 src/inventory/models.py。"
    )
    assert detect_language(chinese).language == "zh"
    assert "def" not in prose(chinese) and "example.com" not in prose(chinese)


@pytest.mark.parametrize(
    "text",
    [
        "Reading inventory.py.",
        "```python\nprint('this is English but it is code')\n```",
        "OK",
        "inventory.py utils.py tests/test_inventory.py",
        "Added total_value function returning stock value",  # no function words at all
        "Please check these two files 请检查这些文件",  # mixed scripts, neither dominant
    ],
)
def test_detector_says_when_it_cannot_tell(text):
    assert detect_language(text).language is None


def test_reply_language_pass_fail_and_na():
    english = ctx(
        traj(say("Reading inventory.py."), say("I added the function and the tests pass."))
    )
    outcome = verdict("reply_language", english, language="en")
    assert outcome.result == "pass" and "1 too short" in outcome.reasoning
    chinese = verdict("reply_language", english, language="zh")
    assert chinese.result == "fail" and chinese.evidence == 1 and "English" in chinese.reasoning
    short = ctx(traj(say("Done."), say("`x = 1`")))
    assert verdict("reply_language", short, language="en").result == "n/a"


def test_reply_language_accepts_names_and_regions():
    context = ctx(traj(say("我已经修改了这个函数并运行了测试。")))
    assert verdict("reply_language", context, language="zh-CN").result == "pass"
    assert verdict("reply_language", context, language="Chinese").result == "pass"


def test_reply_language_same_as_user():
    inst = instance(turns=("请帮我给 inventory.py 添加一个 total_value 函数。",))
    answered_in_english = traj(say("I added total_value to inventory.py and ran the tests."))
    outcome = verdict("reply_language", ctx(answered_in_english, inst), same_as_user=True)
    assert outcome.result == "fail" and "Chinese" in outcome.reasoning
    answered_in_chinese = traj(say("我在 `inventory.py` 中添加了 total_value 函数，并运行了测试。"))
    assert (
        verdict("reply_language", ctx(answered_in_chinese, inst), same_as_user=True).result
        == "pass"
    )
    unclear = instance(turns=("fix utils.py",))
    assert (
        verdict("reply_language", ctx(answered_in_english, unclear), same_as_user=True).result
        == "n/a"
    )


def test_reply_language_mixed_code_and_prose_reply():
    reply = (
        "Voici la fonction demandée, elle calcule la valeur du stock :\n\n"
        "```python\ndef total_value(items):\n    # sum the value of every item in the list\n"
        "    return sum(item.quantity * item.unit_price for item in items)\n```"
    )
    context = ctx(traj(say(reply)))
    assert verdict("reply_language", context, language="fr").result == "pass"
    assert verdict("reply_language", context, language="en").result == "fail"


# --- replies and length ----------------------------------------------------------------


def test_final_per_turn_picks_the_last_reply_of_each_turn():
    inst = instance(turns=("List the functions.", "Now rename sell to sell_item."))
    trajectory = traj(
        user("<system-reminder>ctx</system-reminder>\nList the functions."),
        say("Reading."),
        say("restock and sell."),
        user("<system-reminder>again</system-reminder>"),
        user("Now rename sell to sell_item."),
        say("Renaming."),
        say("Renamed."),
    )
    chosen = replies(trajectory, "final_per_turn", turns=inst.turns)
    assert [r.index for r in chosen] == [2, 6]
    assert [r.index for r in replies(trajectory, "final")] == [6]
    # without the turns, reminder-only user messages do not start a turn
    assert [r.index for r in replies(trajectory, "final_per_turn")] == [2, 6]


def test_count_words_counts_cjk_per_character():
    assert count_words("Hello, world — it's well-known v2!") == 5
    assert count_words("中文字符") == 4
    assert count_words("restock 函数 returns") == 4
    assert count_words("한국어 문장입니다") == 2
    assert count_words("🎉 *** ---") == 0


def test_length_limit_each_final_and_all():
    context = ctx(traj(say("one two three"), say("four five six seven")))
    assert verdict("length_limit", context, max_words=4).result == "pass"
    failing = verdict("length_limit", context, max_words=3)
    assert failing.result == "fail" and failing.evidence == 1 and "4 words" in failing.reasoning
    assert verdict("length_limit", context, max_words=3, scope="final").result == "fail"
    assert verdict("length_limit", context, max_words=5, scope="all").result == "fail"
    assert verdict("length_limit", context, max_words=7, scope="all").result == "pass"
    assert verdict("length_limit", ctx(traj(user("x"))), max_words=1).result == "n/a"


def test_length_limit_lines_chars_and_code():
    reply = "Here:\n\n```\na\nb\nc\n```\nDone."
    context = ctx(traj(say(reply)))
    assert verdict("length_limit", context, max_lines=3).result == "fail"
    assert verdict("length_limit", context, max_lines=2, exclude_code=True).result == "pass"
    assert verdict("length_limit", context, max_chars=len(reply)).result == "pass"
    assert verdict("length_limit", context, max_chars=len(reply) - 1).result == "fail"
    chinese = ctx(traj(say("这是一个很长的中文回答")))
    assert verdict("length_limit", chinese, max_words=10).result == "fail"


def test_length_limit_min_words():
    context = ctx(traj(say("one two three"), say("four five six seven")))
    short = verdict("length_limit", context, min_words=4)
    assert short.result == "fail" and short.evidence == 0 and "fewer than" in short.reasoning
    assert verdict("length_limit", context, min_words=4, scope="final").result == "pass"
    assert verdict("length_limit", context, min_words=7, scope="all").result == "pass"
    both = verdict("length_limit", context, min_words=3, max_words=3)
    assert both.result == "fail" and "more than" in both.reasoning


def test_uses_emoji():
    context = ctx(traj(say("Working on it."), say("All done ✅")))
    passing = verdict("uses_emoji", context)
    assert passing.result == "pass" and "✅" in passing.reasoning
    failing = verdict("uses_emoji", context, scope="all")
    assert failing.result == "fail" and failing.evidence == 0
    assert verdict("uses_emoji", ctx(traj(say("Plain.")))).result == "fail"
    assert verdict("uses_emoji", ctx(traj(user("hi")))).result == "n/a"


def test_reply_matches_present_absent_and_scopes():
    context = ctx(traj(say("Hello, I am Ada."), say("The tests pass.")))
    assert verdict("reply_matches", context, contains="I am Ada").result == "pass"
    assert verdict("reply_matches", context, contains="i am ada").result == "fail"
    assert verdict("reply_matches", context, contains="i am ada", ignore_case=True).result == (
        "pass"
    )
    each = verdict("reply_matches", context, pattern=r"\bAda\b", scope="each")
    assert each.result == "fail" and each.evidence == 1
    assert verdict("reply_matches", context, pattern=r"\bAda\b", scope="final").result == "fail"
    absent = verdict("reply_matches", context, contains="Ada", expect="absent")
    assert absent.result == "fail" and absent.evidence == 0
    assert verdict("reply_matches", context, contains="Max", expect="absent").result == "pass"
    coded = ctx(traj(say("Run `make secret` now.")))
    assert verdict("reply_matches", coded, contains="secret").result == "pass"
    assert verdict("reply_matches", coded, contains="secret", exclude_code=True).result == "fail"


def test_reply_matches_rejects_bad_params():
    with pytest.raises(SpecError, match="pattern or a contains"):
        verdict("reply_matches", ctx(traj(say("x"))))
    with pytest.raises(SpecError, match="invalid regular expression"):
        verdict("reply_matches", ctx(traj(say("x"))), pattern="(")
