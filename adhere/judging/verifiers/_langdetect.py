"""A small, explainable language detector for assistant replies.

It is deliberately modest: it answers only when the text gives clear evidence, and
says "cannot tell" otherwise.

1. **Prose only.** Fenced code, inline code, URLs, e-mail addresses, file paths,
   ``file.ext`` names, identifiers (``snake_case``, ``camelCase``, ``call()``, words
   with digits) and HTML/XML tags are removed first.
2. **Script.** Letters are counted per script. Han, Hiragana and Katakana count one
   unit per character, Hangul one unit per two syllables, other scripts one unit per
   word. The script with at least 60% of the units wins; less is "mixed".
3. **Language within the script.** Han with kana (≥ 10% of the CJK characters) is
   Japanese (``ja``), Han alone Chinese (``zh``), Hangul Korean (``ko``). Cyrillic is
   Ukrainian (і ї є ґ), Serbian (ђ ћ џ љ њ ј), Bulgarian (ъ without ы/э) or Russian;
   Arabic script is Urdu (ٹ ڈ ڑ ں ے), Persian (پ چ ژ گ or Persian ی/ک) or Arabic.
   Greek is ``el``, Hebrew ``he``, Devanagari ``hi``, Thai ``th``.
   Latin-script text is scored against stop-word profiles (en, fr, de, es, it, pt, nl,
   pl, sv, tr, id, vi): each function word adds ``1/k`` to each of the ``k`` profiles
   that contain it (elisions such as ``l'`` and ``dell'`` are words of their own);
   accented letters add a little to the languages that use them (ß, ñ, ã, ł, ğ, å, œ,
   đ, ì …). The best profile needs a score of at least 1 and 1.5 times the
   runner-up's.
4. **Too little text.** Fewer than 4 CJK characters, 4 Hangul syllables, 3 Latin
   words or 3 words of another script is "cannot tell".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adhere.judging.verifiers._replies import strip_code

__all__ = ["LANGUAGES", "Detection", "detect_language", "prose"]

LANGUAGES: dict[str, str] = {
    "ar": "Arabic",
    "bg": "Bulgarian",
    "de": "German",
    "el": "Greek",
    "en": "English",
    "es": "Spanish",
    "fa": "Persian",
    "fr": "French",
    "he": "Hebrew",
    "hi": "Hindi",
    "id": "Indonesian",
    "it": "Italian",
    "ja": "Japanese",
    "ko": "Korean",
    "nl": "Dutch",
    "pl": "Polish",
    "pt": "Portuguese",
    "ru": "Russian",
    "sr": "Serbian",
    "sv": "Swedish",
    "th": "Thai",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "ur": "Urdu",
    "vi": "Vietnamese",
    "zh": "Chinese",
}
"""Languages the detector can name, by ISO 639-1 code."""

_STOPWORDS: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "en": "the and of to is in that it for with as was on are be this by not or have "
        "from at which but you an they we can will has if would there what all were when "
        "your their been should these does do than into only also its now then so because "
        "how here about each our i a my me no yes",
        "fr": "le la les des un une du et est que qui dans pour pas sur au aux ce cette ces "
        "il elle ils nous vous avec sont par mais ou plus ne se son sa ses été être fait "
        "comme tout très aussi leur lui je même où donc car déjà votre quand sans entre "
        "l' d' qu' n' c' j' s' ai on y",
        "de": "der die das und ist nicht ein eine einen einem einer zu den dem des mit von "
        "auf für sich auch es im wird werden sind wir ich sie aber oder wenn noch nur bei "
        "nach aus wie dass kann hat haben diese dieser dieses über zum zur sehr schon "
        "jetzt hier um",
        "es": "el la los las de del que y en un una es por para con no se lo su sus al como "
        "más pero este esta estos son está también muy hay ya ha han puede cuando donde "
        "sobre entre todo fue ser sin porque qué o usted nos",
        "it": "il lo la gli le di del della dei delle che e è un una per con non si sono al "
        "alla nel nella come più ma anche questo questa ha hanno essere può quando dove "
        "perché se su tra già molto ci sul degli i l' all' dell' nell' sull' dall' un' c'",
        "pt": "o a os as de do da dos das que e é um uma em no na nos nas para com não por se "
        "ao à mais mas como este esta isso são também muito já foi ser pode quando onde "
        "sobre entre você seu sua pelo pela está",
        "nl": "de het een en van is dat die in te op voor niet met zijn aan er ook als maar "
        "om door bij naar uit wordt worden deze dit wat kan heeft hebben nog wel geen meer "
        "zo dan je we ik hij zij ze u",
        "pl": "i w na z się nie do to że jest o jak ale po co tak za od przez dla czy jego "
        "jej są być może już tylko który która które te ten ta tym też bardzo gdy oraz",
        "sv": "och att det som en ett på är av för med till den har de inte om men var jag "
        "vi du kan så från eller när vid också nu hur här detta denna dessa efter skulle "
        "bara",
        "tr": "ve bir bu da de için ile olarak ama çok daha gibi ne var yok olan en her şu mi "
        "mı ise değil sonra kadar veya hem ancak bunu şey",
        "id": "yang dan di ini itu dengan untuk tidak dari dalam akan pada juga ke ada bisa "
        "atau saya kami sudah",
        "vi": "của và là các có được trong cho không này một những với người đã để khi từ thì",
    }.items()
}
_HINTS: dict[str, tuple[str, ...]] = {
    "ß": ("de",),
    "ñ": ("es",),
    "¿": ("es",),
    "¡": ("es",),
    "ã": ("pt",),
    "õ": ("pt",),
    **dict.fromkeys("łąęśżźćń", ("pl",)),
    **dict.fromkeys("ğış", ("tr",)),
    "å": ("sv",),
    **dict.fromkeys("œîûïë", ("fr",)),
    **dict.fromkeys("đơư", ("vi",)),
    **dict.fromkeys("íóúá", ("es", "pt")),
    **dict.fromkeys("ìò", ("it",)),
    **dict.fromkeys("ùè", ("it", "fr")),
    "à": ("it", "fr", "pt"),
    **dict.fromkeys("êôâ", ("fr", "pt")),
    "ç": ("fr", "pt", "tr"),
    "é": ("fr", "es", "pt", "it"),
    "ä": ("de", "sv"),
    **dict.fromkeys("öü", ("de", "sv", "tr")),
}
"""Letters that point to some languages; each occurrence adds a share of 0.5."""
_HINT_WEIGHT = 0.5
_HINT_CAP = 3.0

_CLEAN = tuple(
    re.compile(p)
    for p in (
        r"<[^<>\n]{1,200}>",  # HTML/XML tags
        r"\]\([^)\s]*\)",  # markdown link targets
        r"\b(?:https?|ftp|file)://\S+|\bwww\.\S+",
        r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b",
        r"(?:~|\.{1,2})?(?:[\w.@+-]*[/\\])+[\w.@+-]*",  # paths with separators
        r"\b[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5}\b",  # file.ext, module.attr
        r"\b\w*(?:_|\d)\w*\b",  # snake_case, words with digits
        r"\b[a-z]+[A-Z]\w*\b",  # camelCase
        r"\b\w+\(\)",  # call()
    )
)
_LATIN_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ɏḀ-ỿ]+(?:['’](?=[A-Za-zÀ-ÖØ-öø-ɏḀ-ỿ]))?")
_WORD = re.compile(r"\w+")


def prose(text: str) -> str:
    """The natural-language part of ``text`` (see the module docstring)."""
    out = strip_code(text)
    for pattern in _CLEAN:
        out = pattern.sub(" ", out)
    return out


def _script(char: str) -> str | None:
    cp = ord(char)
    if 0x3040 <= cp <= 0x30FF or 0x31F0 <= cp <= 0x31FF or 0xFF66 <= cp <= 0xFF9F:
        return "Kana"
    if 0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0xF900 <= cp <= 0xFAFF:
        return "Han"
    if 0x20000 <= cp <= 0x2FA1F:
        return "Han"
    if 0xAC00 <= cp <= 0xD7AF or 0x1100 <= cp <= 0x11FF or 0x3130 <= cp <= 0x318F:
        return "Hangul"
    if not char.isalpha():
        return None
    for name, lo, hi in _RANGES:
        if lo <= cp <= hi:
            return name
    return "Other"


_RANGES: tuple[tuple[str, int, int], ...] = (
    ("Latin", 0x0041, 0x024F),
    ("Latin", 0x1E00, 0x1EFF),
    ("Greek", 0x0370, 0x03FF),
    ("Cyrillic", 0x0400, 0x052F),
    ("Hebrew", 0x0590, 0x05FF),
    ("Arabic", 0x0600, 0x06FF),
    ("Arabic", 0x0750, 0x077F),
    ("Devanagari", 0x0900, 0x097F),
    ("Thai", 0x0E00, 0x0E7F),
)
_SIMPLE = {"Greek": "el", "Hebrew": "he", "Devanagari": "hi", "Thai": "th"}
_MIN_CJK = 4
_MIN_HANGUL = 4
_MIN_LATIN_WORDS = 3
_MIN_OTHER_WORDS = 3
_DOMINANCE = 0.6
_MARGIN = 1.5


@dataclass(frozen=True)
class Detection:
    """The detector's answer: a language code, or ``None`` with the reason why not."""

    language: str | None
    reason: str

    @property
    def name(self) -> str:
        """The language's English name (or ``unknown``)."""
        return LANGUAGES.get(self.language or "", "unknown")


