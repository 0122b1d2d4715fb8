"""The language detector at its documented thresholds: script blocks, how much text it needs,
when one script dominates, kana share, stop-word scores, letter hints and their cap."""

import pytest

from adhere.judging.verifiers._langdetect import Detection, _script, detect_language, prose


def detect(text: str) -> tuple[str | None, str]:
    found = detect_language(text)
    return found.language, found.reason


# (Unicode block, first, last, script the detector gives it)
BLOCKS = [
    ("Hiragana + Katakana", 0x3040, 0x30FF, "Kana"),
    ("Katakana Phonetic Extensions", 0x31F0, 0x31FF, "Kana"),
    ("Halfwidth Katakana", 0xFF66, 0xFF9F, "Kana"),
    ("CJK Unified Ideographs", 0x4E00, 0x9FFF, "Han"),
    ("CJK Extension A", 0x3400, 0x4DBF, "Han"),
    ("CJK Compatibility Ideographs", 0xF900, 0xFAFF, "Han"),
    ("CJK Extensions B…", 0x20000, 0x2FA1F, "Han"),
    ("Hangul Syllables", 0xAC00, 0xD7AF, "Hangul"),
    ("Hangul Jamo", 0x1100, 0x11FF, "Hangul"),
    ("Hangul Compatibility Jamo", 0x3130, 0x318F, "Hangul"),
]


@pytest.mark.parametrize(("block", "lo", "hi", "script"), BLOCKS)
def test_east_asian_blocks_belong_to_their_script_edge_to_edge(block, lo, hi, script) -> None:
    assert _script(chr(lo)) == script and _script(chr(hi)) == script, block
    assert _script(chr(lo - 1)) != script and _script(chr(hi + 1)) != script, block


@pytest.mark.parametrize(
    ("first", "last", "script"),
    [
        ("A", "ɏ", "Latin"), ("Ḁ", "ỿ", "Latin"), ("Ͱ", "Ͽ", "Greek"), ("Ѐ", "ԯ", "Cyrillic"),
        ("\u05d0", "\u05ea", "Hebrew"), ("\u0620", "\u06ff", "Arabic"),
        ("\u0750", "\u077f", "Arabic"),
        ("\u0904", "\u097f", "Devanagari"), ("\u0e01", "\u0e30", "Thai"),
    ],
)  # fmt: skip
def test_letters_of_each_alphabet_get_its_script(first, last, script) -> None:
    assert _script(first) == script and _script(last) == script


def test_letters_of_no_known_alphabet_are_other_and_non_letters_none() -> None:
    # Letters just past the alphabets the detector knows: IPA (U+0250), Greek Extended
    # (U+1F00), Syriac (U+074F), Thaana (U+0780), Bengali (U+0980), Armenian, Lao.
    for char in ("\u0250", "\u1f00", "\u074f", "\u0780", "\u0980", "\u0531", "\u0e81"):
        assert _script(char) == "Other", hex(ord(char))
    assert _script("\u03ff") == "Greek" and _script("\u0400") == "Cyrillic"
    for char in ("\u036f", "@", "1", "\u058f"):  # a combining mark, symbols, a digit
        assert _script(char) is None


def test_each_language_the_detector_names() -> None:
    samples = {
        "en": "The function returns the total value of the items.",
        "fr": "La fonction renvoie la valeur totale des articles dans le stock.",
        "de": "Die Funktion gibt den Gesamtwert der Artikel zurück, und das ist gut.",
        "es": "La función devuelve el valor total de los artículos en el inventario.",
        "it": "La funzione restituisce il valore totale degli articoli nel magazzino.",
        "pt": "A função devolve o valor total dos itens que estão no estoque.",
        "nl": "De functie geeft de totale waarde van de artikelen in het magazijn.",
        "pl": "Funkcja zwraca całkowitą wartość przedmiotów w magazynie, to jest dobre.",
        "sv": "Funktionen returnerar det totala värdet och det är bra för oss.",
        "tr": "Bu fonksiyon envanterdeki ürünlerin toplam değerini ve bir fiyat verir.",
        "id": "Fungsi ini mengembalikan nilai total dari barang yang ada di gudang.",
        "vi": "Tôi muốn ăn phở ngon",
        "zh": "中文字符",
        "ja": "日本語のテキスト",
        "ko": "한국어문장",
        "el": "αβγ δεζ ηθι",
        "he": "שלום מה שלומך",
        "hi": "नमस्ते आप कैसे",
        "th": "สวัสดี ครับ คุณ",
        "ru": "Привет как дела",
        "uk": "Привіт як справи",
        "sr": "Здраво ђак ћерка",
        "bg": "Съобщение за грешка тук",
        "ar": "مرحبا كيف الحال",
        "ur": "میں ٹھیک ہوں",
        "fa": "من پدر چه گفت",
    }
    for language, text in samples.items():
        assert detect_language(text).language == language, text


def test_how_much_text_each_script_needs() -> None:
    assert detect("中文字符") == ("zh", "4 CJK characters, 0 kana")
    assert detect("中文字") == (None, "only 3 CJK characters")
    assert detect("한국어문장") == ("ko", "5 Hangul syllables")
    assert detect("한국어장") == ("ko", "4 Hangul syllables")
    assert detect("한국어") == (None, "only 3 Hangul syllables")
    assert detect("the xyz qwv") == ("en", "3 words; en 1.0, fr 0.0")
    assert detect("the est") == (None, "only 2 words of prose")
    assert detect("αβγ δεζ ηθι") == ("el", "3 Greek words")
    assert detect("αβγ δεζ") == (None, "only 2 Greek words")
    assert detect("") == (None, "no natural-language text")
    assert detect("`code` 123 ...") == (None, "no natural-language text")


def test_one_script_must_hold_sixty_percent() -> None:
    assert detect("the cat sat αβγ δεζ") == ("en", "3 words; en 1.0, fr 0.0")  # 60%
    assert detect("the cat sat αβγ δεζ ηθι") == (None, "mixed scripts (Latin 50%, Greek 50%)")
    # Hangul counts one unit per two syllables: 6 syllables are 3 units against 3 words.
    assert detect("한국어문장입 the cat sat") == (None, "mixed scripts (Hangul 50%, Latin 50%)")
    assert detect("中文字符中文 the cat sat on") == ("zh", "6 CJK characters, 0 kana")  # 6 of 10
    assert detect("中文字符 the cat sat")[1] == "mixed scripts (CJK 57%, Latin 43%)"


def test_a_tenth_of_kana_among_cjk_makes_japanese() -> None:
    assert detect("中中中中中中中中中の") == ("ja", "10 CJK characters, 1 kana")
    assert detect("中中中中中中中中中中の") == ("zh", "11 CJK characters, 1 kana")


def test_stop_words_decide_latin_text_by_score_and_margin() -> None:
    # "a" is an English and a Portuguese function word: half a point each.
    assert detect("the a est") == ("en", "3 words; en 1.5, fr 1.0")  # exactly 1.5 times
    assert detect("the est xyz") == (
        None,
        "Latin script, en and fr too close (3 words; en 1.0, fr 1.0)",
    )
    assert detect("xyz qwv abc") == (
        None,
        "Latin script but too few function words (3 words; en 0.0, fr 0.0)",
    )


def test_letters_hint_at_languages_half_a_point_each_up_to_three() -> None:
    assert detect("ß xyz qwv") == (
        None,
        "Latin script but too few function words (3 words; de 0.5, en 0.0)",
    )
    assert detect("ßß xyz qwv") == ("de", "3 words; de 1.0, en 0.0")
    assert detect("ßßßßßßßß xyz qwv") == ("de", "3 words; de 3.0, en 0.0")
    # a letter several languages use is shared among them
    assert detect("éééé xyz qwv")[1].endswith("fr 0.5, es 0.5)")
    # Vietnamese letters of Latin Extended Additional
    assert detect("ạạ xyz qwv") == ("vi", "3 words; vi 1.0, en 0.0")


def test_prose_drops_code_links_paths_and_identifiers() -> None:
    text = (
        "see https://x.io/a www.example.com a@b.co src/app/main.py ~/dir/x file.txt my_var "
        "v2 camelCase call() <b>tag</b> [text](http://u)\n```\ncode here\n```\n`inline` end"
    )
    words = prose(text).split()
    assert words == ["see", "tag", "[text", "end"]


def test_a_detection_names_its_language() -> None:
    assert Detection("fr", "x").name == "French"
    assert Detection(None, "x").name == "unknown"