def detect_language(text: str) -> Detection:
    """Detect the language of the prose in ``text`` (see the module docstring)."""
    clean = prose(text)
    letters: dict[str, list[str]] = {}
    for char in clean:
        script = _script(char)
        if script is not None:
            letters.setdefault(script, []).append(char)
    words: dict[str, int] = {}
    for word in _WORD.findall(clean):
        script = _script(word[0])
        if script not in (None, "Han", "Kana", "Hangul"):
            words[script] = words.get(script, 0) + 1
    cjk = len(letters.get("Han", [])) + len(letters.get("Kana", []))
    hangul = len(letters.get("Hangul", []))
    units = {"CJK": float(cjk), "Hangul": hangul / 2, **{s: float(n) for s, n in words.items()}}
    total = sum(units.values())
    if total == 0:
        return Detection(None, "no natural-language text")
    script, top = max(units.items(), key=lambda item: item[1])
    if top / total < _DOMINANCE:
        shares = ", ".join(f"{s} {n / total:.0%}" for s, n in units.items() if n)
        return Detection(None, f"mixed scripts ({shares})")
    if script == "CJK":
        if cjk < _MIN_CJK:
            return Detection(None, f"only {cjk} CJK characters")
        kana = len(letters.get("Kana", []))
        lang = "ja" if kana / cjk >= 0.1 else "zh"
        return Detection(lang, f"{cjk} CJK characters, {kana} kana")
    if script == "Hangul":
        if hangul < _MIN_HANGUL:
            return Detection(None, f"only {hangul} Hangul syllables")
        return Detection("ko", f"{hangul} Hangul syllables")
    count = words.get(script, 0)
    if script == "Latin":
        if count < _MIN_LATIN_WORDS:
            return Detection(None, f"only {count} words of prose")
        return _latin(clean)
    if count < _MIN_OTHER_WORDS:
        return Detection(None, f"only {count} {script} words")
    chars = "".join(letters.get(script, []))
    return Detection(_within_script(script, chars), f"{count} {script} words")


def _within_script(script: str, chars: str) -> str | None:
    lower = chars.lower()
    if script == "Cyrillic":
        if any(c in lower for c in "іїєґ"):
            return "uk"
        if any(c in lower for c in "ђћџљњј"):
            return "sr"
        if "ъ" in lower and not any(c in lower for c in "ыэ"):
            return "bg"
        return "ru"
    if script == "Arabic":
        if any(c in chars for c in "ٹڈڑںے"):
            return "ur"
        if any(c in chars for c in "پچژگیک"):
            return "fa"
        return "ar"
    return _SIMPLE.get(script)


def _latin(clean: str) -> Detection:
    tokens = [t.lower().replace("’", "'") for t in _LATIN_WORD.findall(clean)]
    scores = dict.fromkeys(_STOPWORDS, 0.0)
    for token in tokens:
        owners = [lang for lang, words in _STOPWORDS.items() if token in words]
        for lang in owners:
            scores[lang] += 1 / len(owners)
    hints = dict.fromkeys(_STOPWORDS, 0.0)
    for char in clean.lower():
        pointed = _HINTS.get(char, ("vi",) if 0x1EA0 <= ord(char) <= 0x1EF9 else ())
        for lang in pointed:
            hints[lang] = min(_HINT_CAP, hints[lang] + _HINT_WEIGHT / len(pointed))
    for lang, bonus in hints.items():
        scores[lang] += bonus
    ranked = sorted(scores.items(), key=lambda item: -item[1])
    (best, top), (second, runner_up) = ranked[0], ranked[1]
    described = f"{len(tokens)} words; {best} {top:.1f}, {second} {runner_up:.1f}"
    if top < 1.0:
        return Detection(None, f"Latin script but too few function words ({described})")
    if top < _MARGIN * runner_up:
        return Detection(None, f"Latin script, {best} and {second} too close ({described})")
    return Detection(best, described)
